import type { MessageStatusUpdate } from '../schemas/events-v2.js';
import type { DeliveryStore, StatusEntry } from './delivery-store.js';
import { rankOf } from './status-order.js';

export type { StatusEntry } from './delivery-store.js';

/**
 * The default {@link DeliveryStore}, in memory: the statuses seen, by request id and by message
 * id, bounded in count (the oldest first, kept in a ring so eviction is O(1)) and in age
 * (`retainMs` after the first status).
 */
export class StatusStore implements DeliveryStore {
  readonly #byRequest = new Map<string, StatusEntry>();
  readonly #byMessage = new Map<string, string>();
  readonly #ring: (StatusEntry | undefined)[];
  readonly #born: Float64Array;
  #head = 0;
  #count = 0;

  constructor(
    readonly maxEntries: number,
    readonly retainMs: number,
    readonly now: () => number = Date.now,
  ) {
    this.#ring = new Array(Math.max(1, maxEntries));
    this.#born = new Float64Array(this.#ring.length);
  }

  /** Messages held now. */
  get size(): number {
    return this.#byRequest.size;
  }

  /** The entry for a request id, or for a message id once known. */
  get(id: string): StatusEntry | undefined {
    this.#dropExpired();
    return this.#byRequest.get(id) ?? this.#byRequest.get(this.#byMessage.get(id) ?? '');
  }

  /** Records an update; undefined when it names no request and no known message. */
  record(update: MessageStatusUpdate): StatusEntry | undefined {
    this.#dropExpired();
    const messageId = update.message_id ?? undefined;
    const requestId =
      update.request_id ?? (messageId !== undefined ? this.#byMessage.get(messageId) : undefined);
    if (requestId === undefined) return undefined;
    const entry = this.#byRequest.get(requestId) ?? this.#add(requestId);
    if (messageId !== undefined && entry.messageId === undefined) {
      entry.messageId = messageId;
      this.#byMessage.set(messageId, requestId);
    }
    if (update.status === 'failed') entry.failed = update;
    else if (rankOf(update.status) > rankOf(entry.best?.status)) entry.best = update;
    return entry;
  }

  /** Takes in an entry as a shared store reported it (a mirror of what other instances saw). */
  merge(shared: StatusEntry): void {
    if (shared.messageId !== undefined) this.record(statusOnly(shared.requestId, shared.messageId));
    if (shared.best) this.record({ ...shared.best, request_id: shared.requestId });
    if (shared.failed) this.record({ ...shared.failed, request_id: shared.requestId });
  }

  #add(requestId: string): StatusEntry {
    if (this.#count === this.#ring.length) this.#dropOldest();
    const entry: StatusEntry = { requestId, messageId: undefined, best: undefined, failed: undefined };
    const slot = (this.#head + this.#count) % this.#ring.length;
    this.#ring[slot] = entry;
    this.#born[slot] = this.now();
    this.#count++;
    this.#byRequest.set(requestId, entry);
    return entry;
  }

  #dropExpired(): void {
    const oldest = this.now() - this.retainMs;
    while (this.#count > 0 && (this.#born[this.#head] as number) <= oldest) this.#dropOldest();
  }

  #dropOldest(): void {
    const entry = this.#ring[this.#head] as StatusEntry;
    this.#byRequest.delete(entry.requestId);
    if (entry.messageId !== undefined) this.#byMessage.delete(entry.messageId);
    this.#ring[this.#head] = undefined;
    this.#head = (this.#head + 1) % this.#ring.length;
    this.#count--;
  }
}

// Joins a message id to its request without a status (rank -1 moves nothing forward).
function statusOnly(requestId: string, messageId: string): MessageStatusUpdate {
  return { request_id: requestId, message_id: messageId, status: '' } as MessageStatusUpdate;
}
