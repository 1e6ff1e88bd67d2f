import { maskedAddress } from '../internal/address.js';
import { V3_SWITCHES, type V3WebhookSettingsParams } from '../schemas/subscriptions.js';
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

/** `v3 set`'s body: the address and only the switches named (the service keeps the others). */
function settingsOf(uri: string | undefined, named: readonly string[]): V3WebhookSettingsParams {
  if (!uri) throw new UsageError('v3 set needs --uri <url>');
  const subscriptions: Partial<Record<Switch, boolean>> = {};
  for (const text of named) {
    const [name, on] = switchOf(text);
    subscriptions[name] = on;
  }
  return { webhooksUri: uri, subscriptions };
}

/** The text lines of the settings: the address's query values masked, switches not sent left out. */
function settingsLines(settings: {
  webhooksUri: string | null;
  subscriptions: Partial<Record<Switch, boolean>>;
}): string[] {
  return [
    `webhooksUri: ${settings.webhooksUri ? maskedAddress(settings.webhooksUri) : '(none)'}`,
    ...V3_SWITCHES.filter((s) => settings.subscriptions[s] !== undefined).map(
      (s) => `${s}: ${settings.subscriptions[s]}`,
    ),
  ];
}

/** The options of `v3` (with the service's). */
export const V3_OPTIONS = { uri: { type: 'string' }, switch: { type: 'string', multiple: true } } as const;

/** `messaging-gateway v3 get | set --uri <url> [--switch name=true|false]…` (unnamed switches: unchanged). */
export async function v3(args: string[], io: Io): Promise<number> {
  const [sub, ...rest] = args;
  const { values } = parseServiceArgs(rest, V3_OPTIONS);
  if (sub !== 'get' && sub !== 'set')
    throw new UsageError('v3 takes get, or set --uri <url> [--switch name=true]…');
  const update = sub === 'set' ? settingsOf(values.uri, values.switch ?? []) : undefined;
  const { client, credentials } = clientFrom(values);
  return callService(io, values.json, credentials, async () => {
    if (update) await client.v3.webhooks.update(update);
    const settings = update ?? (await client.v3.webhooks.get());
    print(io, values.json, settings, () => settingsLines(settings));
    return EXIT.ok;
  });
}
