import { maskedAddress } from '../internal/address.js';
import { V2_EVENTS, type V2EventName } from '../schemas/subscriptions.js';
import { EXIT, type Io, UsageError } from './io.js';
import { callService, clientFrom, parseServiceArgs, print } from './service.js';

/** The options of `webhooks` (with the service's). */
export const WEBHOOKS_OPTIONS = { events: { type: 'string' }, prune: { type: 'boolean' } } as const;

/** `messaging-gateway webhooks list | ensure <url> --events a,b [--prune] | remove <id>…`. */
export async function webhooks(args: string[], io: Io): Promise<number> {
  const [sub, ...rest] = args;
  const { values, positionals } = parseServiceArgs(rest, WEBHOOKS_OPTIONS);
  if (sub !== 'list' && sub !== 'ensure' && sub !== 'remove')
    throw new UsageError('webhooks takes list, ensure <url> --events a,b, or remove <id>…');
  let events: V2EventName[] = [];
  if (sub === 'ensure') {
    if (positionals.length !== 1) throw new UsageError('webhooks ensure needs one <url>');
    events = (values.events ?? '').split(',').filter(Boolean) as V2EventName[];
    const unknown = events.filter((e) => !(V2_EVENTS as readonly string[]).includes(e));
    if (events.length === 0 || unknown.length)
      throw new UsageError(`--events takes a comma-separated list of ${V2_EVENTS.join(', ')}`);
  }
  if (sub === 'remove' && positionals.length === 0)
    throw new UsageError('webhooks remove needs at least one id');
  const { client, credentials } = clientFrom(values);
  return callService(io, values.json, credentials, async () => {
    if (sub === 'remove') {
      await client.webhooks.unsubscribe(positionals);
      print(io, values.json, { ok: true, removed: positionals }, () =>
        positionals.map((id) => `removed ${id}`),
      );
      return EXIT.ok;
    }
    const list =
      sub === 'list'
        ? await client.webhooks.list()
        : await client.webhooks.ensure(positionals[0] as string, events, { prune: values.prune ?? false });
    print(io, values.json, list, () =>
      list.length ? list.map((s) => `${s.id}  ${s.event}  ${maskedAddress(s.url)}`) : ['no subscriptions'],
    );
    return EXIT.ok;
  });
}
