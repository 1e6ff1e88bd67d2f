import { randomUUID } from 'node:crypto';
import { sleep } from '../internal/sleep.js';
import type { FakeState, FakeV3Settings } from './state.js';

/** One webhook delivery the fake gateway made. */
export interface DeliveryRecord {
  /** The surface it was made for. */
  api: 'v2' | 'v3';
  /** The v2 event, or the properties of a v3 body joined by `+` (`messages`, `statuses`, `test`, …). */
  kind: string;
  /** The address it was POSTed to, query included. */
  url: string;
  /** The JSON body sent. */
  body: Record<string, unknown>;
  /** The receiver's answer; 0 when none came (refused, reset, timed out); undefined while in flight. */
  status: number | undefined;
  /** True for the second sending of a repeated delivery (same body, same idempotency key). */
  repeat: boolean;
}

/** How the fake gateway delivers webhooks. */
export interface DeliveryOptions {
  /**
   * Repeat deliveries, as the service may: `true` sends every delivery twice (the second after the
   * first was answered, with the same idempotency key), a number from 0 to 1 that share of them at
   * random, `false` none. @default false
   */
  repeats?: boolean | number;
  /** Pause between the steps of a message's or a channel's life (ms). @default 10 */
  stepMs?: number;
  /** When set, v3 deliveries carry `Authorization: Bearer <crmKey>` (spec: Authentication 5). */
  crmKey?: string;
  /**
   * Called after each delivery was answered (or failed: `status` 0), with the exact body text
   * and the headers it was sent with; `fake-gateway --record` saves them. An error it throws is
   * ignored.
   */
  onDelivery?: (record: DeliveryRecord, sent: { body: string; headers: Record<string, string> }) => void;
}

/** How much of a receiver's answer the fake reads; the rest is dropped (an endless answer ends here). */
const MAX_ANSWER_BYTES = 64 * 1024;

/** Reads up to `maxBytes` of an answer's body, then stops reading it. */
async function readBounded(res: Response, maxBytes: number): Promise<void> {
  if (!res.body) return;
  const reader = res.body.getReader();
  let size = 0;
  while (size <= maxBytes) {
    const { done, value } = await reader.read();
    if (done) return;
    size += value.byteLength;
  }
  await reader.cancel();
}

/** The v3 switch that lets each property of a v3 body through. */
const V3_SWITCH: Record<string, keyof FakeV3Settings['subscriptions']> = {
  messages: 'messagesAndStatuses',
  statuses: 'messagesAndStatuses',
  createContact: 'contactsAndDealsCreation',
  createDeal: 'contactsAndDealsCreation',
  channelsUpdates: 'channelsUpdates',
  templateStatus: 'templateStatus',
};

/** POSTs webhook deliveries to the subscribed addresses and records each one. */
export class Deliverer {
  readonly records: DeliveryRecord[] = [];
  repeats: boolean | number;
  readonly stepMs: number;
  readonly #state: FakeState;
  readonly #crmKey: string | undefined;
  readonly #onDelivery: DeliveryOptions['onDelivery'];
  readonly #pending = new Set<Promise<unknown>>();
  #abort = new AbortController();
  /** Raised by reset and close: life cycles started before stop at their next step. */
  epoch = 0;

  constructor(state: FakeState, options: DeliveryOptions = {}) {
    this.#state = state;
    this.repeats = options.repeats ?? false;
    this.stepMs = options.stepMs ?? 10;
    this.#crmKey = options.crmKey;
    this.#onDelivery = options.onDelivery;
  }

  /** Delivers a v2 event to every address subscribed to it (spec: Events → Delivery rules). */
  v2(event: string, data: unknown[]): Promise<DeliveryRecord[]> {
    const body = {
      event,
      data,
      meta: { idempotency_key: randomUUID(), timestamp: Math.floor(Date.now() / 1000) },
    };
    return this.send(body);
  }

