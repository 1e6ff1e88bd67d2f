import { LATE, within } from '../../internal/deadline.js';
import type { ChannelSignal } from './signals.js';

/** Signals kept at most while the flow is busy (a flood drops the oldest). */
const MAX_SIGNALS = 256;

/**
 * What the flow waits on: a channel's status, its QR read into PNG bytes, or a check of
 * `channels.get` asked for by the flow itself (e.g. after a 2FA code).
 */
export type InboxItem =
  | Exclude<ChannelSignal, { type: 'qr' }>
  | { type: 'png'; png: Uint8Array }
  | { type: 'check' };

/**
 * The signals heard for one channel, in order, bounded. Before the channel id is known (the
 * create call is in flight, and its webhooks may come first) every channel's signals are kept.
 */
export class Inbox {
  #items: [string | undefined, InboxItem][] = [];
  #wake: (() => void) | undefined;
  #channelId: string | undefined;

  /** From now on only this channel's signals are kept. */
  set channelId(id: string) {
    this.#channelId = id;
    this.#items = this.#items.filter(([from]) => from === id || from === undefined);
  }

  /** Whether a signal of this channel is kept: any before the flow's own channel is known. */
  accepts(channelId: string | undefined): boolean {
    return channelId === undefined || this.#channelId === undefined || channelId === this.#channelId;
  }

  push(channelId: string | undefined, item: InboxItem): void {
    if (!this.accepts(channelId)) return;
    if (this.#items.length >= MAX_SIGNALS) this.#items.shift();
    this.#items.push([channelId, item]);
    this.#wake?.();
  }

  /** The oldest signal, if any. */
  take(): InboxItem | undefined {
    return this.#items.shift()?.[1];
  }

  /** Ends a pending {@link Inbox.next} now, so its timer does not keep the process alive after the flow. */
  close(): void {
    this.#wake?.();
  }

  /** Resolves true when a signal arrives, false once `ms` passed without one. */
  async next(ms: number): Promise<boolean> {
    if (this.#items.length) return true;
    const arrived = new Promise<void>((resolve) => {
      this.#wake = resolve;
    });
    const result = await within(arrived, ms);
    this.#wake = undefined;
    return result !== LATE;
  }
}
