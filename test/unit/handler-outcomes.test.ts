import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebhookParseError } from '../../src/core/errors.js';
import { parseWebhook } from '../../src/webhooks/decode/parse.js';
import { STORE_TIMEOUT_MS } from '../../src/webhooks/receive/claims.js';
import type { ClaimResult, DedupeStore } from '../../src/webhooks/receive/dedupe-store.js';
import { MemoryDedupeStore } from '../../src/webhooks/receive/memory-dedupe-store.js';
import { OUTCOMES } from '../../src/webhooks/receive/outcomes.js';
import { messageAdd, post } from '../support/deliveries.js';
import { fixture } from '../support/fixtures.js';
import { collecting, HOOK_URL } from '../support/handler.js';

const contactAdd = JSON.stringify(fixture('v2', 'crm_entities.contact_add'));
const to = (body: unknown, headers: Record<string, string> = {}) => post(body, HOOK_URL, headers);

/** A memory store that records what the handler did to each key. */
function recordingStore(inner: DedupeStore = new MemoryDedupeStore()) {
  const calls: string[] = [];
  const store: DedupeStore = {
    claim: async (key, leaseMs) => {
      const result = await inner.claim(key, leaseMs);
      calls.push(`claim:${result.state}`);
      return result;
    },
    keepReply: async (key, reply, ttlMs, token) => {
      calls.push('keepReply');
      await inner.keepReply(key, reply, ttlMs, token);
    },
    complete: async (key, ttlMs, reply, token) => {
      calls.push(reply === undefined ? 'complete' : 'complete+reply');
      await inner.complete(key, ttlMs, reply, token);
    },
    release: async (key, token) => {
      calls.push('release');
      await inner.release(key, token);
    },
  };
  return { store, calls };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('The outcome table: each row answered as it says, the key treated as it says', () => {
  it('not a POST: 405 with Allow, no key touched', async () => {
    const { store, calls } = recordingStore();
    const { hooks } = collecting({ dedupe: store });
    const answer = await hooks.handle({ method: 'GET', url: HOOK_URL, headers: {}, body: undefined });
    expect([answer.status, answer.headers.allow]).toEqual([405, 'POST']);
    expect(calls).toEqual([]);
  });

  it('over maxBodyBytes: 413 from the declared length, without reading a byte', async () => {
    const { hooks } = collecting({ maxBodyBytes: 100 });
    let pulled = 0;
    const body = new ReadableStream({ pull: () => void pulled++ }, { highWaterMark: 0 });
    const answer = await hooks.handle(to(body, { 'content-length': '101' }));
    expect([answer.status, answer.headers.connection]).toEqual([413, 'close']);
    expect(pulled).toBe(0);
  });

  it('over maxBodyBytes with no declared length (chunked): 413, and reading stops at the limit', async () => {
    const { hooks } = collecting({ maxBodyBytes: 1000 });
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        sent += 300;
        controller.enqueue(new Uint8Array(300));
      },
    });
    expect((await hooks.handle(to(body))).status).toBe(413);
    expect(sent).toBeLessThanOrEqual(1500); // the limit plus what was queued, never the whole stream
    expect((await hooks.handle(to('я'.repeat(501)))).status).toBe(413); // 1002 bytes of UTF-8
  });

  it('a body not complete within bodyTimeoutMs: 408, and the stream is cancelled', async () => {
    vi.useFakeTimers();
    const { hooks } = collecting({ bodyTimeoutMs: 10_000 });
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => controller.enqueue(new TextEncoder().encode('{"event":')),
      cancel: () => {
        cancelled = true;
      },
    });
    const pending = hooks.handle(to(body));
    await vi.advanceTimersByTimeAsync(9_999);
    let status: number | undefined;
    void pending.then((a) => (status = a.status));
    await vi.advanceTimersByTimeAsync(0);
    expect(status).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect((await pending).status).toBe(408);
    expect(cancelled).toBe(true);
  });

  it('a node stream that trickles past bodyTimeoutMs: 408', async () => {
    vi.useFakeTimers();
    const { hooks } = collecting({ bodyTimeoutMs: 1_000 });
    const stream = new PassThrough();
    const pending = hooks.handle(to(stream));
    for (let i = 0; i < 5; i++) {
      stream.write('{');
      await vi.advanceTimersByTimeAsync(250);
    }
    expect((await pending).status).toBe(408);
    stream.destroy();
  });

  it('client gone mid-body (a web stream that errors, a node stream destroyed): answered, nothing thrown', async () => {
    const { hooks, errors } = collecting();
    const web = new ReadableStream({
      start: (controller) => {
        controller.enqueue(new TextEncoder().encode('{"ev'));
        controller.error(new Error('aborted'));
      },
    });
    expect((await hooks.handle(to(web))).body).toContain('client_gone');
    const node = new PassThrough();
    const pending = hooks.handle(to(node));
    node.write('{"event":"message.add"');
    node.destroy(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }));
    expect((await pending).body).toContain('client_gone');
    node.emit('error', new Error('a late reset')); // after the read: must not crash
    expect(errors).toEqual([]);
  });

  it('no body at all (a framework consumed it): 500 and an error that says so and names the adapters', async () => {
    const { hooks, errors } = collecting();
    const consumed = new PassThrough();
    consumed.end('{}');
    consumed.resume();
    await new Promise((r) => consumed.once('end', r));
    for (const body of [undefined, consumed]) {
      const answer = await hooks.handle(to(body));
      expect(answer.status).toBe(500);
    }
    expect(errors).toHaveLength(2);
    expect(errors[0]?.[0].message).toMatch(/a body parser of the framework read it first/);
    expect(errors[0]?.[0].message).toMatch(/createFastifyPlugin/);
    expect(errors[0]?.[0].message).not.toMatch(/secret|crmKey/);
  });

  it('not JSON or not a delivery: 400, reported on "error" with the raw body, no key touched', async () => {
    const { store, calls } = recordingStore();
    const { hooks, errors } = collecting({ dedupe: store });
    for (const body of [
      '{"event": "message.add", ',
      new Uint8Array([0xff, 0xfe, 0x7b]),
      '[]',
      '{"event":"message.add"}',
    ]) {
      expect((await hooks.handle(to(body))).status).toBe(400);
    }
    expect(errors.map(([e, c]) => [e instanceof WebhookParseError, c.stage])).toEqual(
      Array(4).fill([true, 'decode']),
    );
    expect(errors[0]?.[1].rawBody).toBe('{"event": "message.add", ');
    expect(calls).toEqual([]);
  });

  it('a key already processed: 200, not dispatched again; a CRM request gets its first reply', async () => {
    const { store, calls } = recordingStore();
    const { hooks } = collecting({ dedupe: store, dispatch: 'await' });
    const listener = vi.fn();
    hooks.on('crm_entities.contact_add', listener);
    const responder = vi.fn(() => ({ id: 'crm-1', name: 'Alice' }));
    hooks.respond('crm_entities.contact_add', responder);
    const first = await hooks.handle(to(contactAdd));
    const repeat = await hooks.handle(to(contactAdd));
    expect([first.status, repeat.status]).toEqual([200, 200]);
    expect(JSON.parse(repeat.body)).toEqual({ id: 'crm-1', name: 'Alice' });
    expect(responder).toHaveBeenCalledTimes(1);
    expect(listener).toHaveBeenCalledTimes(1);
    expect(calls).toEqual(['claim:claimed', 'keepReply', 'complete+reply', 'claim:done']);
  });

  it('a key still being processed elsewhere: 409 with Retry-After, the key kept', async () => {
    const { store, calls } = recordingStore();
    const { hooks } = collecting({ dedupe: store });
    let reply!: () => void;
    hooks.respond(
      'crm_entities.contact_add',
      () => new Promise((r) => (reply = () => r({ id: 'c', name: 'A' }))),
    );
    const first = hooks.handle(to(contactAdd));
    await vi.waitFor(() => expect(reply).toBeDefined());
    const second = await hooks.handle(to(contactAdd));
    expect([second.status, second.headers['retry-after']]).toEqual([409, '5']);
    reply();
    expect((await first).status).toBe(200);
    expect(calls).toEqual(['claim:claimed', 'claim:processing', 'keepReply', 'complete+reply']);
  });

  it('a CRM reply late: 500, the responder’s signal aborted, the key held while the responder runs', async () => {
    const { store, calls } = recordingStore();
    const { hooks, errors } = collecting({ dedupe: store, replyTimeoutMs: 20 });
    let signal: AbortSignal | undefined;
    hooks.respond('crm_entities.contact_add', (_event, context) => {
      signal = context.signal;
      return new Promise(() => {}); // never ends: the lease frees the key, not the handler
    });
    expect((await hooks.handle(to(contactAdd))).status).toBe(500);
    expect(signal?.aborted).toBe(true);
    expect(errors[0]?.[1].stage).toBe('respond');
    expect(errors[0]?.[0].message).toMatch(/its key is held until it ends/);
    const retry = await hooks.handle(to(contactAdd));
    expect([retry.status, retry.headers['retry-after']]).toEqual([409, '5']);
    expect(calls).toEqual(['claim:claimed', 'claim:processing']);
  });

  it('maxPendingDispatches reached: 503 with Retry-After before any responder runs, the key released', async () => {
    const { store, calls } = recordingStore();
    const { hooks } = collecting({ dedupe: store, maxPendingDispatches: 1 });
    let release!: () => void;
    hooks.on('message.add', () => new Promise<void>((r) => (release = r)));
    const responder = vi.fn(() => ({ id: 'x', name: 'y' }));
    hooks.respond('crm_entities.contact_add', responder);
    expect((await hooks.handle(to(messageAdd('busy-1')))).status).toBe(200);
    const busy = await hooks.handle(to(contactAdd));
    expect([busy.status, busy.headers['retry-after']]).toEqual([503, '5']);
    expect(responder).not.toHaveBeenCalled();
    release();
    await hooks.drain();
    expect((await hooks.handle(to(contactAdd))).status).toBe(200);
    expect(calls).toEqual([
      'claim:claimed',
      'complete',
      'claim:claimed',
      'release',
      'claim:claimed',
      'keepReply',
      'complete+reply',
    ]);
  });

  it("'await' and a listener failed: 500, the key released; the service's next attempt is processed", async () => {
    const { store, calls } = recordingStore();
    const { hooks, errors } = collecting({ dedupe: store, dispatch: 'await' });
    let fail = true;
    const done: string[] = [];
    hooks.on('message.add', () => {
      if (fail) throw new Error('database down');
      done.push('stored');
    });
    const body = messageAdd('await-1');
    expect((await hooks.handle(to(body))).status).toBe(500);
    expect(errors[0]?.[1].stage).toBe('listener');
    fail = false;
    expect((await hooks.handle(to(body))).status).toBe(200);
    expect(done).toEqual(['stored']);
    expect(calls).toEqual(['claim:claimed', 'release', 'claim:claimed', 'complete']);
  });

  it('awaitListeners: true is dispatch: "await"', async () => {
    const { hooks } = collecting({ awaitListeners: true });
    hooks.on('message.add', () => {
      throw new Error('x');
    });
    expect((await hooks.handle(to(messageAdd()))).status).toBe(500);
  });

  it('a queue function: 200 only after it resolved; rejected: 503 with Retry-After, the key released', async () => {
    const { store, calls } = recordingStore();
    const queued: unknown[] = [];
    let reject = false;
    const { hooks, errors } = collecting({
      dedupe: store,
      dispatch: async (webhook) => {
        await new Promise((r) => setTimeout(r, 5));
        if (reject) throw new Error('queue full');
        queued.push(webhook);
      },
    });
    const listener = vi.fn();
    hooks.on('message.add', listener);
    const body = messageAdd('queued-1');
    expect((await hooks.handle(to(body))).status).toBe(200);
    expect(queued).toHaveLength(1);
    expect(listener).not.toHaveBeenCalled(); // the worker runs them, through receive()
    reject = true;
    const failed = await hooks.handle(to(messageAdd('queued-2')));
    expect([failed.status, failed.headers['retry-after']]).toEqual([503, '5']);
    expect(errors[0]?.[1].stage).toBe('dispatch');
    expect(calls).toEqual(['claim:claimed', 'complete', 'claim:claimed', 'release']);
  });

  it('anything unexpected (a store that is down): 500 and "error", never a throw', async () => {
    const down: DedupeStore = {
      claim: async (): Promise<ClaimResult> => {
        throw new Error('ECONNREFUSED');
      },
      keepReply: () => {},
      complete: () => {},
      release: () => {},
    };
    const { hooks, errors } = collecting({ dedupe: down });
    const answer = await hooks.handle(to(messageAdd()));
    expect(answer.status).toBe(500);
    expect(errors[0]?.[1].stage).toBe('dedupe');
    expect(errors[0]?.[0].message).toMatch(/dedupe store failed \(claim\): ECONNREFUSED/);

    const { store, calls } = recordingStore();
    const failingComplete = { ...store, complete: async () => Promise.reject(new Error('write failed')) };
    const second = collecting({ dedupe: failingComplete });
    // The listeners started already: the answer stays 200 (a 500 would run them twice), and the
    // claim ends with its lease.
    expect((await second.hooks.handle(to(messageAdd()))).status).toBe(200);
    expect(second.errors.map(([e, c]) => [c.stage, e.message])).toEqual([
      ['dedupe', 'The dedupe store failed (complete): write failed'],
    ]);
    expect(calls).toEqual(['claim:claimed']);
  });

  it('an unexpected failure is reported with the step it happened in', async () => {
    const { hooks, errors } = collecting();
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('touched');
        },
      },
    );
    expect((await hooks.handle(to(hostile))).status).toBe(500);
    expect(errors.map(([e, c]) => [c.stage, e.message])).toEqual([['read', 'touched']]);
  });

  it('every row of the table is one of these answers', () => {
    const rows = Object.fromEntries(
      Object.entries(OUTCOMES).map(([name, row]) => [name, [row.status, row.key]]),
    );
    expect(rows).toEqual({
      methodNotAllowed: [405, 'none'],
      unauthorized: [401, 'none'],
      probe: [200, 'none'],
      tooLarge: [413, 'none'],
      bodyTimeout: [408, 'none'],
      clientGone: [400, 'none'],
      bodyMissing: [500, 'none'],
      invalid: [400, 'none'],
      duplicate: [200, 'kept'],
      processing: [409, 'kept'],
      accepted: [200, 'done'],
      replyFailed: [500, 'released'],
      busy: [503, 'released'],
      listenerFailed: [500, 'released'],
      queueFailed: [503, 'released'],
      listenerFailedReplyKept: [500, 'released'],
      queueFailedReplyKept: [503, 'released'],
      answeredReplyNotKept: [200, 'done'],
      unexpected: [500, 'released'],
    });
  });
});

