import { parseArgs } from 'node:util';
import { readLimited } from '../internal/bytes.js';
import { buildWebhook, DELIVERY_KINDS, type DeliveryKind, isDeliveryKind } from '../testing/build-webhook.js';
import { EXIT, type Io, mib, UsageError } from './io.js';
import { overridesFrom } from './set-path.js';

/** The address without its query: the query may hold the receiver's secret. */
function shown(url: URL): string {
  return `${url.origin}${url.pathname}${url.search ? '?…' : ''}`;
}

/** The most of a receiver's answer `trigger` reads (a webhook answer is a few bytes). */
const MAX_ANSWER_BYTES = 1024 * 1024;

/** The answer's body: JSON when it parses, else its text. */
function readAnswer(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** `messaging-gateway trigger <kind> --to <url> [--set path=value]… [--seed S] [--crm-key K] [--json]`. */
export async function trigger(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: {
      to: { type: 'string' },
      set: { type: 'string', multiple: true },
      seed: { type: 'string' },
      'crm-key': { type: 'string' },
      json: { type: 'boolean' },
      list: { type: 'boolean' },
    },
    allowPositionals: true,
  });
  if (values.list) {
    for (const kind of DELIVERY_KINDS) io.out(kind);
    return EXIT.ok;
  }
  const kind = positionals[0];
  if (!kind) throw new UsageError('trigger needs a kind, e.g. trigger message.add --to <url>');
  if (!isDeliveryKind(kind)) throw new UsageError(`unknown kind "${kind}"; trigger --list shows every kind`);
  if (!values.to || !URL.canParse(values.to))
    throw new UsageError('trigger needs --to <url>, an absolute URL');
  const url = new URL(values.to);
  const body = buildWebhook(kind as DeliveryKind, overridesFrom(values.set ?? []) as never, {
    ...(values.seed !== undefined && { seed: values.seed }),
  });
  const v3 = kind.startsWith('v3.');
  const headers: Record<string, string> = {
    // spec: API v3 webhook deliveries 1 — the content type v3 writes, malformed as it is
    'content-type': v3 ? 'application/json; charset-utf-8' : 'application/json',
    ...(values['crm-key'] && { authorization: `Bearer ${values['crm-key']}` }),
  };
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(30_000), // spec: Limits — the service waits 30 s for an answer
    });
  } catch (error) {
    const reason = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
    io.err(`POST ${shown(url)} failed: ${reason}`);
    return EXIT.failed;
  }
  const bytes = response.body ? await readLimited(response.body, MAX_ANSWER_BYTES) : new Uint8Array();
  if (bytes === undefined) {
    io.err(
      `POST ${shown(url)} → ${response.status}: the answer is larger than ${mib(MAX_ANSWER_BYTES)}; not read further`,
    );
    return EXIT.failed;
  }
  const answer = readAnswer(new TextDecoder().decode(bytes));
  if (values.json)
    io.out(JSON.stringify({ status: response.status, ok: response.ok, body: answer, sent: body }));
  else {
    io.out(`POST ${shown(url)} ${kind} → ${response.status} ${response.statusText}`);
    if (answer !== '') io.out(typeof answer === 'string' ? answer : JSON.stringify(answer));
  }
  return response.ok ? EXIT.ok : EXIT.failed;
}
