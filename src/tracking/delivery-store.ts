import type { MessageStatusUpdate } from '../schemas/events-v2.js';

/** What is known of one sent message. */
export interface StatusEntry {
  /** The send's request id. */
  requestId: string;
  /** The message id, once a status carried it. */
  messageId: string | undefined;
  /** The furthest status reached (statuses may arrive out of order). */
  best: MessageStatusUpdate | undefined;
  /** The failed status, if one arrived. */
  failed: MessageStatusUpdate | undefined;
}

/** How a shared {@link DeliveryStore} tells a tracker about statuses recorded by any instance. */
export interface DeliveryFeed {
  /** An entry as it stands after a status was recorded (here or on another instance). */
  entry(entry: StatusEntry): void;
  /** The feed was interrupted (a reconnect): entries may have been missed, read again what matters. */
  resync(): void;
}

/**
 * Where a {@link DeliveryTracker} keeps statuses. The default is in memory, for one process; a
 * shared store (`redisDeliveryStore`) lets a `waitFor` on one instance see statuses that reach
 * another. Statuses only move forward in the order accepted < sent < delivered < read; failed is
 * kept beside them and is final.
 */
export interface DeliveryStore {
  /** Records an update; the entry after it, or undefined when it names no request and no known message. */
  record(update: MessageStatusUpdate): StatusEntry | undefined | Promise<StatusEntry | undefined>;
  /** The entry for a request id, or for a message id once known. */
  get(id: string): StatusEntry | undefined | Promise<StatusEntry | undefined>;
  /**
   * Shared stores only: sends every entry recorded from now on, by any instance, to `feed`.
   * Resolves once the subscription is active, so an entry recorded after it is never missed.
   */
  subscribe?(feed: DeliveryFeed): Promise<void>;
}
