// A DedupeStore that holds each key in a transaction (processInTransaction) is given the handler's
// lease, and a transaction cut at the lease ends the delivery's work: the key is free, and the
// service's next attempt is processed, never 409 for ever (DESIGN: Every transaction is bounded).
// The store is a user's own, as the public interface allows: it honours the lease it is given.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { GatewayError } from '../../src/core/errors.js';
import { createLambdaHandler } from '../../src/webhooks/adapters/lambda.js';
import type { ClaimResult, DedupeStore } from '../../src/webhooks/receive/dedupe-store.js';
import { messageAdd, post } from '../support/deliveries.js';
import { fixture } from '../support/fixtures.js';
import { collecting, HOOK_URL } from '../support/handler.js';
import { httpApiEvent } from '../support/lambda-events.js';

/** The handler's lease with replyTimeoutMs under 30 s: a minute. */
const LEASE_MS = 60_000;

const contactAdd = (key: string) => {
  const body = fixture('v2', 'crm_entities.contact_add') as { meta: Record<string, unknown> };
  return JSON.stringify({ ...body, meta: { ...body.meta, idempotency_key: key } });
};

/**
 * Keys held by a transaction of its own (in memory here): a second attempt meanwhile is
 * `processing`; the transaction is rolled back, rejecting with a retryable GatewayError, once
 * `process` outlives `leaseMs`. A store not given a lease cannot bound its transaction.
 */
class LeasedTransactionStore implements DedupeStore {
  readonly held = new Set<string>();
  readonly done = new Map<string, unknown>();
  readonly leases: (number | undefined)[] = [];

  claim(): ClaimResult {
    throw new Error('a transactional store is never claimed by the handler');
  }
  keepReply(): void {}
  complete(): void {}
  release(): void {}

  async processInTransaction(
    key: string,
    process: (tx: unknown) => Promise<unknown>,
    _ttlMs: number,
    leaseMs?: number,
  ): Promise<ClaimResult> {
    this.leases.push(leaseMs);
    if (this.done.has(key)) return { state: 'done', reply: this.done.get(key) };
    if (this.held.has(key)) return { state: 'processing' };
    this.held.add(key);
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const work = process({ transaction: key });
      const cut = new Promise<never>((_resolve, reject) => {
        if (leaseMs === undefined) return;
        timer = setTimeout(
          () =>
            reject(new GatewayError('the transaction outlived its lease: rolled back', { retryable: true })),
          leaseMs,
        );
      });
      const reply = await Promise.race([work, cut]);
      this.done.set(key, reply);
      return { state: 'claimed', reply };
    } finally {
      clearTimeout(timer);
      this.held.delete(key);
    }
  }
}

/** A responder that hangs on its first call (never settles) and replies on the next. */
function hangingOnce() {
  let calls = 0;
  const responder = () => {
    calls++;
    return calls === 1 ? new Promise<never>(() => {}) : Promise.resolve({ id: 'c-1', name: 'Ann' });
  };
  return { responder, calls: () => calls };
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('A transaction of the dedupe store is bounded by the lease', () => {
  it('a hung responder: 500 at replyTimeoutMs, 409 while the lease lives, then the key is free and the retry is processed', async () => {
    const store = new LeasedTransactionStore();
    const { hooks, errors } = collecting({ dedupe: store, replyTimeoutMs: 1_000 });
    const { responder, calls } = hangingOnce();
    hooks.respond('crm_entities.contact_add', responder);
    const deliver = () => hooks.handle(post(contactAdd('k-hung'), HOOK_URL));

    const first = deliver();
    await vi.advanceTimersByTimeAsync(1_000);
    expect((await first).status).toBe(500);
    await vi.advanceTimersByTimeAsync(29_000);
    expect((await deliver()).status).toBe(409); // the hung transaction still holds the key
    await vi.advanceTimersByTimeAsync(LEASE_MS - 30_000 + 5_000); // 65 s in: past the lease
    const retry = await deliver();
    expect(retry.status).toBe(200);
    expect(JSON.parse(retry.body)).toEqual({ id: 'c-1', name: 'Ann' });
    expect(calls()).toBe(2);
    expect(store.leases[0]).toBe(LEASE_MS);
    expect(errors.map(([error]) => error.message)).toContain(
      'the transaction outlived its lease: rolled back',
    );
  });

  it("a hung 'await' listener in the transaction: the key is free once the lease ends, and the retry runs the listeners again", async () => {
    const store = new LeasedTransactionStore();
    const { hooks } = collecting({ dedupe: store, dispatch: 'await', replyTimeoutMs: 1_000 });
    let runs = 0;
    hooks.on('message.add', () => (++runs === 1 ? new Promise<never>(() => {}) : undefined));
    const deliver = () => hooks.handle(post(messageAdd('k-listener'), HOOK_URL));
    const first = deliver();
    await vi.advanceTimersByTimeAsync(1_000);
    expect((await first).status).toBe(500);
    expect((await deliver()).status).toBe(409);
    await vi.advanceTimersByTimeAsync(LEASE_MS);
    expect((await deliver()).status).toBe(200);
    expect(runs).toBe(2);
  });

  it('createLambdaHandler: the invocation ends when the store cuts the transaction at the lease, not at the function time-out', async () => {
    const store = new LeasedTransactionStore();
    const { hooks } = collecting({ dedupe: store, replyTimeoutMs: 1_000 });
    const { responder } = hangingOnce();
    hooks.respond('crm_entities.contact_add', responder);
    const handler = createLambdaHandler(hooks);
    const event = () => httpApiEvent('/hooks', 'secret=hook-secret', { body: contactAdd('k-lambda') });

    let ended = false;
    const invocation = handler(event()).finally(() => {
      ended = true;
    });
    await vi.advanceTimersByTimeAsync(LEASE_MS - 1_000);
    expect(ended).toBe(false); // the transaction is alive: the function is not frozen inside it
    await vi.advanceTimersByTimeAsync(2_000);
    expect(ended).toBe(true);
    expect((await invocation).statusCode).toBe(500);
    expect((await handler(event())).statusCode).toBe(200); // the service's next attempt
  });
});