  /** Delivers any body: a v2 one to the subscribers of its event, a v3 one to the v3 address if its switch is on. */
  send(body: Record<string, unknown>): Promise<DeliveryRecord[]> {
    // every change of a message or a channel is delivered through here, subscribers or not
    this.#state.changed();
    if (typeof body.event === 'string') {
      const urls = [...this.#state.subscriptions.values()].filter((s) => s.event === body.event);
      return this.#all(urls.map((s) => ({ api: 'v2', kind: body.event as string, url: s.url, body })));
    }
    const { webhooksUri, subscriptions } = this.#state.v3Settings;
    const keys = Object.keys(body);
    const allowed = keys.length > 0 && keys.every((k) => V3_SWITCH[k] && subscriptions[V3_SWITCH[k]]);
    if (!webhooksUri || !allowed) return Promise.resolve([]);
    return this.#all([{ api: 'v3', kind: keys.join('+'), url: webhooksUri, body }]);
  }

  /** The v3 test POST `{ test: true }` to `uri`; resolves to the answer's status (0: none). */
  async probe(uri: string): Promise<number> {
    const record = this.#record({ api: 'v3', kind: 'test', url: uri, body: { test: true } }, false);
    return this.track(this.#post(record));
  }

  /** Keeps `task` in the set that {@link Deliverer.drain} waits for. */
  track<T>(task: Promise<T>): Promise<T> {
    this.#pending.add(task);
    void task.finally(() => this.#pending.delete(task)).catch(() => {});
    return task;
  }

  /** Resolves when every delivery and life cycle started so far has finished. */
  async drain(): Promise<void> {
    while (this.#pending.size) await Promise.allSettled([...this.#pending]);
  }

  /** Waits one step of a life cycle; false when the fake was reset or closed meanwhile. */
  async step(epoch: number): Promise<boolean> {
    // close() ends the wait at once: a long stepMs must not hold close() for a step.
    await sleep(this.stepMs, this.#abort.signal).catch(() => {});
    return epoch === this.epoch;
  }

  /** Forgets the record and stops life cycles in progress. */
  reset(): void {
    this.epoch++;
    this.records.length = 0;
  }

  /** Stops life cycles and abandons deliveries in flight (close). */
  stop(): void {
    this.epoch++;
    this.#abort.abort();
    this.#abort = new AbortController();
  }

  #all(targets: Omit<DeliveryRecord, 'status' | 'repeat'>[]): Promise<DeliveryRecord[]> {
    return this.track(Promise.all(targets.map((t) => this.#deliverOnce(t))).then((r) => r.flat()));
  }

  async #deliverOnce(target: Omit<DeliveryRecord, 'status' | 'repeat'>): Promise<DeliveryRecord[]> {
    const first = this.#record(target, false);
    await this.#post(first);
    const repeat =
      this.repeats === true || (typeof this.repeats === 'number' && Math.random() < this.repeats);
    if (!repeat) return [first];
    const second = this.#record(target, true);
    await this.#post(second);
    return [first, second];
  }

  #record(target: Omit<DeliveryRecord, 'status' | 'repeat'>, repeat: boolean): DeliveryRecord {
    const record: DeliveryRecord = { ...target, status: undefined, repeat };
    this.records.push(record);
    if (this.records.length > this.#state.maxRecords) this.records.shift();
    this.#state.changed();
    return record;
  }

  async #post(record: DeliveryRecord): Promise<number> {
    const v3 = record.api === 'v3';
    const headers: Record<string, string> = {
      // spec: API v3 webhook deliveries 1 — the content type is written so, malformed
      'content-type': v3 ? 'application/json; charset-utf-8' : 'application/json',
      ...(v3 && this.#crmKey && { authorization: `Bearer ${this.#crmKey}` }),
    };
    const signal = AbortSignal.any([this.#abort.signal, AbortSignal.timeout(30_000)]);
    const body = JSON.stringify(record.body);
    record.status = await fetch(record.url, {
      method: 'POST',
      headers,
      body,
      signal,
    })
      .then(async (res) => {
        await readBounded(res, MAX_ANSWER_BYTES);
        return res.status;
      })
      .catch(() => 0); // spec: the service's retry policy is not shown, so nothing is retried
    this.#state.changed();
    try {
      this.#onDelivery?.(record, { body, headers });
    } catch {
      // a recorder's failure never stops the fake
    }
    return record.status;
  }
}
