import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Starts a node:http server on 127.0.0.1; returns its address and a closer. */
export async function listen(
  listener: RequestListener | Server,
): Promise<{ url: string; close: () => Promise<void> }> {
  const server = typeof listener === 'function' ? createServer(listener) : listener;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** A loopback port free right now (nothing listens on it once this resolves). */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/**
 * A service that answers its first request with `status` and the JSON `body`, then stops
 * listening: every later request is refused (ECONNREFUSED), as by a service gone away.
 */
export async function answeringOnce(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ url: string; reached: () => number }> {
  let reached = 0;
  const server = await listen((req, res) => {
    req.resume();
    reached++;
    res.on('finish', () => void server.close());
    res
      .writeHead(status, { 'content-type': 'application/json', connection: 'close', ...headers })
      .end(JSON.stringify(body));
  });
  return { url: server.url, reached: () => reached };
}
