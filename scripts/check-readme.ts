// Typechecks every ```ts block of README.md and of the guides in docs/, so no snippet uses a name it never imports or an API
// that changed. Each block becomes a module of its own in .tmp/readme/, compiled against the source
// (the tsconfig's paths map 'messaging-gateway-sdk' to src/) and the frameworks' real types.
// SDK names must be imported by the block itself; only the values a reader has from earlier
// sections (a client, a handler, ids) are declared below. A block that is truly a fragment may opt
// out with `// not compiled: <why>` as its first line. A block marked `// runs: <what it needs>`
// is compiled too, and run by the document's test in test/guides/ (checked to exist here).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { blocksOf, guideDocuments, guideTestFile, ROOT as root } from './guide-blocks.js';

const out = join(root, '.tmp', 'readme');

/** The values README sections take from earlier ones; never an export of the SDK. */
const CONTEXT = `
import type { GatewayClient, WebhookHandler, DeliveryTracker, SendMessageParams } from 'messaging-gateway-sdk';
declare global {
  const client: GatewayClient;
  const hooks: WebhookHandler;
  const tracker: DeliveryTracker;
  const secret: string;
  const channel_id: string;
  const channelId: string;
  const messageId: string;
  const templateId: string;
  const telegram_token: string;
  const url: string;
  const newUrl: string;
  const otherUrl: string;
  const contactAddId: string;
  const request_id: string;
  const jobId: string;
  const draft: unknown;
  const storedItem: unknown;
  const redis: import('ioredis').Redis;
  const id: string;
  const rawBody: string;
  const recipient: SendMessageParams['recipient'];
  const message: SendMessageParams;
  const items: SendMessageParams[];
  /** The reader's own code: a CRM, a logger, a job queue and its worker. */
  const crm: { createContact(data: unknown, options: { signal: AbortSignal }): Promise<string> };
  const log: { error(...values: unknown[]): void; warn(...values: unknown[]): void };
  const deadLetters: { push(raw: unknown): Promise<void> };
  const myQuota: { take(signal?: AbortSignal): Promise<void>; give(): void; holdFor(ms: number): void };
  const queue: { add(name: string, data: unknown): Promise<unknown>; retryLater(data: unknown, delayMs: number): void };
  const worker: { process(job: (job: { data: import('messaging-gateway-sdk').Webhook }) => Promise<void>): void };
  function reply(message: unknown): Promise<void>;
  const db: {
    claim(key: string, leaseMs: number): Promise<import('messaging-gateway-sdk/webhooks').ClaimResult>;
    keepReply(key: string, reply: unknown, ttlMs: number): Promise<void>;
    markDone(key: string, ttlMs: number, reply: unknown, token?: string): Promise<void>;
    forget(key: string, token?: string): Promise<void>;
  };
  /** The runtimes' globals, as far as the snippets use them. */
  const Bun: { serve(options: { port: number; fetch(request: Request, server: unknown): Promise<Response> }): unknown };
  const Deno: {
    serve(options: { port: number }, handler: (request: Request, info: unknown) => Promise<Response>): unknown;
    env: { get(name: string): string | undefined };
  };
}
export {};
`;

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const documents = guideDocuments();
const all = documents.flatMap(blocksOf);
const checked = all.filter((block) => block.kind !== 'fragment');
const running = all.filter((block) => block.kind === 'runs');
// A block that says it runs must have the test that runs it.
const untested = [...new Set(running.map((block) => block.document))].filter(
  (document) => !existsSync(join(root, guideTestFile(document))),
);
if (untested.length > 0) {
  for (const document of untested)
    console.error(`${document} has blocks marked "// runs:" but no ${guideTestFile(document)} runs them`);
  process.exit(1);
}
/** Each generated file → the document and line its block starts at. */
const files = new Map<string, { document: string; line: number }>();
checked.forEach((block, index) => {
  const file = `block-${String(index + 1).padStart(3, '0')}.ts`;
  files.set(file, { document: block.document, line: block.line });
  writeFileSync(join(out, file), `${block.code}\nexport {};\n`);
});
writeFileSync(join(out, 'context.d.ts'), CONTEXT);
writeFileSync(
  join(out, 'tsconfig.json'),
  JSON.stringify({
    extends: '../../tsconfig.json',
    // NestJS snippets use parameter decorators, which need the legacy decorators Nest is built on.
    compilerOptions: { experimentalDecorators: true, noUnusedLocals: false },
    include: ['*.ts'],
  }),
);

try {
  execFileSync(join(root, 'node_modules', '.bin', 'tsc'), ['-p', join(out, 'tsconfig.json'), '--noEmit'], {
    cwd: root,
    encoding: 'utf8',
  });
} catch (error) {
  const output = String((error as { stdout?: string }).stdout ?? error);
  // Point each error at its document's line: .tmp/readme/block-003.ts(5,10) → docs/sending.md:57:10
  const mapped = output.replace(
    /(?:\.tmp\/readme\/)?(block-\d+\.ts)\((\d+),(\d+)\)/g,
    (_m, file, line, col) => {
      const start = files.get(file) ?? { document: 'README.md', line: 0 };
      return `${start.document}:${start.line + Number(line) - 1}:${col}`;
    },
  );
  console.error(mapped);
  console.error(`README and docs/: ${checked.length} ts blocks checked, some do not compile (see above)`);
  process.exit(1);
}
const skipped = all.length - checked.length;
console.log(
  `README and ${documents.length - 1} guides: ${checked.length} ts blocks compile (${running.length} of them also run by test/guides/)${skipped ? `, ${skipped} marked "not compiled"` : ''}`,
);
