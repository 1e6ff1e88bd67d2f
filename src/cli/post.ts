import { maskedAddress } from '../internal/address.js';
import { readLimited } from '../internal/bytes.js';
import { addressesMasked, forTerminal, type Io, jsonLine, mib, printable } from './io.js';

/** The most of a receiver's answer the bin reads (a webhook answer is a few bytes). */
export const MAX_ANSWER_BYTES = 1024 * 1024;

/** How long the bin waits for a receiver's answer (spec: Limits — the service waits 30 s). */
const ANSWER_TIMEOUT_MS = 30_000;

/** The address as printed: its query values (the receiver's secret) and any user and password hidden. */
export function shown(url: URL): string {
  return maskedAddress(url.href);
}

/**
 * The answer's body: JSON when it parses and can be printed again, else its text (a body nested
 * too deeply to print stays text, so printing it never overflows the stack).
 */
function readAnswer(text: string): unknown {
  try {
    const value: unknown = JSON.parse(text);
    JSON.stringify(value);
    return value;
  } catch {
    return text;
  }
}

/** A receiver's answer to one delivery. */
export interface Answer {
  status: number;
  statusText: string;
  ok: boolean;
  body: unknown;
}

/** Why a delivery got no answer the bin could read: an error class of the SDK and a sentence. */
export interface PostFailure {
  ok: false;
  error: { class: string; message: string };
}

/** The sentence for a failed fetch: its real cause (connection refused to …), never "TypeError". */
function failureOf(url: URL, error: unknown): PostFailure {
  if ((error as Error).name === 'TimeoutError')
    return failed('GatewayTimeoutError', `no answer from ${url.host} within ${ANSWER_TIMEOUT_MS / 1000} s`);
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const because: Record<string, string> = {
    ECONNREFUSED: `connection refused to ${url.host}`,
    ECONNRESET: `connection reset by ${url.host}`,
    ENOTFOUND: `no such host ${url.hostname}`,
    EAI_AGAIN: `no such host ${url.hostname} (DNS did not answer)`,
    UND_ERR_SOCKET: `connection to ${url.host} closed before an answer`,
  };
  const code = cause?.code;
  const message =
    code && Object.hasOwn(because, code) ? because[code] : (cause?.message ?? (error as Error).message);
  return failed('GatewayConnectionError', `${message}${code ? ` (${code})` : ''}`);
}

const failed = (name: string, message: string): PostFailure => ({
  ok: false,
  error: { class: name, message },
});

/**
 * POSTs one delivery to a receiver and reads its answer (at most {@link MAX_ANSWER_BYTES}); when
 * no answer came or it was too large, resolves to why.
 */
export async function postDelivery(
  url: URL,
  body: string,
  headers: Record<string, string>,
): Promise<Answer | PostFailure> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers,
      body,
      signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS),
    });
  } catch (error) {
    return failureOf(url, error);
  }
  const bytes = response.body ? await readLimited(response.body, MAX_ANSWER_BYTES) : new Uint8Array();
  if (bytes === undefined) {
    const why = `the answer (${response.status}) is larger than ${mib(MAX_ANSWER_BYTES)}; not read further`;
    return failed('GatewayResponseError', why);
  }
  const { status, statusText, ok } = response;
  return { status, statusText, ok, body: readAnswer(new TextDecoder().decode(bytes)) };
}

/**
 * Prints the outcome of one POST: with `json`, one JSON line (`fields` first, then the answer or
 * the error); as text, the answer's status and body, or why it failed on standard error. Every
 * value from the receiver reaches the terminal with its control characters shown, not obeyed.
 */
export function printOutcome(
  io: Io,
  json: boolean | undefined,
  label: string,
  outcome: Answer | PostFailure,
  fields: Record<string, unknown> = {},
): void {
  if (json) {
    const { ok } = outcome;
    const rest =
      'error' in outcome ? { error: outcome.error } : { status: outcome.status, body: outcome.body };
    io.out(jsonLine({ ...fields, ok, ...rest }));
  } else if ('error' in outcome) {
    const { message, class: name } = outcome.error;
    io.err(forTerminal(`${label} failed: ${addressesMasked(message)} (${name})`));
  } else {
    io.out(forTerminal(`${label} → ${outcome.status} ${outcome.statusText}`));
    const { body } = outcome;
    if (body !== '') io.out(forTerminal(typeof body === 'string' ? body : printable(body)));
  }
}

/** The content type each surface's deliveries carry. */
export function deliveryHeaders(v3: boolean, crmKey: string | undefined): Record<string, string> {
  return {
    // spec: API v3 webhook deliveries 1 — the content type v3 writes, malformed as it is
    'content-type': v3 ? 'application/json; charset-utf-8' : 'application/json',
    ...(crmKey && { authorization: `Bearer ${crmKey}` }),
  };
}
