// The receive path against hostile and broken clients, in a receiver process of its own built as
// the README shows: nothing a client does may crash it, starve it, or lose a delivery.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageAdd } from '../support/deliveries.js';
import {
  journalDir,
  postHead,
  type ReceiverProcess,
  rawRequest,
  startReceiver,
} from '../support/receiver-process.js';

const dirs = journalDir();
afterAll(() => dirs.cleanup());

const deliver = (url: string, body: string) =>
  fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json' } });

describe('A receiver no client can crash or starve', () => {
  let receiver: ReceiverProcess;
  const path = '/hooks?secret=receiver-secret';

  beforeAll(async () => {
    receiver = await startReceiver({ JOURNAL: dirs.file('hostile'), BODY_TIMEOUT_MS: '500' });
  });
  afterAll(() => receiver.stop());

  it('survives 50 bodies aborted mid-way, then answers a valid delivery 200', async () => {
    const aborted = Array.from({ length: 50 }, () =>
      rawRequest(receiver.port, postHead(path, { 'content-length': 1000 }), '{"event":"m', 20),
    );
    await Promise.all(aborted);
    const answer = await deliver(receiver.url, messageAdd());
    expect(answer.status).toBe(200);
    expect(receiver.child.exitCode).toBeNull();
    expect(receiver.journal().filter((l) => l.startsWith('unhandledRejection'))).toEqual([]);
  });

  it('answers 20 trickling bodies 408 at bodyTimeoutMs and keeps serving others meanwhile', async () => {
    const timers: NodeJS.Timeout[] = [];
    const slow = Array.from({ length: 20 }, () => {
      const head = postHead(path, { 'content-length': 10_000 });
      return new Promise<string>((resolve) => {
        import('node:net').then(({ connect }) => {
          const socket = connect(receiver.port, '127.0.0.1');
          let answer = '';
          socket.write(head);
          const timer = setInterval(() => socket.write('{'), 100);
          timers.push(timer);
          socket.on('data', (c) => {
            answer += c.toString();
            clearInterval(timer);
            socket.destroy();
          });
          socket.on('error', () => {});
          socket.on('close', () => resolve(answer));
        });
      });
    });
    const fast = await deliver(receiver.url, messageAdd());
    expect(fast.status).toBe(200);
    const answers = await Promise.all(slow);
    for (const t of timers) clearInterval(t);
    expect(answers.every((a) => a.startsWith('HTTP/1.1 408'))).toBe(true);
  });

  it('refuses a wrong secret 401 before the body: the answer comes while the body is still unsent', async () => {
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        rawRequest(receiver.port, postHead('/hooks?secret=wrong', { 'content-length': 5_000_000 }), '', 2000),
      ),
    );
    expect(answers.every((a) => a.startsWith('HTTP/1.1 401'))).toBe(true);
    // Closed, not drained: the sender cannot push the rest of its body through the server.
    expect(answers.every((a) => /\r\nconnection: close\r\n/i.test(a))).toBe(true);
  });

  it('answers a chunked body over the limit 413 and a lying length or bad bytes 4xx, and lives on', async () => {
    const chunk = 'x'.repeat(64 * 1024);
    const chunked = `${chunk.length.toString(16)}\r\n${chunk}\r\n`.repeat(90); // ~5.6 MiB, never ended
    const over = await rawRequest(
      receiver.port,
      postHead(path, { 'transfer-encoding': 'chunked' }),
      chunked,
      3000,
    );
    expect(over.startsWith('HTTP/1.1 413')).toBe(true);
    const lying = await rawRequest(
      receiver.port,
      postHead(path, { 'content-length': 5 }),
      messageAdd(),
      1000,
    );
    expect(lying).toMatch(/^HTTP\/1.1 400/);
    const bytes = await fetch(receiver.url, {
      method: 'POST',
      body: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]),
    });
    expect(bytes.status).toBe(400);
    const deep = `{"event":"message.add","data":${'['.repeat(100_000)}${']'.repeat(100_000)},"meta":{}}`;
    expect((await deliver(receiver.url, deep)).status).toBe(400);
    expect((await deliver(receiver.url, messageAdd())).status).toBe(200);
    expect(receiver.child.exitCode).toBeNull();
  });

  it('refuses a body of 1,000,000 bad items 400 and keeps serving', { timeout: 60_000 }, async () => {
    const body = `{"event":"message.add","data":[${Array(1_000_000).fill('{}').join(',')}],"meta":{"idempotency_key":"m","timestamp":1}}`;
    const answer = await deliver(receiver.url, body);
    expect(answer.status).toBe(400);
    expect((await deliver(receiver.url, messageAdd())).status).toBe(200);
  });
});

describe("At-least-once with dispatch: 'await': a crash loses nothing", () => {
  it('SIGKILL during the listeners; the redelivery to a new process is processed: 0 lost', {
    timeout: 120_000,
  }, async () => {
    const journal = dirs.file('kill');
    const first = await startReceiver({ JOURNAL: journal, DISPATCH: 'await', HANG: '1' });
    const keys = Array.from({ length: 20 }, (_, i) => `kill-${i}`);
    const attempts = keys.map((key) =>
      deliver(first.url, messageAdd(key)).then(
        (r) => r.status,
        () => 'no answer',
      ),
    );
    await expect.poll(() => first.journal().filter((l) => l.startsWith('start')).length).toBe(keys.length);
    await first.stop(); // killed between the answer it never gave and the work it never finished
    expect(await Promise.all(attempts)).toEqual(keys.map(() => 'no answer'));

    const second = await startReceiver({ JOURNAL: journal, DISPATCH: 'await' });
    try {
      const redelivered = await Promise.all(keys.map((key) => deliver(second.url, messageAdd(key))));
      expect(redelivered.map((r) => r.status)).toEqual(keys.map(() => 200));
      const done = new Set(
        second
          .journal()
          .filter((l) => l.startsWith('done'))
          .map((l) => l.split(' ')[1]),
      );
      expect([...keys].filter((k) => !done.has(k))).toEqual([]);
    } finally {
      await second.stop();
    }
  });
});
