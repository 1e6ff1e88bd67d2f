// The bin's local webhook receiver: a node:http server running a WebhookHandler, subscribed (API v2)
// for the events a command needs, with a secret made for this run. Closing it removes what it
// subscribed and stops the server.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { GatewayClient } from '../client.js';
import type { V2EventName } from '../schemas/subscriptions.js';
import { createNodeMiddleware } from '../webhooks/adapters/node.js';
import { WebhookHandler } from '../webhooks/receive/handler.js';
import { type Io, UsageError } from './io.js';

/** What a command's receiver listens on and subscribes to. */
export interface ReceiverOptions {
  /** The client whose account is subscribed. */
  client: GatewayClient;
  /** Port on `host`; 0 takes a free one. */
  port: number;
  /** @default '127.0.0.1' */
  host?: string;
  /**
   * The address the service delivers to when it cannot reach this machine (a tunnel to `port`);
   * the run's secret is added to its query. Default: `http://127.0.0.1:<port>/hooks`.
   */
  publicUrl?: string;
  /** The v2 events to subscribe to. */
  events: readonly V2EventName[];
  /** Stops subscribing (Ctrl-C): what the service made is removed, the server stopped. */
  signal?: AbortSignal;
}

/** A running receiver. */
export interface Receiver {
  /** The handler: listen on it, or give it to `channels.connect`. */
  hooks: WebhookHandler;
  /** The subscribed address without its query (the secret): printable. */
  shownUrl: string;
  /** Removes the subscriptions it made and stops the server; safe to call twice. */
  close(): Promise<void>;
}

/** `--listen 3000` → 3000; a usage error otherwise. */
export function parsePort(text: string | undefined): number {
  const port = Number(text);
  if (text === undefined || !/^\d+$/.test(text) || port > 65535)
    throw new UsageError('--listen takes a port number (0 to 65535; 0 for a free one)');
  return port;
}

/** The address with the secret in its query, as the handler checks it. */
function subscribedUrl(base: string, secret: string): URL {
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw new UsageError('--public-url is not a URL (e.g. https://abc.example.net/hooks)');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError('--public-url takes an http(s) URL');
  url.searchParams.set('secret', secret);
  return url;
}

/** Removes the account's subscriptions whose URL holds `secret` (this run's own). */
async function removeSubscriptionsOf(client: GatewayClient, secret: string): Promise<void> {
  const secretOf = (href: string) => URL.parse(href)?.searchParams.get('secret');
  const ids = (await client.webhooks.list()).filter((s) => secretOf(s.url) === secret).map((s) => s.id);
  if (ids.length) await client.webhooks.unsubscribe(ids);
}

/**
 * Starts the receiver, then subscribes its address (`webhooks.ensure`) to `events`. The server
 * answers on every path, so a tunnel may forward to any of them.
 */
export async function startReceiver(options: ReceiverOptions): Promise<Receiver> {
  const secret = randomBytes(24).toString('base64url');
  const hooks = new WebhookHandler({ secret });
  const server = createServer(createNodeMiddleware(hooks));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const url = subscribedUrl(options.publicUrl ?? `http://127.0.0.1:${port}/hooks`, secret);
  const stopServer = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  let ids: string[] = [];
  try {
    // The URL holds this run's secret, so every subscription of it is this run's own.
    const ensured = await options.client.webhooks.ensure(url.href, options.events, {
      ...(options.signal && { signal: options.signal }),
    });
    ids = ensured.map((s) => s.id);
  } catch (error) {
    // the service may have made them before its answer was lost: remove what carries the secret
    await removeSubscriptionsOf(options.client, secret).catch(() => {});
    await stopServer();
    throw error;
  }
  let closing: Promise<void> | undefined;
  return {
    hooks,
    shownUrl: `${url.origin}${url.pathname}`,
    close: () => {
      closing ??= (async () => {
        try {
          if (ids.length) await options.client.webhooks.unsubscribe(ids);
        } finally {
          await hooks.drain();
          await stopServer();
        }
      })();
      return closing;
    },
  };
}

/**
 * Closes a command's receiver at its end; a failed removal of its subscriptions is reported on
 * standard error (its class only), never in place of the command's own result or error.
 */
export async function closeReceiver(receiver: Receiver | undefined, io: Io): Promise<void> {
  await receiver
    ?.close()
    .catch((error: Error) => io.err(`could not remove the subscriptions: ${error.name}`));
}
