import { createFakeGateway } from '../testing/fake-gateway.js';
import { UNREGISTERED_PREFIX } from '../testing/payloads.js';
import type { RecordedRequest } from '../testing/requests.js';
import { EXIT, type Io, UsageError } from './io.js';
import { parseOptions } from './options.js';
import { recorder } from './recording.js';

/** The options of `fake-gateway`. */
export const FAKE_GATEWAY_OPTIONS = {
  port: { type: 'string' },
  token: { type: 'string' },
  'api-key': { type: 'string' },
  'crm-key': { type: 'string' },
  repeats: { type: 'boolean' },
  'manual-statuses': { type: 'boolean' },
  json: { type: 'boolean' },
  quiet: { type: 'boolean' },
  record: { type: 'string' },
} as const;

/** `messaging-gateway fake-gateway [--port N] [--token T] [--api-key K] [--crm-key K] [--repeats] [--manual-statuses] [--record dir] [--json] [--quiet]`. */
export async function fakeGateway(args: string[], io: Io, stopped: Promise<void>): Promise<number> {
  const { values } = parseOptions(args, FAKE_GATEWAY_OPTIONS, { positionals: false });
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError('--port takes 0..65535');
  const log = values.json
    ? ({ method, path, status }: RecordedRequest) => io.out(JSON.stringify({ method, path, status }))
    : ({ method, path, status }: RecordedRequest) => io.out(`${method} ${path} → ${status}`);
  const gateway = await createFakeGateway({
    port,
    ...(values.token && { token: values.token }),
    ...(values['api-key'] && { apiKey: values['api-key'] }),
    ...(values['crm-key'] && { crmKey: values['crm-key'] }),
    repeats: values.repeats ?? false,
    // A person drives the connection from the inbox page: each QR waits for its Scan button.
    autoScan: false,
    // With --manual-statuses a message waits at accepted for the page's Delivered, Read or Failed.
    autoStatuses: !values['manual-statuses'],
    ...(!values.quiet && { onRequest: log }),
    ...(values.record && { onDelivery: recorder(values.record, (line) => io.err(line)) }),
  });
  const { url, token, apiKey } = gateway;
  const inbox = `${url}/`;
  if (values.json) io.out(JSON.stringify({ url, token, apiKey, inbox }));
  else {
    io.out(`fake gateway on ${url} (API v2 and v3)`);
    io.out(`  inbox: ${inbox} (open it in a browser: channels, chats, deliveries; write as the customer)`);
    io.out(`  GATEWAY_BASE_URL=${url}`);
    io.out(`  GATEWAY_TOKEN=${token}`);
    io.out(`  GATEWAY_API_KEY=${apiKey}`);
    io.out(`sends to numbers starting with ${UNREGISTERED_PREFIX} fail with bad_contact; Ctrl-C stops it`);
  }
  await stopped;
  await gateway.close();
  return EXIT.ok;
}
