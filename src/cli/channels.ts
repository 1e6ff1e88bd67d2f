import type { Channel } from '../schemas/channels.js';
import { EXIT, type Io, UsageError } from './io.js';
import { callService, clientFrom, parseServiceArgs, print } from './service.js';

/** A phone shown by its last four digits only. */
export function masked(phone: string | null | undefined): string {
  return phone ? `…${phone.slice(-4)}` : '-';
}

/** One line per channel: id, transport, status, name or phone. */
export function channelLine(c: Channel): string {
  const who = c.name || (c.username ? `@${c.username}` : masked(c.phone));
  return `${c.channel_id}  ${c.transport}  ${c.status ?? '-'}${c.reason ? ` (${c.reason})` : ''}  ${who}`;
}

/** The options of `channels list | get | delete`. */
export const CHANNELS_OPTIONS = { 'delete-chats': { type: 'boolean' } } as const;

/**
 * `messaging-gateway channels list | get <id> | delete <id> [--delete-chats]`;
 * `channels connect` is its own module, imported when it runs.
 */
export async function channels(args: string[], io: Io): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === 'connect') return (await import('./channels-connect.js')).channelsConnect(rest, io);
  const { values, positionals } = parseServiceArgs(rest, CHANNELS_OPTIONS);
  const id = positionals[0];
  if (sub === 'get' || sub === 'delete') {
    if (!id) throw new UsageError(`channels ${sub} needs a channel id`);
  } else if (sub !== 'list') throw new UsageError('channels takes list, get <id>, delete <id> or connect');
  const { client, credentials } = clientFrom(values);
  return callService(io, values.json, credentials, async () => {
    if (sub === 'list') {
      const list = await client.channels.list();
      print(io, values.json, list, () => (list.length ? list.map(channelLine) : ['no channels']));
    } else if (sub === 'get') {
      const channel = await client.channels.get(id as string);
      print(io, values.json, channel, () => [channelLine(channel)]);
    } else {
      await client.channels.delete(id as string, values['delete-chats'] ? { delete_chats: true } : {});
      print(io, values.json, { ok: true, deleted: id }, () => [`deleted channel ${id}`]);
    }
    return EXIT.ok;
  });
}