describe('receive(): what a queue worker calls', () => {
  it('runs the listeners of a decoded webhook, and rejects (retryable) when one failed', async () => {
    const { hooks, errors } = collecting();
    const seen: string[] = [];
    hooks.on('message.add', (w) => void seen.push(w.data[0]?.text ?? ''));
    const webhook = JSON.parse(JSON.stringify(parseWebhook(messageAdd('r-1', 'from the queue'))));
    await hooks.receive(webhook);
    expect(seen).toEqual(['from the queue']);
    hooks.on('webhook', () => Promise.reject(new Error('flaky')));
    await expect(hooks.receive(webhook)).rejects.toMatchObject({ retryable: true, message: /flaky/ });
    expect(errors.map(([, c]) => c.stage)).toEqual(['listener']);
  });
});

describe('Per item: the good items are dispatched, each rejected one reported with its raw value', () => {
  it('answers 200, hands the listener the good items, and reports the bad one on "error"', async () => {
    const { hooks, errors } = collecting({ dispatch: 'await' });
    const body = JSON.parse(messageAdd('mixed-1', 'good')) as { data: unknown[] };
    const bad = { message_id: 'm-bad', direction: 'inbound' }; // no channel, no recipient
    body.data = [body.data[0], bad, body.data[0]];
    const seen: number[] = [];
    hooks.on('message.add', (w) => void seen.push(w.data.length));
    expect((await hooks.handle(to(JSON.stringify(body)))).status).toBe(200);
    expect(seen).toEqual([2]);
    expect(errors).toHaveLength(1);
    const [error, context] = errors[0] as unknown as [WebhookParseError, { stage: string; rawBody: unknown }];
    expect(error).toBeInstanceOf(WebhookParseError);
    expect(error.rawBody).toEqual(bad);
    expect(error.issues[0]?.path.slice(0, 2)).toEqual(['data', 1]);
    expect(context.stage).toBe('decode');
    expect(context.rawBody).toBe(JSON.stringify(body));
  });

  it('reports the first 100 rejected items one by one and counts the rest in one more report', async () => {
    const { hooks, errors } = collecting();
    const body = JSON.parse(messageAdd('mixed-2')) as { data: unknown[] };
    body.data = [body.data[0], ...Array.from({ length: 150 }, () => ({}))];
    expect((await hooks.handle(to(JSON.stringify(body)))).status).toBe(200);
    expect(errors).toHaveLength(101);
    expect(errors[100]?.[0].message).toMatch(/50 more rejected items/);
  });

  it('answers 400 when no item decodes, keeping at most 100 issues and counting the rest', async () => {
    const { hooks, errors } = collecting();
    const body = JSON.parse(messageAdd('mixed-3')) as { data: unknown[] };
    body.data = Array.from({ length: 10_000 }, () => ({}));
    expect((await hooks.handle(to(JSON.stringify(body)))).status).toBe(400);
    const error = errors[0]?.[0] as WebhookParseError;
    expect(error.issues.length).toBeLessThanOrEqual(100);
    expect(error.omitted).toBeGreaterThan(0);
  });
});

