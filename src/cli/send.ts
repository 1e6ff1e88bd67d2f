import { EXIT, type Io, UsageError } from './io.js';
import { callService, clientFrom, parseServiceArgs, print } from './service.js';

/** `--to whatsapp:79001234567` or `--to telegram:@name` → the recipient object. */
function recipientOf(to: string): Record<string, string> {
  const colon = to.indexOf(':');
  if (colon <= 0 || colon === to.length - 1)
    throw new UsageError('--to takes <chat_type>:<chat_id> or telegram:@username, e.g. whatsapp:79001234567');
  const chatType = to.slice(0, colon);
  const id = to.slice(colon + 1);
  return id.startsWith('@')
    ? { chat_type: chatType, username: id.slice(1) }
    : { chat_type: chatType, chat_id: id };
}

/** `messaging-gateway send --channel <id> --to <chat_type>:<chat_id or @username> (--text T | --file URL)`. */
export async function send(args: string[], io: Io): Promise<number> {
  const { values } = parseServiceArgs(args, {
    channel: { type: 'string' },
    to: { type: 'string' },
    text: { type: 'string' },
    file: { type: 'string' },
  });
  if (!values.channel) throw new UsageError('send needs --channel <channel id>');
  if (!values.to) throw new UsageError('send needs --to <chat_type>:<chat_id>');
  if ((values.text === undefined) === (values.file === undefined))
    throw new UsageError('send needs one of --text or --file');
  const { client, credentials } = clientFrom(values);
  const params = {
    channel_id: values.channel,
    recipient: recipientOf(values.to),
    ...(values.text !== undefined ? { text: values.text } : { attachment: { url: values.file } }),
  };
  return callService(io, values.json, credentials, async () => {
    const result = await client.messages.send(params as never);
    print(io, values.json, { ok: true, ...result }, () => [
      `sent: request_id ${result.request_id}${result.chat_id ? `, chat_id ${result.chat_id}` : ''}`,
    ]);
    return EXIT.ok;
  });
}
