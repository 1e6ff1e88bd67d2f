import { getEventListeners } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import { DeliveryTimeoutError, GatewayValidationError, MessageFailedError } from '../../src/core/errors.js';
import type { MessageStatusUpdate } from '../../src/schemas/events-v2.js';
import type { DeliveryFeed } from '../../src/tracking/delivery-store.js';
import { DeliveryTracker } from '../../src/tracking/delivery-tracker.js';
import { StatusStore } from '../../src/tracking/status-store.js';
import { WebhookHandler } from '../../src/webhooks/receive/handler.js';
import { post } from '../support/deliveries.js';

const update = (request_id: string | null, status: string, extra: Partial<MessageStatusUpdate> = {}) =>
  ({ request_id, message_id: null, status, reason: null, ...extra }) as MessageStatusUpdate;

describe('DeliveryTracker.waitFor', () => {
  it('40,000 waits on one shared signal: one abort listener on it, every wait rejected at the abort', async () => {
    const tracker = new DeliveryTracker();
    const controller = new AbortController();
    const waits = Array.from({ length: 40_000 }, (_, i) =>
      tracker.waitFor(`r-${i}`, { signal: controller.signal }).catch((e: unknown) => e),
    );
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1); // was one per wait: O(n²)
    controller.abort(new Error('shutdown'));
    const reasons = await Promise.all(waits);
    expect(reasons.every((r) => ((r as Error).cause as Error).message === 'shutdown')).toBe(true);
  });

  it('resolves at `until` (default delivered), not before', async () => {
    const tracker = new DeliveryTracker();
    let settled = false;
    const waiting = tracker.waitFor('r1').then((u) => {
      settled = true;
      return u;
    });
    tracker.observe(update('r1', 'accepted'));
    tracker.observe(update('r1', 'sent'));
    await Promise.resolve();
    expect(settled).toBe(false);
    tracker.observe(update('r1', 'delivered'));
    await expect(waiting).resolves.toMatchObject({ status: 'delivered' });
  });

  it('resolves at any later status: read satisfies delivered', async () => {
    const tracker = new DeliveryTracker();
    const waiting = tracker.waitFor('r1', { until: 'sent' });
    tracker.observe(update('r1', 'read'));
    await expect(waiting).resolves.toMatchObject({ status: 'read' });
  });

  it('keeps a status that arrived before waitFor was called', async () => {
    const tracker = new DeliveryTracker();
    tracker.observe(update('early', 'delivered'));
    await expect(tracker.waitFor('early')).resolves.toMatchObject({ status: 'delivered' });
  });

  it('takes statuses out of order (read before delivered) without going back', async () => {
    const tracker = new DeliveryTracker();
    tracker.observe(update('r1', 'read'));
    tracker.observe(update('r1', 'delivered'));
    tracker.observe(update('r1', 'sent'));
    expect(tracker.statusOf('r1')).toBe('read');
    await expect(tracker.waitFor('r1', { until: 'read' })).resolves.toMatchObject({ status: 'read' });
  });

  it('is not confused by repeats', async () => {
    const tracker = new DeliveryTracker();
    const statuses: string[] = [];
    tracker.on('status', (u) => statuses.push(u.status));
    for (const s of ['accepted', 'accepted', 'sent', 'sent', 'delivered', 'delivered'])
      tracker.observe(update('r1', s));
    await expect(tracker.waitFor('r1')).resolves.toMatchObject({ status: 'delivered' });
    expect(statuses).toHaveLength(6);
  });

  it('rejects with MessageFailedError carrying the spec’s reason', async () => {
    const tracker = new DeliveryTracker();
    const waiting = tracker.waitFor('r1');
    tracker.observe(update('r1', 'failed', { reason: 'bad_contact', message_id: 'm1' }));
    const error = await waiting.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MessageFailedError);
    expect(tracker.statusOf('r1')).toBe('failed');
    expect(error).toMatchObject({
      reason: 'bad_contact',
      requestId: 'r1',
      messageId: 'm1',
      retryable: false,
    });
  });

  it('rejects with DeliveryTimeoutError naming the last status', async () => {
    const tracker = new DeliveryTracker();
    tracker.observe(update('r1', 'sent'));
    const error = await tracker.waitFor('r1', { timeoutMs: 20 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DeliveryTimeoutError);
    expect(error).toMatchObject({ requestId: 'r1', lastStatus: 'sent' });
  });

  it('rejects with GatewayAbortError on abort, the signal’s reason as its cause', async () => {
    const tracker = new DeliveryTracker();
    const controller = new AbortController();
    const waiting = tracker.waitFor('r1', { signal: controller.signal });
    const reason = new Error('stop');
    controller.abort(reason);
    await expect(waiting).rejects.toMatchObject({ name: 'GatewayAbortError', cause: reason });
  });

  it('answers for the message id once known, also for updates that carry only it', async () => {
    const tracker = new DeliveryTracker();
    tracker.observe(update('r1', 'sent', { message_id: 'm1' }));
    const byMessage = tracker.waitFor('m1', { until: 'read' });
    tracker.observe(update(null, 'read', { message_id: 'm1' }));
    await expect(byMessage).resolves.toMatchObject({ status: 'read' });
    expect(tracker.statusOf('r1')).toBe('read');
  });

  it('ignores updates that name neither a request nor a known message', () => {
    const tracker = new DeliveryTracker();
    tracker.observe(update(null, 'read', { message_id: 'stranger' }));
    expect(tracker.statusOf('stranger')).toBeUndefined();
  });
});

