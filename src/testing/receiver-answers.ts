// A delivery's POST and what the receiver answers: its status and the start of its body, read up
// to a bound (an endless answer ends there), cut at the reply time-out or when the fake closes.

/** How much of a receiver's answer the fake reads; the rest is dropped. */
export const MAX_ANSWER_BYTES = 64 * 1024;

/** Why a POST stopped short: the reply time-out, the connection refused or reset, the fake closed. */
export type Cut = 'timedOut' | 'connection' | 'closed';

/** Why an answer's body came short of its end, as the verdict on a CRM reply says it. */
const UNFINISHED: Record<Cut | 'over', string> = {
  over: `the answer is over ${MAX_ANSWER_BYTES / 1024} KiB, more than the fake reads`,
  timedOut: 'the answer did not end within the reply time-out',
  connection: 'the connection was cut before the answer ended',
  closed: 'the fake closed before the answer ended',
};

/** What came of a POST: the answer's status and text, or why none came (`status` 0). */
export interface Answer {
  status: number;
  /** The start of the answer's body (at most {@link MAX_ANSWER_BYTES}). */
  text: string;
  /** Why no answer came, when `status` is 0. */
  failure?: Cut;
  /** Why the answer's body came short of its end, in words; absent when it came whole. */
  unfinished?: string;
}

/**
 * Reads up to `maxBytes` of an answer's body as text, then stops reading it; what came before an
 * error (the time-out, a reset) is kept. `end` says whether the body came whole, was longer than
 * `maxBytes`, or was cut by an error.
 */
async function readBounded(
  res: Response,
  maxBytes: number,
): Promise<{ text: string; end: 'whole' | 'over' | 'cut' }> {
  if (!res.body) return { text: '', end: 'whole' };
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let end: 'whole' | 'over' | 'cut' = 'over';
  try {
    // one chunk past maxBytes tells a body of exactly maxBytes from a longer one
    while (size <= maxBytes) {
      const { done, value } = await reader.read();
      if (done) {
        end = 'whole';
        break;
      }
      chunks.push(value);
      size += value.byteLength;
    }
  } catch {
    end = 'cut'; // the answer ends where the error cut it
  } finally {
    reader.cancel().catch(() => {});
  }
  return { text: Buffer.concat(chunks).subarray(0, maxBytes).toString('utf8'), end };
}

/**
 * POSTs `request` to `url` and reads the answer, cut after `timeoutMs` (the answer's body included)
 * or when `closed` aborts. Never rejects: a POST that got no answer says why in `failure`.
 */
export async function exchange(
  url: string,
  request: { headers: Record<string, string>; body: string },
  closed: AbortSignal,
  timeoutMs: number,
): Promise<Answer> {
  const signal = AbortSignal.any([closed, AbortSignal.timeout(timeoutMs)]);
  const cut = (): Cut => (closed.aborted ? 'closed' : signal.aborted ? 'timedOut' : 'connection');
  try {
    const res = await fetch(url, { method: 'POST', ...request, signal });
    const { text, end } = await readBounded(res, MAX_ANSWER_BYTES);
    if (end === 'whole') return { status: res.status, text };
    return { status: res.status, text, unfinished: UNFINISHED[end === 'over' ? 'over' : cut()] };
  } catch {
    // spec: the service's retry policy is not shown, so nothing is retried
    return { status: 0, text: '', failure: cut() };
  }
}
