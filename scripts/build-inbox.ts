// Writes src/testing/inbox/assets.ts from the inbox page's files (see scripts/inbox-module.ts).
import { writeFileSync } from 'node:fs';
import { INBOX_MODULE, renderInboxModule } from './inbox-module.js';

writeFileSync(INBOX_MODULE, renderInboxModule());
console.log(`wrote ${INBOX_MODULE.pathname}`);
