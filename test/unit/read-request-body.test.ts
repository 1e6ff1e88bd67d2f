import { Readable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readRequestBody } from '../../src/webhooks/receive/read-request-body.js';

const limits = { maxBytes: 1024, timeoutMs: 4321 };

/** The text of a read body. */
function text(read: Awaited<ReturnType<typeof readRequestBody>>): string | undefined {
  return read.kind === 'body' ? new TextDecoder().decode(read.body as Uint8Array) : undefined;
}

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('readRequestBody: a node stream, bounded in time', () => {
  it('clears its time limit as soon as the body ends: no timer is left behind', async () => {
    vi.useFakeTimers();
    const stream = new Readable({ read() {} });
    stream.push('{"a":1}');
    stream.push(null);
    expect(text(await readRequestBody(stream, limits))).toBe('{"a":1}');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('answers timeout for a body not complete within timeoutMs of the start, and stops listening', async () => {
    vi.useFakeTimers();
    const stream = new Readable({ read() {} });
    stream.push('{"a":'); // and nothing more
    const reading = readRequestBody(stream, limits);
    await vi.advanceTimersByTimeAsync(limits.timeoutMs - 1);
    let settled = false;
    void reading.then(() => {
      settled = true;
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await reading).toEqual({ kind: 'timeout' });
    expect(stream.listenerCount('data')).toBe(0);
    expect(stream.listenerCount('end')).toBe(0);
  });

  it('clears the timer of a body that ends later, within the limit', async () => {
    vi.useFakeTimers();
    const stream = new Readable({ read() {} });
    stream.push('{"a":');
    const reading = readRequestBody(stream, limits);
    await vi.advanceTimersByTimeAsync(100);
    expect(vi.getTimerCount()).toBe(1); // the limit, armed when the read began
    stream.push('1}');
    stream.push(null);
    expect(text(await reading)).toBe('{"a":1}');
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('readRequestBody: the time limit survives fake timers in a user’s test suite', () => {
  it('a read started under fake timers that were uninstalled unadvanced leaves later reads bounded', async () => {
    vi.useFakeTimers();
    const early = new Readable({ read() {} });
    early.push('{"a":');
    void readRequestBody(early, limits);
    vi.useRealTimers(); // the fake timer of the first read is dropped, never run
    const stalled = new Readable({ read() {} });
    stalled.push('{"a":');
    const read = await Promise.race([
      readRequestBody(stalled, { maxBytes: 1024, timeoutMs: 20 }),
      new Promise((resolve) => setTimeout(resolve, 1000, 'still reading')),
    ]);
    expect(read).toEqual({ kind: 'timeout' });
  });
});
