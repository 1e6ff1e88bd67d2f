// docs/errors-and-retries.md run as written, in one process: the retry decision on a 429, the
// send-job worker, the client's options, a client through a real HTTP proxy on 127.0.0.1, pino at
// debug, withResponse and headers.
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { BLOCK_RUN_TIMEOUT_MS, CHANNEL_ID, useGuide } from './guide.js';

const guide = useGuide('docs/errors-and-retries.md', { gateway: true });

/** A CONNECT proxy (as corporate proxies and undici's ProxyAgent speak it) that records each tunnel. */
async function connectProxy() {
  const tunnels: { target: string; authorization: string | undefined }[] = [];
  const server: Server = createServer((_req, res) => res.writeHead(405).end());
  server.on('connect', (req, socket, head) => {
    tunnels.push({ target: String(req.url), authorization: req.headers['proxy-authorization'] });
    const [host, port] = String(req.url).split(':');
    const upstream = connect(Number(port), host, () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(socket).pipe(upstream);
    });
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://crm:proxy-password@127.0.0.1:${port}`,
    tunnels,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('docs/errors-and-retries.md', () => {
  it('every block, in order: a 429 left to the queue, the send-job decisions, a call through a proxy, pino at debug, withResponse, headers', {
    timeout: BLOCK_RUN_TIMEOUT_MS,
  }, async () => {
    const { gateway } = guide;
    // The first send meets a 429 on each of its three attempts (the first and two repeats).
    gateway.failNext('POST', '/v2/messages', { status: 429, headers: { 'retry-after': '1' }, times: 3 });
    const proxy = await connectProxy();
    try {
      const { code, stdout, stderr } = await guide.run(
        [
          'Errors, retries and the rate limit',
          'Did the request leave? `requestSent`',
          'How the client repeats and waits',
          'Through an HTTP proxy',
          'Logging, request ids and headers',
        ],
        { env: { HTTPS_PROXY: proxy.url } },
      );
      expect(code, stderr).toBe(0);
      const lines = stdout.trimEnd().split('\n');
      expect(lines.slice(0, 4)).toEqual(['retry later, in 1000 ms', 'retry', 'check the chat', 'done']);
      // Through the proxy: a tunnel to the fake gateway, authenticated with the URL's user and password.
      expect(stdout).toContain(`channel_id: '${CHANNEL_ID}'`);
      expect(proxy.tunnels).toEqual([
        {
          target: new URL(gateway.url).host,
          authorization: `Basic ${Buffer.from('crm:proxy-password').toString('base64')}`,
        },
      ]);
      // pino at debug: one JSON line per attempt.
      const pino = lines.map((line) => (line.startsWith('{') ? JSON.parse(line) : undefined)).filter(Boolean);
      expect(pino).toEqual([
        expect.objectContaining({
          level: 20,
          msg: expect.stringMatching(/^\[messaging-gateway-sdk\] GET \/v2\/channels 200 attempt=1 /),
        }),
      ]);
      expect(lines.at(-1)).toMatch(/^200 \S+ [0-9a-f-]{36}$/);
      const listed = gateway.requests.filter((r) => r.path === '/v2/channels');
      expect(listed.at(-1)?.headers).toMatchObject({ 'x-tenant': 'acme', 'x-correlation-id': 'job-42' });
      // The 429s were logged at warn, the client's default level; nothing else went to standard error.
      expect(
        stderr.split('\n').filter((line) => line && !line.startsWith('[messaging-gateway-sdk]')),
      ).toEqual([]);
    } finally {
      await proxy.close();
    }
  });

  guide.itRanEveryMarkedBlock();
});
