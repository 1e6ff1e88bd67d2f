import { randomUUID } from 'node:crypto';
import { qrLikePng } from './png.js';
import type { V2Effects } from './routes-v2.js';
import type { StandInState } from './state.js';

/** How the stand-in delivers webhooks. */
export interface DeliveryOptions {
  /** Share of deliveries sent twice with the same idempotency_key, as real gateways do. @default 0.1 */
  duplicateRate?: number;
  /** Pause between the steps of a message's or a channel's life (ms). @default 25 */
  stepMs?: number;
}

/** Whatsapp numbers starting with this are unregistered: their messages end in failed, bad_contact. */
export const UNREGISTERED_PREFIX = '000';
/** Transports that connect with a QR code (spec: create → follow-up by transport). */
const QR_TRANSPORTS = new Set(['whatsapp', 'tgapi', 'viber', 'max']);

/** Posts v2 events to the subscribed urls; counts what it sent. */
export class Deliverer {
  readonly #state: StandInState;
  readonly #duplicateRate: number;
  readonly stepMs: number;
  readonly #pending = new Set<Promise<void>>();
  /** Deliveries made, repeats included, and how many were repeats. */
  sent = 0;
  duplicated = 0;

  constructor(state: StandInState, options: DeliveryOptions = {}) {
    this.#state = state;
    this.#duplicateRate = options.duplicateRate ?? 0.1;
    this.stepMs = options.stepMs ?? 25;
  }

  /** Delivers one event to every url subscribed to it (spec: Events → Delivery rules). */
  deliver(event: string, data: unknown[]): void {
    const body = JSON.stringify({
      event,
      data,
      meta: { idempotency_key: randomUUID(), timestamp: Math.floor(Date.now() / 1000) },
    });
    for (const { url, event: subscribed } of this.#state.subscriptions.values()) {
      if (subscribed !== event) continue;
      const times = Math.random() < this.#duplicateRate ? 2 : 1;
      if (times === 2) this.duplicated++;
      for (let i = 0; i < times; i++) this.#track(this.#post(url, body));
    }
  }

  /** Resolves when every delivery started so far has been answered. */
  async drain(): Promise<void> {
    while (this.#pending.size) await Promise.allSettled([...this.#pending]);
  }

  /** The effects the v2 routes call: message and channel life cycles. */
  effects(): V2Effects {
    return {
      messageSent: (message) => this.#track(this.#messageLife(message)),
      channelCreated: (channelId, transport) => this.#track(this.#channelLife(channelId, transport)),
    };
  }

  async #post(url: string, body: string): Promise<void> {
    this.sent++;
    await fetch(url, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json' },
      signal: AbortSignal.timeout(30_000),
    })
      .then((res) => res.arrayBuffer())
      .catch(() => {}); // an unreachable receiver loses nothing here: the spec's retry policy is not shown
  }

  #track(task: Promise<void>): void {
    this.#pending.add(task);
    void task.finally(() => this.#pending.delete(task));
  }

  #step(): Promise<void> {
    return new Promise((r) => setTimeout(r, this.stepMs));
  }

  async #messageLife(m: {
    request_id: string;
    message_id: string;
    chat_id: string;
    body: Record<string, unknown>;
  }) {
    const recipient = m.body.recipient as Record<string, unknown>;
    const { text, attachment, template } = m.body;
    this.deliver('message.add', [
      {
        message_id: m.message_id,
        chat_id: m.chat_id,
        channel_id: m.body.channel_id,
        direction: 'outbound',
        quoted_message_id: null,
        timestamp: Date.now(),
        status: 'accepted',
        crm_user_id: m.body.crm_user_id ?? null,
        recipient: { ...recipient, profile_id: null, advert: null },
        text,
        attachment,
        template,
      },
    ]);
    const unregistered = recipient.chat_type === 'whatsapp' && m.chat_id.startsWith(UNREGISTERED_PREFIX);
    const path = unregistered ? ['accepted', 'failed'] : ['accepted', 'sent', 'delivered', 'read'];
    for (const status of path) {
      await this.#step();
      const reason = status === 'failed' ? 'bad_contact' : null;
      this.deliver('message.status_update', [
        { message_id: m.message_id, request_id: m.request_id, status, reason },
      ]);
    }
  }

  async #channelLife(channelId: string, transport: string) {
    this.deliver('channel.create', [{ channel_id: channelId, timestamp: Date.now() }]);
    await this.#step();
    if (QR_TRANSPORTS.has(transport)) {
      const qr = `data:image/png;base64,${qrLikePng(channelId).toString('base64')}`;
      const platform = transport === 'tgapi' ? 'telegram_api' : transport;
      this.deliver('channel.qr_update', [{ channel_id: channelId, qr_code: qr, platform }]);
      await this.#step(); // the client scans the code
    }
    const channel = this.#state.channels.get(channelId);
    if (channel) Object.assign(channel, { status: 'active', reason: null, state: 'active' });
    this.deliver('channel.status_update', [{ channel_id: channelId, status: 'active', reason: null }]);
  }
}
