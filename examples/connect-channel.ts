// Connect a whatsapp account in one loop: create the channel, show each QR, answer the 2FA
// password, until it is active. Without GATEWAY_BASE_URL/GATEWAY_TOKEN it runs against the
// package's fake gateway (the "customer" scans with simulate.scan); against a real gateway it
// needs PUBLIC_WEBHOOK_URL, an address of this machine the service can reach (port 8787 here).
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GatewayClient } from 'messaging-gateway-sdk';
import { createFakeGateway } from 'messaging-gateway-sdk/testing';
import { createNodeMiddleware, WebhookHandler } from 'messaging-gateway-sdk/webhooks';

const { GATEWAY_BASE_URL, GATEWAY_TOKEN, PUBLIC_WEBHOOK_URL } = process.env;
const real = Boolean(GATEWAY_BASE_URL && GATEWAY_TOKEN);
if (real && !PUBLIC_WEBHOOK_URL) {
  console.log(
    'Set PUBLIC_WEBHOOK_URL (this machine, port 8787, reachable by the service) to run this example.',
  );
  process.exit(0);
}
const gateway = real ? undefined : await createFakeGateway({ autoScan: false });
const client = gateway
  ? new GatewayClient({ baseUrl: gateway.url, token: gateway.token, apiKey: gateway.apiKey })
  : new GatewayClient();

const secret = 'example-secret';
const hooks = new WebhookHandler({ secret });
const server = createServer(createNodeMiddleware(hooks));
await new Promise<void>((resolve) => server.listen(real ? 8787 : 0, resolve));
const port = (server.address() as { port: number }).port;
const hookUrl = `${PUBLIC_WEBHOOK_URL ?? `http://127.0.0.1:${port}/`}?secret=${secret}`;
// Subscribe before creating: the QR arrives by webhook.
await client.webhooks.subscribe([
  { url: hookUrl, event: 'channel.qr_update' },
  { url: hookUrl, event: 'channel.status_update' },
]);

const connection = client.channels.connect(
  { transport: 'whatsapp', credentials: {} },
  { hooks, timeoutMs: 300_000 },
);
try {
  for await (const step of connection) {
    switch (step.kind) {
      case 'created':
        console.log(`channel ${step.channelId} created`);
        break;
      case 'qr':
        await writeFile(join(tmpdir(), 'channel-qr.png'), step.png);
        console.log(`QR saved to ${join(tmpdir(), 'channel-qr.png')}: scan it in WhatsApp → Linked devices`);
        // The fake's customer scans it, with 2FA on.
        if (gateway) await gateway.simulate.scan(step.channelId, { password: 'example-2fa' });
        break;
      case 'password':
        await connection.submit2fa(gateway ? 'example-2fa' : (process.env.TWO_FACTOR_CODE ?? ''));
        break;
      case 'active':
        console.log(`channel ${step.channelId} is active`);
        break;
    }
  }
} finally {
  server.closeAllConnections();
  server.close();
  await gateway?.close();
}
