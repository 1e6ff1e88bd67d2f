import { checkCount } from '../core/checks.js';
import { GatewayAbortError, GatewayError } from '../core/errors.js';
import type { SendMessageResult } from '../schemas/messages.js';

/** Progress of `sendMany`, reported after each item. */
export interface SendManyProgress {
  /** Items finished, sent or failed. */
  done: number;
  /** Items finished with an error. */
  failed: number;
  /** All items. */
  total: number;
}

/** Options of `messages.sendMany`. */
export interface SendManyOptions {
  /** Sends in flight at once: a whole number >= 1 (NaN, 0 or 2.5 is a GatewayValidationError). @default 8 */
  concurrency?: number;
  /** Stops the items not yet started; they report a GatewayAbortError (cause: the signal's reason). */
  signal?: AbortSignal;
  /** Called after each item. */
  onProgress?: (progress: SendManyProgress) => void;
}

/**
 * The outcome of one item of `sendMany`. A failed item's `error.requestSent` says whether it may
 * have reached the service: `false` for an item stopped before it left (the signal, the rate
 * limiter, a refused connection), which can be sent again without risking a second message.
 */
export type SendManyResult = { ok: true; value: SendMessageResult } | { ok: false; error: GatewayError };

/** The call each item makes, as its errors name it: the method and the full address. */
export interface PoolCall {
  method: string;
  url: string;
}

/**
 * An item's failure: the call's own error (its `requestSent` as the call knows it), or for an
 * item stopped by the signal a GatewayAbortError.
 */
function asError(reason: unknown, signal: AbortSignal | undefined, call: PoolCall): GatewayError {
  if (reason instanceof GatewayError) return reason;
  if (signal?.aborted) return new GatewayAbortError({ ...call, cause: signal.reason });
  return new GatewayError(reason instanceof Error ? reason.message : String(reason), { cause: reason });
}

/**
 * Runs `task` over `items`, `concurrency` at a time; results in input order; never rejects for
 * one item, only for a bad `concurrency` (before any item starts). An item stopped by the signal
 * reports a GatewayAbortError naming `call`.
 */
export async function runPool<T>(
  items: readonly T[],
  task: (item: T, signal: AbortSignal | undefined) => Promise<SendMessageResult>,
  options: SendManyOptions,
  call: PoolCall,
): Promise<SendManyResult[]> {
  const { signal, onProgress } = options;
  const concurrency = checkCount(options.concurrency ?? 8, ['concurrency'], 'sendMany options', 1);
  const results: SendManyResult[] = new Array(items.length);
  const progress: SendManyProgress = { done: 0, failed: 0, total: items.length };
  let next = 0;

  const finish = (index: number, result: SendManyResult) => {
    results[index] = result;
    progress.done++;
    if (!result.ok) progress.failed++;
    try {
      onProgress?.({ ...progress });
    } catch {
      // A failing progress callback must not lose the results of the other items.
    }
  };

  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      if (signal?.aborted) {
        // Never started: nothing of it left this process.
        const error = new GatewayAbortError({ ...call, cause: signal.reason, requestSent: false });
        finish(index, { ok: false, error });
        continue;
      }
      try {
        finish(index, { ok: true, value: await task(items[index] as T, signal) });
      } catch (error) {
        finish(index, { ok: false, error: asError(error, signal, call) });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return results;
}
