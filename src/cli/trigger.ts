import { parseArgs } from 'node:util';
import { buildWebhook, DELIVERY_KINDS, type DeliveryKind, isDeliveryKind } from '../testing/build-webhook.js';
import { EXIT, type Io, UsageError } from './io.js';
import { deliveryHeaders, postDelivery, shown } from './post.js';
import { overridesFrom } from './set-path.js';

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
  const answer = await postDelivery(
    url,
    JSON.stringify(body),
    deliveryHeaders(kind.startsWith('v3.'), values['crm-key']),
    io,
  );
  if (!answer) return EXIT.failed;
  if (values.json)
    io.out(JSON.stringify({ status: answer.status, ok: answer.ok, body: answer.body, sent: body }));
  else {
    io.out(`POST ${shown(url)} ${kind} → ${answer.status} ${answer.statusText}`);
    if (answer.body !== '')
      io.out(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));
  }
  return answer.ok ? EXIT.ok : EXIT.failed;
}
