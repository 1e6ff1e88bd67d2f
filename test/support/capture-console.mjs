// Preloaded (NODE_OPTIONS=--import) into every example process by test/e2e/examples.test.ts: appends
// each console.debug/info/warn/error line to $CAPTURE_LOG_FILE as JSON, then prints it as usual.
// GatewayClient's default logger is console, so every line the SDK logs lands in the file.
import { appendFileSync } from 'node:fs';
import { format } from 'node:util';

const file = process.env.CAPTURE_LOG_FILE;
if (file) {
  for (const level of ['debug', 'info', 'warn', 'error']) {
    const original = console[level].bind(console);
    console[level] = (...args) => {
      appendFileSync(file, `${JSON.stringify({ level, line: format(...args) })}\n`);
      original(...args);
    };
  }
}
