import { BoundedMap } from '../internal/bounded-map.js';
import type { MessageStatusUpdate } from '../schemas/events-v2.js';
import type { DeliveryStore, StatusEntry } from './delivery-store.js';
import { rankOf } from './status-order.js';

export type { StatusEntry } from './delivery-store.js';

/** An entry and when its first status came. */
interface Held {
  entry: StatusEntry;
  born: number;
}

/**
 * The default {@link DeliveryStore}, in memory: the statuses seen, by request id and by message
 * id, bounded in count (the oldest first) and in age (`retainMs` after the first status).
 */
export class StatusStore implements DeliveryStore {
  readonly #byRequest: BoundedMap<string, Held>;
  readonly #byMessage = new Map<string, string>();

  constructor(
    readonly maxEntries: number,
    readonly retainMs: number,
    readonly now: () => number = Date.now,
  ) {
    this.#byRequest = new BoundedMap(maxEntries, (_, { entry }) => {
      if (entry.messageId !== undefined) this.#byMessage.delete(entry.messageId);
    });
  }

  /** Messages held now. */
  get size(): number {
    return this.#byRequest.size;
  }

  /** The entry for a request id, or for a message id once known. */
  get(id: string): StatusEntry | undefined {
    this.#dropExpired();
    return (this.#byRequest.get(id) ?? this.#byRequest.get(this.#byMessage.get(id) ?? ''))?.entry;
  }

  /** Records an update; undefined when it names no request and no known message. */
  record(update: MessageStatusUpdate): StatusEntry | undefined {
    this.#dropExpired();
    const messageId = update.message_id ?? undefined;
    const requestId =
      update.request_id ?? (messageId !== undefined ? this.#byMessage.get(messageId) : undefined);
    if (requestId === undefined) return undefined;
    const entry = this.#byRequest.get(requestId)?.entry ?? this.#add(requestId);
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
    const entry: StatusEntry = { requestId, messageId: undefined, best: undefined, failed: undefined };
    this.#byRequest.set(requestId, { entry, born: this.now() });
    return entry;
  }

  #dropExpired(): void {
    const oldest = this.now() - this.retainMs;
    for (let held = this.#byRequest.oldest(); held && held.born <= oldest; held = this.#byRequest.oldest()) {
      this.#byRequest.dropOldest();
    }
  }
}

// Joins a message id to its request without a status (rank -1 moves nothing forward).
function statusOnly(requestId: string, messageId: string): MessageStatusUpdate {
  return { request_id: requestId, message_id: messageId, status: '' } as MessageStatusUpdate;
}
