// A body over maxBodyBytes from a client that keeps writing (as one that writes its whole body
// before it reads the answer does): the 413 goes out first, then the server cuts the connection,
// and the client's next write fails with EPIPE or ECONNRESET. The bytes it read before the reset
// hold the 413: that is how docs/receiving-webhooks.md tells the two apart. Fastify 5 and workerd.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { createFastifyPlugin } from '../../src/webhooks/adapters/fastify.js';
import { WebhookHandler } from '../../src/webhooks/receive/handler.js';
import { skipFrameworks } from './cases.js';
import type { RuntimeProcess } from './runtime-process.js';
import { startWorkerd } from './workerd.js';

/** What a client writing `total` bytes of body read before its socket closed, and how it ended. */
async function writeWhole(port: number, total: number): Promise<{ statusLine: string; error?: string }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    let error: string | undefined;
    socket.on('data', (chunk) => (received += chunk));
    socket.on('error', (e: NodeJS.ErrnoException) => (error ??= e.code));
    socket.on('close', () => resolve({ statusLine: received.split('\r\n')[0] ?? '', error }));
    socket.write(
      `POST /hooks?secret=s HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${total}\r\n\r\n`,
    );
    const chunk = Buffer.alloc(64 * 1024, ' ');
    let sent = 0;
    const pump = () => {
      while (sent < total && !socket.destroyed) {
        sent += chunk.length;
        if (!socket.write(chunk)) return void socket.once('drain', pump);
      }
      if (!socket.destroyed) socket.end();
    };
    pump();
  });
}

const MAX_BODY_BYTES = 64 * 1024;

describe.skipIf(skipFrameworks)('a 413 that a still-writing client sees as a reset', () => {
  it('Fastify: the 413 arrives, then the connection is cut past twice maxBodyBytes', async () => {
    const app = fastify();
    await app.register(
      createFastifyPlugin(new WebhookHandler({ secret: 's', maxBodyBytes: MAX_BODY_BYTES }), {
        path: '/hooks',
      }),
    );
    await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const { port } = app.server.address() as { port: number };
      // Within twice the limit the rest is read and dropped: a clean 413.
      expect(await writeWhole(port, MAX_BODY_BYTES * 2)).toEqual({
        statusLine: 'HTTP/1.1 413 Payload Too Large',
        error: undefined,
      });
      // Far past it: the 413, then a reset under the client's writes.
      const cut = await writeWhole(port, MAX_BODY_BYTES * 160);
      expect(cut.statusLine).toBe('HTTP/1.1 413 Payload Too Large');
      expect(['EPIPE', 'ECONNRESET']).toContain(cut.error);
      // Node's fetch reads the answer while it writes: it reports the 413, not the reset.
      const answer = await fetch(`http://127.0.0.1:${port}/hooks?secret=s`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: Buffer.alloc(MAX_BODY_BYTES * 160, ' '),
      });
      expect(answer.status).toBe(413);
    } finally {
      await app.close();
    }
  });

  describe('workerd', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mgsdk-workerd-413-'));
    let worker: RuntimeProcess | undefined;
    afterAll(async () => {
      await worker?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('the 413 arrives, then the connection is cut under the client', { timeout: 60_000 }, async () => {
      writeFileSync(
        join(dir, 'entry.mjs'),
        `import { createFetchHandler, WebhookHandler } from ${JSON.stringify(join(import.meta.dirname, '..', '..', 'dist', 'webhooks.js'))};
const handle = createFetchHandler(new WebhookHandler({ secret: 's', maxBodyBytes: ${MAX_BODY_BYTES} }));
export default { fetch: (request, env, ctx) => handle(request, env, ctx) };`,
      );
      worker = await startWorkerd(join(dir, 'entry.mjs'), dir);
      const cut = await writeWhole(Number(new URL(worker.url).port), MAX_BODY_BYTES * 160);
      expect(cut.statusLine).toBe('HTTP/1.1 413 Payload Too Large');
      expect(['EPIPE', 'ECONNRESET']).toContain(cut.error);
    });
  });
});
