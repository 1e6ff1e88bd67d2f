import { withoutSecrets } from '../internal/address.js';
import { readLimited } from '../internal/bytes.js';
import { type Io, mib } from './io.js';

/** The most of a receiver's answer the bin reads (a webhook answer is a few bytes). */
export const MAX_ANSWER_BYTES = 1024 * 1024;

/** The address as printed: its query values (the receiver's secret) and any user and password hidden. */
export function shown(url: URL): string {
  return withoutSecrets(url.href);
}

/** The answer's body: JSON when it parses, else its text. */
function readAnswer(text: string): unknown {
  try {
    return JSON.parse(text);
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

/**
 * POSTs one delivery to a receiver and reads its answer (at most {@link MAX_ANSWER_BYTES});
 * prints why and resolves to undefined when no answer came or it was too large.
 */
export async function postDelivery(
  url: URL,
  body: string,
  headers: Record<string, string>,
  io: Io,
): Promise<Answer | undefined> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers,
      body,
      signal: AbortSignal.timeout(30_000), // spec: Limits — the service waits 30 s for an answer
    });
  } catch (error) {
    const reason = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
    io.err(`POST ${shown(url)} failed: ${reason}`);
    return undefined;
  }
  const bytes = response.body ? await readLimited(response.body, MAX_ANSWER_BYTES) : new Uint8Array();
  if (bytes === undefined) {
    io.err(
      `POST ${shown(url)} → ${response.status}: the answer is larger than ${mib(MAX_ANSWER_BYTES)}; not read further`,
    );
    return undefined;
  }
  const { status, statusText, ok } = response;
  return { status, statusText, ok, body: readAnswer(new TextDecoder().decode(bytes)) };
}

/** The content type each surface's deliveries carry. */
export function deliveryHeaders(v3: boolean, crmKey: string | undefined): Record<string, string> {
  return {
    // spec: API v3 webhook deliveries 1 — the content type v3 writes, malformed as it is
    'content-type': v3 ? 'application/json; charset-utf-8' : 'application/json',
    ...(crmKey && { authorization: `Bearer ${crmKey}` }),
  };
}