describe('Nothing can hang a delivery or run its work twice', () => {
  it('a dedupe store that never answers: 500 after its time limit, reported', async () => {
    vi.useFakeTimers();
    const hanging: DedupeStore = {
      claim: () => new Promise(() => {}),
      keepReply: () => {},
      complete: () => {},
      release: () => {},
    };
    const { hooks, errors } = collecting({ dedupe: hanging });
    const pending = hooks.handle(to(messageAdd()));
    await vi.advanceTimersByTimeAsync(STORE_TIMEOUT_MS);
    expect((await pending).status).toBe(500);
    expect(errors[0]?.[0]).toMatchObject({ retryable: true, message: /did not answer claim within/ });
  });

  it("'await' listeners still running at replyTimeoutMs: 500, and the key waits for their end", async () => {
    vi.useFakeTimers();
    const { store, calls } = recordingStore();
    const { hooks, errors } = collecting({ dedupe: store, dispatch: 'await', replyTimeoutMs: 1000 });
    let finish!: () => void;
    hooks.on('message.add', () => new Promise<void>((r) => (finish = r)));
    const body = messageAdd('slow-1');
    const first = hooks.handle(to(body));
    await vi.advanceTimersByTimeAsync(1000);
    expect((await first).status).toBe(500);
    expect(errors[0]?.[0].message).toMatch(/listeners did not finish within replyTimeoutMs \(1000 ms/);
    expect((await hooks.handle(to(body))).status).toBe(409); // a retry does not run beside them
    finish();
    await vi.advanceTimersByTimeAsync(0);
    expect((await hooks.handle(to(body))).status).toBe(200); // done: the next retry is a duplicate
    expect(calls).toEqual(['claim:claimed', 'claim:processing', 'complete', 'claim:done']);
  });

  it('a burst of CRM requests cannot pass maxPendingDispatches while their responders run', async () => {
    const { hooks } = collecting({ maxPendingDispatches: 5, dedupe: false });
    let created = 0;
    hooks.respond('crm_entities.contact_add', async () => {
      await new Promise((r) => setTimeout(r, 5));
      created++;
      return { id: `c-${created}`, name: 'A' };
    });
    hooks.on('crm_entities.contact_add', () => new Promise((r) => setTimeout(r, 20)));
    const answers = await Promise.all(Array.from({ length: 50 }, () => hooks.handle(to(contactAdd))));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses.filter((s) => s === 503)).toHaveLength(45);
    expect(created).toBe(5); // no entity for an answer the service never gets
    await hooks.drain();
  });

  it('a waitUntil that throws: still 200, the listeners run once, the failure reported', async () => {
    const { hooks, errors } = collecting();
    const runs = vi.fn();
    hooks.on('message.add', async () => runs()); // work that runs on after the answer
    const answer = await hooks.handle(to(messageAdd()), {
      waitUntil: () => {
        throw new Error('no context');
      },
    });
    await hooks.drain();
    expect(answer.status).toBe(200);
    expect(runs).toHaveBeenCalledTimes(1);
    expect(errors[0]?.[0].message).toMatch(/waitUntil failed: no context/);
  });
});

