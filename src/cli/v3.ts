import { V3_SWITCHES } from '../schemas/subscriptions.js';
import { EXIT, type Io, UsageError } from './io.js';
import { callService, clientFrom, parseServiceArgs, print } from './service.js';

type Switch = (typeof V3_SWITCHES)[number];

/** `--switch messagesAndStatuses=true` → its name and value. */
function switchOf(text: string): [Switch, boolean] {
  const [name, value, extra] = text.split('=');
  if (
    !(V3_SWITCHES as readonly string[]).includes(name as string) ||
    extra !== undefined ||
    (value !== 'true' && value !== 'false')
  )
    throw new UsageError(`--switch takes name=true|false, name one of ${V3_SWITCHES.join(', ')}`);
  return [name as Switch, value === 'true'];
}

/** `messaging-gateway v3 get | set --uri <url> [--switch name=true|false]…` (unnamed switches: false). */
export async function v3(args: string[], io: Io): Promise<number> {
  const [sub, ...rest] = args;
  const { values } = parseServiceArgs(rest, {
    uri: { type: 'string' },
    switch: { type: 'string', multiple: true },
  });
  if (sub !== 'get' && sub !== 'set')
    throw new UsageError('v3 takes get, or set --uri <url> [--switch name=true]…');
  const switches = Object.fromEntries(V3_SWITCHES.map((s) => [s, false])) as Record<Switch, boolean>;
  if (sub === 'set') {
    if (!values.uri) throw new UsageError('v3 set needs --uri <url>');
    for (const text of values.switch ?? []) {
      const [name, on] = switchOf(text);
      switches[name] = on;
    }
  }
  const { client, credentials } = clientFrom(values);
  return callService(io, values.json, credentials, async () => {
    let settings: { webhooksUri: string | null; subscriptions: Record<Switch, boolean> };
    if (sub === 'get') settings = await client.v3.webhooks.get();
    else {
      await client.v3.webhooks.update({ webhooksUri: values.uri as string, subscriptions: switches });
      settings = { webhooksUri: values.uri as string, subscriptions: switches };
    }
    print(io, values.json, settings, () => [
      `webhooksUri: ${settings.webhooksUri || '(none)'}`,
      ...V3_SWITCHES.map((s) => `${s}: ${settings.subscriptions[s]}`),
    ]);
    return EXIT.ok;
  });
}
