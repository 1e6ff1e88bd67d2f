import type { Database } from './driver.js';
import { type BatchParts, processBatch, type ReceivingHandler } from './inbox-batch.js';

export type { ReceivingHandler } from './inbox-batch.js';

import { checkCount, MAX_TIMER_MS } from '../core/checks.js';
import { consoleErrors, type LoopErrorHandler, PollLoops } from './poll-loops.js';
import type { Tables } from './schema.js';

/** Options of `store.inbox.work`. */
export interface InboxWorkOptions {
  /** Deliveries processed at once by this worker. @default 1 */
  concurrency?: number;
  /** Attempts before a delivery is dead (kept, reported, `store.inbox.retry(id)` puts it back). @default 10 */
  maxAttempts?: number;
  /** How often an idle worker looks for deliveries (ms). @default 200 */
  pollIntervalMs?: number;
  /**
   * Deliveries taken in one transaction by each of the `concurrency` loops (at most one per chat):
   * each runs its listeners under a savepoint of its own, and they are marked done in one commit.
   * @default 10
   */
  batchSize?: number;
  /**
   * Time one delivery's listeners may take (ms). Past it the batch's transaction is rolled back,
   * the attempt fails with an `InboxDeliveryError` of code `'timedOut'` (reported on the
   * handler's 'error') and is tried again after its backoff; the other deliveries of the batch
   * are due again at once, and the chat and the loop are free. It is also the transaction's
   * `statement_timeout`: a listener's statement stuck on a lock is cut by the server. A listener
   * still running then keeps running, but its `tx` is gone: every call through it (or through
   * the store) throws. A whole number of ms, at most 2147483647.
   * @default 60000
   */
  timeoutMs?: number;
  /**
   * Called with each database failure. A delivery that is dead (an `InboxDeliveryError` of code
   * `'dead'`) or timed out is reported on the handler's 'error', as are listener failures; here
   * only when `hooks` is not a `WebhookHandler`.
   * @default a console warning, at most 10 lines a minute
   */
  onError?: LoopErrorHandler;
}

/** A running worker: `await worker.stop()` lets the deliveries under way finish, then stops. */
export interface InboxWorker {
  /** Stops taking deliveries; resolves when those under way are done (or rolled back). */
  stop(): Promise<void>;
}

/** Starts the loops of a worker; see `PostgresInbox.work`. */
export function startInboxWorker(
  db: Database,
  t: Tables,
  hooks: ReceivingHandler,
  options: InboxWorkOptions,
): InboxWorker {
  const option = (name: keyof InboxWorkOptions, fallback: number, max?: number) =>
    checkCount(options[name] ?? fallback, [name], 'inbox.work options', 1, max);
  const concurrency = option('concurrency', 1);
  const pollIntervalMs = option('pollIntervalMs', 200, MAX_TIMER_MS);
  const onError = options.onError ?? consoleErrors('inbox.work');
  const parts: BatchParts = {
    db,
    t,
    hooks,
    maxAttempts: option('maxAttempts', 10),
    batchSize: option('batchSize', 10),
    // A whole number: it is also the transaction's statement_timeout.
    timeoutMs: option('timeoutMs', 60_000, MAX_TIMER_MS),
    onError,
  };
  return db.detached(() => new PollLoops(concurrency, pollIntervalMs, () => processBatch(parts), onError));
}
