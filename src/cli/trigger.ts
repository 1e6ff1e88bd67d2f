import { buildWebhook, DELIVERY_KINDS, type DeliveryKind, isDeliveryKind } from '../testing/build-webhook.js';
import { EXIT, type Io, UsageError } from './io.js';
import { parseOptions } from './options.js';
import { deliveryHeaders, postDelivery, printOutcome, shown } from './post.js';
import { overridesFrom } from './set-path.js';
import { nearest } from './suggest.js';

/** The options of `trigger`. */
export const TRIGGER_OPTIONS = {
  to: { type: 'string' },
  set: { type: 'string', multiple: true },
  seed: { type: 'string' },
  'crm-key': { type: 'string' },
  json: { type: 'boolean' },
  list: { type: 'boolean' },
} as const;

/** `messaging-gateway trigger <kind> --to <url> [--set path=value]… [--seed S] [--crm-key K] [--json]`. */
export async function trigger(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseOptions(args, TRIGGER_OPTIONS);
  if (values.list) {
    for (const kind of DELIVERY_KINDS) io.out(kind);
    return EXIT.ok;
  }
  const kind = positionals[0];
  if (!kind) throw new UsageError('trigger needs a kind, e.g. trigger message.add --to <url>');
  if (!isDeliveryKind(kind)) {
    const near = nearest(kind, DELIVERY_KINDS);
    const named = JSON.stringify(kind.slice(0, 64));
    const hint = near ? ` (did you mean ${near}?)` : '; `messaging-gateway trigger --list` shows every kind';
    throw new UsageError(`unknown kind ${named}${hint}`);
  }
  if (!values.to || !URL.canParse(values.to))
    throw new UsageError('trigger needs --to <url>, an absolute URL');
  const url = new URL(values.to);
  const body = buildWebhook(kind as DeliveryKind, overridesFrom(values.set ?? []) as never, {
    ...(values.seed !== undefined && { seed: values.seed }),
  });
  const outcome = await postDelivery(
    url,
    JSON.stringify(body),
    deliveryHeaders(kind.startsWith('v3.'), values['crm-key']),
  );
  printOutcome(io, values.json, `POST ${shown(url)} ${kind}`, outcome, { sent: body });
  return outcome.ok ? EXIT.ok : EXIT.failed;
}
