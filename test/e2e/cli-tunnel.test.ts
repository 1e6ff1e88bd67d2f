// docs/command-line.md's tunnel recipe, with a TCP forwarder on 127.0.0.1 standing in for
// cloudflared or ngrok: `send --wait --listen <port> --public-url <the tunnel's address>` hears
// its statuses through the tunnel, and removes its subscription at the end.
import { connect, createServer, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { GatewayClient } from '../../src/client.js';
import { createFakeGateway, type FakeGateway } from '../../src/testing/fake-gateway.js';
import { BIN_RUNS_TIMEOUT_MS, runBin } from '../support/run-bin.js';
import { freePort } from '../support/servers.js';

/** Forwards every connection to `target` on 127.0.0.1, as a tunnel does; counts them. */
async function tunnelTo(target: number) {
  const sockets = new Set<Socket>();
  let connections = 0;
  const server = createServer((socket) => {
    connections++;
    const upstream = connect(target, '127.0.0.1');
    for (const s of [socket, upstream]) {
      sockets.add(s);
      s.on('error', () => {});
      s.on('close', () => sockets.delete(s));
    }
    socket.pipe(upstream).pipe(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    connections: () => connections,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

let gateway: FakeGateway;
afterEach(async () => {
  await gateway?.close();
});

describe('the tunnel recipe', { timeout: BIN_RUNS_TIMEOUT_MS }, () => {
  it('send --wait --listen <port> --public-url <tunnel>/hooks: the statuses arrive through the tunnel', async () => {
    gateway = await createFakeGateway({ stepMs: 5 });
    const client = new GatewayClient({ baseUrl: gateway.url, token: gateway.token, maxRetries: 0 });
    const [created] = await client.channels.create({ transport: 'whatsapp', credentials: {} });
    const port = await freePort();
    const tunnel = await tunnelTo(port);
    try {
      const { code, stdout, stderr } = await runBin(
        [
          'send',
          '--channel',
          created?.channel_id as string,
          '--to',
          'whatsapp:79001234567',
          '--text',
          'Hi',
          '--wait',
          'delivered',
          '--listen',
          String(port),
          '--public-url',
          `${tunnel.url}/hooks`,
        ],
        '',
        { GATEWAY_BASE_URL: gateway.url, GATEWAY_TOKEN: gateway.token },
      );
      expect([code, stderr]).toEqual([0, '']);
      expect(stdout).toMatch(/\nstatus: delivered\n$/);
      expect(tunnel.connections()).toBeGreaterThan(0);
      // Every delivery went to the tunnel's address, the secret in its query.
      const urls = new Set(gateway.deliveries.map((d) => new URL(d.url).origin + new URL(d.url).pathname));
      expect([...urls]).toEqual([`${tunnel.url}/hooks`]);
      expect(await client.webhooks.list()).toEqual([]);
    } finally {
      await tunnel.close();
    }
  });
});