describe('waitUntil gets the work that runs on after the answer', () => {
  it('an async listener: waitUntil gets a promise that settles when it has finished', async () => {
    const { hooks } = collecting();
    let finished = false;
    hooks.on('message.add', async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      finished = true;
    });
    const kept: Promise<unknown>[] = [];
    const answer = await hooks.handle(to(messageAdd()), { waitUntil: (p) => kept.push(p) });
    expect(answer.status).toBe(200);
    expect(kept).toHaveLength(1);
    expect(finished).toBe(false);
    await kept[0];
    expect(finished).toBe(true);
  });

  it('synchronous listeners have finished by the answer; waitUntil gets the dispatch once', async () => {
    const { hooks } = collecting();
    const runs = vi.fn();
    hooks.on('message.add', runs);
    const waitUntil = vi.fn();
    const answer = await hooks.handle(to(messageAdd()), { waitUntil });
    expect(answer.status).toBe(200);
    expect(runs).toHaveBeenCalledTimes(1);
    expect(waitUntil).toHaveBeenCalledTimes(1);
  });

  it("synchronous listeners of the kind and of 'webhook': both run by the answer, each failure reported once, in order", async () => {
    const { hooks, errors } = collecting();
    const calls: string[] = [];
    hooks.on('message.add', () => {
      calls.push('kind');
      throw new Error('kind fails');
    });
    hooks.on('webhook', () => {
      calls.push('webhook');
      throw new Error('webhook fails');
    });
    const waitUntil = vi.fn();
    const answer = await hooks.handle(to(messageAdd()), { waitUntil });
    expect(answer.status).toBe(200);
    expect(calls).toEqual(['kind', 'webhook']);
    expect(waitUntil).toHaveBeenCalledTimes(1);
    await hooks.drain();
    expect(errors.map(([error]) => error.message)).toEqual([
      'A listener of message.add failed: kind fails',
      'A listener of message.add failed: webhook fails',
    ]);
  });
});