describe('DeliveryTracker with a shared store whose feed was interrupted', () => {
  /** A shared store kept in memory: its feed can be interrupted, and its reads fail while `down`. */
  function sharedStore() {
    const statuses = new StatusStore(100, 60_000);
    const feeds: DeliveryFeed[] = [];
    const store = {
      down: false,
      record: (u: MessageStatusUpdate) => statuses.record(u),
      get: async (id: string) => {
        if (store.down) throw new Error('PostgreSQL failed: terminating connection');
        return statuses.get(id);
      },
      subscribe: async (feed: DeliveryFeed) => void feeds.push(feed),
      resync: () => {
        for (const feed of feeds) feed.resync();
      },
    };
    return store;
  }

  it('a read that fails after the interruption does not end the wait: it reads again a second later', async () => {
    vi.useFakeTimers();
    try {
      const store = sharedStore();
      const tracker = new DeliveryTracker({ store });
      const waiting = tracker.waitFor('r1', { until: 'sent', timeoutMs: 20_000 });
      await vi.advanceTimersByTimeAsync(0); // subscribed, and read once
      store.down = true;
      store.record(update('r1', 'sent')); // recorded while the feed was interrupted: never announced
      store.resync();
      await vi.advanceTimersByTimeAsync(0);
      store.down = false;
      await vi.advanceTimersByTimeAsync(1_000);
      await expect(waiting).resolves.toMatchObject({ status: 'sent' });
    } finally {
      vi.useRealTimers();
    }
  });

  it('a store that stays down ends the wait at its timeoutMs', async () => {
    vi.useFakeTimers();
    try {
      const store = sharedStore();
      const tracker = new DeliveryTracker({ store });
      const waiting = tracker.waitFor('r1', { until: 'sent', timeoutMs: 5_000 });
      const settled = expect(waiting).rejects.toBeInstanceOf(DeliveryTimeoutError);
      await vi.advanceTimersByTimeAsync(0);
      store.down = true;
      store.resync();
      await vi.advanceTimersByTimeAsync(5_000);
      await settled;
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('DeliveryTracker: figures a timer or a bound cannot hold are refused, naming the field', () => {
  it.each([Number.NaN, Number.POSITIVE_INFINITY, -1, 0, 2 ** 31])(
    'waitFor timeoutMs %s rejects with a GatewayValidationError, never an instant time-out',
    async (timeoutMs) => {
      const tracker = new DeliveryTracker();
      const error = await tracker.waitFor('r1', { timeoutMs }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(GatewayValidationError);
      expect((error as Error).message).toContain('timeoutMs');
    },
  );

  it.each([Number.NaN, Number.POSITIVE_INFINITY, -1, 0, 1.5])(
    'maxEntries or retainMs %s is refused at construction (NaN left the store unbounded)',
    (figure) => {
      expect(() => new DeliveryTracker({ maxEntries: figure })).toThrow(GatewayValidationError);
      expect(() => new DeliveryTracker({ retainMs: figure })).toThrow(/retainMs/);
    },
  );
});

describe('DeliveryTracker.attach', () => {
  it('follows a WebhookHandler’s message.status_update deliveries', async () => {
    const hooks = new WebhookHandler({ allowUnauthenticated: true });
    const tracker = new DeliveryTracker().attach(hooks);
    const waiting = tracker.waitFor('req-9');
    const body = {
      event: 'message.status_update',
      data: [update('req-9', 'delivered')],
      meta: { idempotency_key: 'k9', timestamp: 1763800000 },
    };
    await hooks.handle(post(JSON.stringify(body)));
    await hooks.drain();
    await expect(waiting).resolves.toMatchObject({ request_id: 'req-9' });
    tracker.detach();
    expect(hooks.listenerCount('message.status_update')).toBe(0);
  });
});

describe('Memory is bounded', () => {
  it('keeps at most maxEntries messages, the oldest out first', () => {
    const store = new StatusStore(3, 60_000);
    for (const id of ['a', 'b', 'c', 'd']) store.record(update(id, 'sent', { message_id: `m-${id}` }));
    expect(store.size).toBe(3);
    expect(store.get('a')).toBeUndefined();
    expect(store.get('m-a')).toBeUndefined();
    expect(store.get('m-d')?.requestId).toBe('d');
  });

  it('forgets a message retainMs after its first status', () => {
    let now = 0;
    const store = new StatusStore(10, 1000, () => now);
    store.record(update('a', 'sent'));
    now = 999;
    expect(store.get('a')).toBeDefined();
    now = 1000;
    expect(store.get('a')).toBeUndefined();
  });
});

describe('DeliveryTracker: listeners cannot starve waiters', () => {
  it('settles a waiter even when a status listener throws, and every listener still runs', async () => {
    const tracker = new DeliveryTracker();
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    const seen: string[] = [];
    tracker.on('status', () => {
      throw new Error('listener bug');
    });
    tracker.on('status', (u) => void seen.push(u.status));
    const waiting = tracker.waitFor('r1');
    expect(() => tracker.observe(update('r1', 'delivered'))).not.toThrow();
    await expect(waiting).resolves.toMatchObject({ status: 'delivered' });
    expect(seen).toEqual(['delivered']);
    expect(log).toHaveBeenCalledWith(expect.stringContaining('listener bug'));
    log.mockRestore();
  });
});

describe("DeliveryTracker: a 'status' listener's failure is logged, never a crash", () => {
  it('a listener that throws a value with no string form: logged, no unhandled rejection', async () => {
    const tracker = new DeliveryTracker();
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    const unhandled = vi.fn();
    process.on('unhandledRejection', unhandled);
    try {
      tracker.on('status', () => {
        throw Object.create(null); // String() of it throws
      });
      tracker.on('status', async () => {
        throw Object.create(null);
      });
      tracker.observe(update('r1', 'delivered'));
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(unhandled).not.toHaveBeenCalled();
      expect(log).toHaveBeenCalledTimes(2);
    } finally {
      process.off('unhandledRejection', unhandled);
      log.mockRestore();
    }
  });
});
