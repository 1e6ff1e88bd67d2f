import { Readable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readRequestBody } from '../../src/webhooks/receive/read-request-body.js';

const limits = { maxBytes: 1024, timeoutMs: 4321 };

/** The text of a read body. */
function text(read: Awaited<ReturnType<typeof readRequestBody>>): string | undefined {
  return read.kind === 'body' ? new TextDecoder().decode(read.body as Uint8Array) : undefined;
}

/** setTimeout calls asking for the read's time limit. */
function limitTimers(spy: { mock: { calls: unknown[][] } }): number {
  return spy.mock.calls.filter((call) => call[1] === limits.timeoutMs).length;
}

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('readRequestBody: a node stream, bounded in time without a timer per delivery', () => {
  it('sets no timer for a body that has ended by the end of the turn (one that came with its headers)', async () => {
    const spy = vi.spyOn(globalThis, 'setTimeout');
    const stream = new Readable({ read() {} });
    stream.push('{"a":1}');
    stream.push(null);
    expect(text(await readRequestBody(stream, limits))).toBe('{"a":1}');
    await new Promise((resolve) => setImmediate(resolve)); // the end of the turn has passed
    expect(limitTimers(spy)).toBe(0);
  });

  it('times out a body still arriving at the end of the turn, and stops listening', async () => {
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

  it('clears the timer of a body that ends after the turn, within the limit', async () => {
    vi.useFakeTimers();
    const stream = new Readable({ read() {} });
    stream.push('{"a":');
    const reading = readRequestBody(stream, limits);
    await vi.advanceTimersByTimeAsync(100);
    expect(vi.getTimerCount()).toBe(1); // the limit, armed at the end of the first turn
    stream.push('1}');
    stream.push(null);
    expect(text(await reading)).toBe('{"a":1}');
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('readRequestBody: the time limit survives fake timers in a user’s test suite', () => {
  it('a read started under fake timers that were uninstalled unadvanced leaves later reads bounded', async () => {
    vi.useFakeTimers(); // fakes setImmediate too: the end of the turn is put off to a fake one
    const early = new Readable({ read() {} });
    early.push('{"a":');
    void readRequestBody(early, limits);
    vi.useRealTimers(); // the fake immediate is dropped, never run
    const stalled = new Readable({ read() {} });
    stalled.push('{"a":');
    const read = await Promise.race([
      readRequestBody(stalled, { maxBytes: 1024, timeoutMs: 20 }),
      new Promise((resolve) => setTimeout(resolve, 1000, 'still reading')),
    ]);
    expect(read).toEqual({ kind: 'timeout' });
  });
});
