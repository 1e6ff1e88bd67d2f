import { randomUUID } from 'node:crypto';
import { sleep } from '../internal/sleep.js';
import { crmRequestOf, judgeReply, type ReplyVerdict } from './crm-replies.js';
import { type Answer, exchange } from './receiver-answers.js';
import { type NoTurn, now, ReceiverQueues } from './receiver-queues.js';
import type { FakeState, FakeV3Settings } from './state.js';

/**
 * Why a delivery got no answer (its `status` is 0): `dropped` when the receiver already had as many
 * deliveries waiting as the fake holds for one, never sent; `timedOut` when no answer came within
 * the reply time-out (in flight, or still waiting its turn); `connection` when the connection was
 * refused or reset; `closed` when the fake closed first.
 */
export type DeliveryFailure = NoTurn | 'connection';

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
  /** The receiver's answer; 0 when none came (see `failure`); undefined while in flight or waiting. */
  status: number | undefined;
  /** True for the second sending of a repeated delivery (same body, same idempotency key). */
  repeat: boolean;
  /** The start of the receiver's answer body as text (at most 2,048 characters), once it answered. */
  answer?: string;
  /** Why no answer came, when `status` is 0. */
  failure?: DeliveryFailure;
  /**
   * For a CRM request (v2 crm_entities.contact_add and deal_add, v3 createContact and createDeal):
   * whether the receiver answered 200 with the reply the spec asks for, and what is wrong if not.
   */
  reply?: ReplyVerdict;
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
   * How long a receiver has to answer a delivery, counted from when the fake made it (waiting its
   * turn included), before the fake gives up on it, as the service does (ms).
   * @default 30000 (spec: Limits → webhook reply time-out)
   */
  deliveryTimeoutMs?: number;
  /**
   * Called after each delivery that was sent was answered (or failed: `status` 0), with the exact
   * body text and the headers it was sent with; `fake-gateway --record` saves them. A delivery
   * dropped or given up before it was sent is not passed. An error it throws is ignored.
   */
  onDelivery?: (record: DeliveryRecord, sent: { body: string; headers: Record<string, string> }) => void;
}

/** How much of an answer's text a record keeps. */
const KEPT_ANSWER_CHARS = 2048;

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
  readonly #timeoutMs: number;
  readonly #queues = new ReceiverQueues();
  readonly #pending = new Set<Promise<unknown>>();
  /** Aborted by close, for good: what is in flight is cut, and nothing starts after. */
  readonly #abort = new AbortController();
  /** Raised by reset and close: life cycles started before stop at their next step. */
  epoch = 0;

  constructor(state: FakeState, options: DeliveryOptions = {}) {
    this.#state = state;
    this.repeats = options.repeats ?? false;
    this.stepMs = options.stepMs ?? 10;
    this.#crmKey = options.crmKey;
    this.#onDelivery = options.onDelivery;
    this.#timeoutMs = options.deliveryTimeoutMs ?? 30_000;
    // a timer past 2³¹−1 ms fires at once
    if (!Number.isInteger(this.#timeoutMs) || this.#timeoutMs < 1 || this.#timeoutMs > 2 ** 31 - 1) {
      throw new RangeError('createFakeGateway: deliveryTimeoutMs is a whole number of ms, 1 to 2147483647');
    }
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
    return epoch === this.epoch && !this.#abort.signal.aborted;
  }

  /** Forgets the record and stops life cycles in progress. */
  reset(): void {
    this.epoch++;
    this.records.length = 0;
  }

  /**
   * Stops life cycles and abandons deliveries in flight and waiting (close); a delivery asked for
   * later (a repeat, or one a request made while the fake closes) is abandoned unsent.
   */
  stop(): void {
    this.epoch++;
    this.#abort.abort();
    this.#queues.close();
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

  /**
   * POSTs a delivery in its turn (see ReceiverQueues) and records the answer, or why none came.
   * Its text is made only once it has a turn: a line of waiting deliveries holds no copy of a body.
   */
  async #post(record: DeliveryRecord): Promise<number> {
    const deadline = now() + this.#timeoutMs;
    const turn = await this.#queues.turn(record.url, deadline);
    if (typeof turn === 'string') return this.#settle(record, { status: 0, text: '', failure: turn });
    const v3 = record.api === 'v3';
    const headers: Record<string, string> = {
      // spec: API v3 webhook deliveries 1 — the content type is written so, malformed
      'content-type': v3 ? 'application/json; charset-utf-8' : 'application/json',
      ...(v3 && this.#crmKey && { authorization: `Bearer ${this.#crmKey}` }),
    };
    const sent = { headers, body: JSON.stringify(record.body) };
    const left = Math.min(this.#timeoutMs, Math.max(0, Math.ceil(deadline - now())));
    const answer = await exchange(record.url, sent, this.#abort.signal, left).finally(() => turn.end());
    this.#settle(record, answer);
    try {
      this.#onDelivery?.(record, sent);
    } catch {
      // a recorder's failure never stops the fake
    }
    return answer.status;
  }

  /** Records a delivery's answer, or why none came, and the verdict on a CRM reply. */
  #settle(record: DeliveryRecord, answer: Omit<Answer, 'failure'> & { failure?: DeliveryFailure }): number {
    record.status = answer.status;
    if (answer.status !== 0) record.answer = answer.text.slice(0, KEPT_ANSWER_CHARS);
    if (answer.failure) record.failure = answer.failure;
    const request = crmRequestOf(record.body);
    if (request) record.reply = judgeReply(request, answer);
    this.#state.changed();
    return answer.status;
  }
}