describe('Listeners as an EventEmitter has them', () => {
  it('an async "error" listener that rejects leaves no unhandled rejection', async () => {
    const { WebhookHandler } = await import('../../src/webhooks/receive/handler.js');
    const hooks = new WebhookHandler({ secret: 's' });
    hooks.on('error', async () => {
      throw new Error('log sink down');
    });
    const unhandled = vi.fn();
    process.on('unhandledRejection', unhandled);
    try {
      expect((await hooks.handle(post(messageAdd(), '/hooks?secret=wrong'))).status).toBe(401);
      await new Promise((r) => setTimeout(r, 10));
      expect(unhandled).not.toHaveBeenCalled();
    } finally {
      process.off('unhandledRejection', unhandled);
    }
  });

  it('honours once(), a listener context, and off()', async () => {
    const { hooks } = collecting({ dispatch: 'await', dedupe: false });
    const seen: string[] = [];
    const context = { name: 'ctx' };
    const always = function (this: typeof context) {
      seen.push(`always:${this?.name}`);
    };
    hooks.once('message.add', () => void seen.push('once'));
    hooks.on('message.add', always, context);
    await hooks.handle(to(messageAdd()));
    await hooks.handle(to(messageAdd()));
    hooks.off('message.add', always, context);
    await hooks.handle(to(messageAdd()));
    expect(seen).toEqual(['once', 'always:ctx', 'always:ctx']);
    expect(hooks.listeners('message.add')).toEqual([]);
  });
});

