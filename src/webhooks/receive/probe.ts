import { readJsonBody } from '../decode/json-body.js';
import { readRequestBody } from './read-request-body.js';
import { header, type WebhookRequest } from './request.js';

/** Bytes of an unauthenticated request read to tell the v3 `{ test: true }` probe (it is 14). */
const PROBE_BYTES = 64;
/** Time an unauthenticated request is given to send those bytes (ms). */
const PROBE_TIMEOUT_MS = 2_000;

/**
 * Whether an unauthenticated request is the v3 `{ test: true }` probe: at most its first
 * {@link PROBE_BYTES} bytes are read, so a sender without credentials still costs next to nothing.
 */
export async function isProbe(request: WebhookRequest, bodyTimeoutMs: number): Promise<boolean> {
  if (Number(header(request.headers, 'content-length')) > PROBE_BYTES) return false;
  const read = await readRequestBody(request.body, {
    maxBytes: PROBE_BYTES,
    timeoutMs: Math.min(bodyTimeoutMs, PROBE_TIMEOUT_MS),
  });
  if (read.kind !== 'body') return false;
  const parsed = readJsonBody(read.body);
  if (!parsed.ok) return false;
  const value = parsed.value as Record<string, unknown> | null;
  return (
    typeof value === 'object' && value !== null && value.test === true && Object.keys(value).length === 1
  );
}
