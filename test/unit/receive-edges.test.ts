// Requests at the edges of the receive path: a pathological Authorization header, an address no
// URL parser takes, the v3 probe sent before the service holds the crmKey.
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import express from 'express';
import { describe, expect, it, vi } from 'vitest';
import { createNodeMiddleware } from '../../src/webhooks/adapters/node.js';
import { WebhookHandler } from '../../src/webhooks/receive/handler.js';
import { bearer } from '../../src/webhooks/receive/request.js';
import { messageAdd, post } from '../support/deliveries.js';
import { collecting } from '../support/handler.js';
import { listen } from '../support/servers.js';

/** One raw request (the path sent as given, which fetch would normalise). */
function raw(url: string, method: string, path: string, body = ''): Promise<number> {
  return new Promise((resolve, reject) => {
    const { port } = new URL(url);
    const req = httpRequest({
      host: '127.0.0.1',
      port,
      method,
      path,
      headers: { 'content-type': 'application/json' },
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** CPU time (ms) of one call, the median of five. */
async function cpuMs(work: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const start = process.cpuUsage();
    await work();
    const used = process.cpuUsage(start);
    times.push((used.user + used.system) / 1000);
  }
  return times.sort((a, b) => a - b)[2] as number;
}

describe('Authorization parsing is linear in the header’s length', () => {
  it('reads Bearer tokens; a blank one is none', () => {
    expect(bearer('Bearer abc')).toBe('abc');
    expect(bearer('  bearer \t abc  ')).toBe('abc');
    expect(bearer('BEARER a b')).toBe('a b');
    expect(bearer('Bearer')).toBeUndefined();
    expect(bearer('Bearer    ')).toBeUndefined();
    expect(bearer('Basic abc')).toBeUndefined();
    expect(bearer('Bearerabc')).toBeUndefined();
    expect(bearer(undefined)).toBeUndefined();
  });

  it('a 16 KB `Bearer x<spaces>y` header is refused in under 20 ms of CPU, far from a backtracking match (~90 ms)', async () => {
    const { hooks } = collecting({ secret: undefined, v3AuthToken: 'crm-key' });
    const authorization = `Bearer x${' '.repeat(16_000)}y`;
    const refuse = async () => {
      const answer = await hooks.handle(post('{}', '/hooks', { authorization }));
      expect(answer.status).toBe(401);
    };
    await refuse(); // warm
    expect(await cpuMs(refuse)).toBeLessThan(20);
  });
});

describe('An address no URL parser takes is answered or passed on, never left hanging', () => {
  it('node:http with { path }: `POST //` and `GET //` are answered 404', async () => {
    const { hooks } = collecting();
    const server = await listen(createNodeMiddleware(hooks, { path: '/hooks' }));
    try {
      expect(await raw(server.url, 'POST', '//', messageAdd())).toBe(404);
      expect(await raw(server.url, 'GET', '//')).toBe(404);
      expect(await raw(server.url, 'POST', '/hooks?secret=hook-secret', messageAdd())).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('Express app.use with { path }: `GET //` goes to next() and reaches the app’s own routes', async () => {
    const { hooks } = collecting();
    const app = express();
    app.use(createNodeMiddleware(hooks, { path: '/hooks' }));
    app.use((_req, res) => {
      res.status(418).end();
    });
    const server = await listen(app as never);
    try {
      expect(await raw(server.url, 'GET', '//')).toBe(418);
      expect(await raw(server.url, 'POST', '//', '{}')).toBe(418);
    } finally {
      await server.close();
    }
  });
});

describe('The v3 { test: true } probe before the service holds the crmKey', () => {
  const probe = JSON.stringify({ test: true });

  it('is answered 200 without credentials when only v3AuthToken is set; nothing is dispatched', async () => {
    const { hooks, errors } = collecting({ secret: undefined, v3AuthToken: 'crm-key' });
    const seen: unknown[] = [];
    hooks.on('webhook', (w) => seen.push(w));
    const answer = await hooks.handle(post(probe, '/hooks'));
    expect(answer.status).toBe(200);
    await hooks.drain();
    expect([seen, errors]).toEqual([[], []]);
  });

  it('an unauthenticated non-probe is still 401, with no more than the first 64 bytes read', async () => {
    const { hooks } = collecting({ secret: undefined, v3AuthToken: 'crm-key' });
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new TextEncoder().encode('{"test":true,   '));
      },
    });
    expect((await hooks.handle(post(endless, '/hooks'))).status).toBe(401);
    expect(pulled).toBeLessThanOrEqual(6); // 16-byte chunks: 64 bytes plus what the stream had queued
    expect((await hooks.handle(post(messageAdd(), '/hooks'))).status).toBe(401);
    expect((await hooks.handle(post('{"test":true,"x":1}', '/hooks'))).status).toBe(401);
    expect((await hooks.handle(post(probe, '/hooks', { 'content-length': '9999' }))).status).toBe(401);
  });

  it('a wrong crmKey is refused, and a configured URL secret is still required', async () => {
    const keyOnly = collecting({ secret: undefined, v3AuthToken: 'crm-key' }).hooks;
    expect((await keyOnly.handle(post(probe, '/hooks', { authorization: 'Bearer wrong' }))).status).toBe(401);
    const both = collecting({ secret: 'sec', v3AuthToken: 'crm-key' }).hooks;
    expect((await both.handle(post(probe, '/hooks'))).status).toBe(401);
  });
});

describe('With no error listener, the console is written to in bounded amounts', () => {
  it('a flood of 10,000 refused requests writes at most 10 lines a minute, then one counting the rest', async () => {
    vi.useFakeTimers();
    const lines: string[] = [];
    const spy = vi
      .spyOn(console, 'error')
      .mockImplementation((line: unknown) => void lines.push(String(line)));
    try {
      const hooks = new WebhookHandler({ secret: 'hook-secret' });
      for (let i = 0; i < 10_000; i++) await hooks.handle(post('{}', '/hooks?secret=wrong'));
      expect(lines).toHaveLength(10);
      expect(lines[0]).toMatch(/auth: Webhook delivery refused/);
      await vi.advanceTimersByTimeAsync(60_000);
      expect(lines).toHaveLength(11);
      expect(lines[10]).toMatch(/9990 more reports left out in the last 60 s; listen to 'error'/);
      await hooks.handle(post('{}', '/hooks?secret=wrong')); // a new window writes again
      expect(lines).toHaveLength(12);
    } finally {
      spy.mockRestore();
      vi.useRealTimers();
    }
  });
});

describe('A 413 is seen by the client that caused it', () => {
  /** A client that writes its whole body before it reads anything (as many HTTP clients do). */
  function writeAllThenRead(url: string, bytes: number): Promise<{ answer: string; error?: string }> {
    const { port } = new URL(url);
    return new Promise((resolve) => {
      const socket = connect(Number(port), '127.0.0.1');
      let answer = '';
      let error: string | undefined;
      socket.pause(); // reads nothing until the body is written
      socket.on('data', (chunk) => {
        answer += chunk.toString('latin1');
      });
      socket.on('error', (e: NodeJS.ErrnoException) => {
        error = e.code ?? e.message;
      });
      socket.on('close', () => resolve({ answer, error }));
      const head = `POST /hooks?secret=hook-secret HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${bytes}\r\n\r\n`;
      socket.write(head);
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      let sent = 0;
      const pump = () => {
        while (sent < bytes) {
          const n = Math.min(chunk.length, bytes - sent);
          sent += n;
          if (!socket.write(chunk.subarray(0, n))) return void socket.once('drain', pump);
        }
        socket.resume(); // the whole body is out: now read the answer
      };
      pump();
    });
  }

  it('a client writing 6 MiB before reading gets the 413, not EPIPE or a reset', async () => {
    const { hooks } = collecting();
    const server = await listen(createNodeMiddleware(hooks));
    try {
      const { answer, error } = await writeAllThenRead(server.url, 6 * 1024 * 1024);
      expect(error).toBeUndefined();
      expect(answer.startsWith('HTTP/1.1 413')).toBe(true);
    } finally {
      await server.close();
    }
  });

  it('a body far past the limit is not read to its end: the connection is cut', async () => {
    const { hooks } = collecting({ maxBodyBytes: 1024 });
    const server = await listen(createNodeMiddleware(hooks));
    try {
      const { error } = await writeAllThenRead(server.url, 64 * 1024 * 1024);
      expect(error).toBeDefined(); // cut by the server rather than read whole
    } finally {
      await server.close();
    }
  });
});