describe('review-c: a delivery that goes on in the same turn keeps the answers of the async pipeline', () => {
  it("'background', a synchronous listener that throws a value with no string form: still 200, run once, reported once, the key done", async () => {
    const { hooks, errors } = collecting();
    const runs = vi.fn(() => {
      throw Object.create(null); // String() of it throws
    });
    hooks.on('message.add', runs);
    const first = await hooks.handle(to(messageAdd('rc-null')));
    expect(first.status).toBe(200);
    expect(runs).toHaveBeenCalledTimes(1);
    expect(errors.map(([, context]) => context.stage)).toEqual(['listener']);
    const again = await hooks.handle(to(messageAdd('rc-null'))); // the service's retry: a duplicate
    expect(again.status).toBe(200);
    expect(runs).toHaveBeenCalledTimes(1);
  });

  it('a store in memory whose complete and release give back a value (a Map, a count): no failure is reported', async () => {
    // A store written in JavaScript (or typed loosely) may return what its map gives back.
    const inner = new MemoryDedupeStore();
    const store: DedupeStore = {
      claim: (key, leaseMs) => inner.claim(key, leaseMs),
      keepReply: (key, reply, ttlMs) => inner.keepReply(key, reply, ttlMs),
      complete: ((key: string, ttlMs: number, reply?: unknown, token?: string) => {
        inner.complete(key, ttlMs, reply, token);
        return new Map(); // as `return map.set(...)` does
      }) as unknown as DedupeStore['complete'],
      release: ((key: string, token?: string) => {
        inner.release(key, token);
        return 1; // as a count of keys deleted
      }) as unknown as DedupeStore['release'],
    };
    const { hooks, errors } = collecting({ dedupe: store, dispatch: 'await' });
    hooks.on('message.add', () => {});
    expect((await hooks.handle(to(messageAdd()))).status).toBe(200);
    hooks.removeAllListeners('message.add');
    hooks.on('message.add', () => {
      throw new Error('CRM down');
    });
    expect((await hooks.handle(to(messageAdd()))).status).toBe(500); // listenerFailed: released
    expect(errors.map(([error, context]) => `${context.stage}: ${error.message}`)).toEqual([
      'listener: A listener of message.add failed: CRM down',
    ]);
  });
});

describe('A store failure with no string form is reported as the store failing', () => {
  it('a claim that throws Object.create(null): 500, reported as "The dedupe store failed (claim)"', async () => {
    const store = {
      claim: () => {
        throw Object.create(null);
      },
      complete() {},
      release() {},
      keepReply() {},
    };
    const { hooks, errors } = collecting({ dedupe: store });
    const answer = await hooks.handle(to(messageAdd()));
    expect(answer.status).toBe(OUTCOMES.unexpected.status);
    expect(errors[0]?.[0].message).toBe('The dedupe store failed (claim): [object Object]');
    expect(errors[0]?.[0].retryable).toBe(true);
  });
});
