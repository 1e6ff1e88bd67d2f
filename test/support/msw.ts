import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { GatewayClient } from '../../src/client.js';
import type { ClientOptions } from '../../src/core/options.js';

/** Base addresses the msw tests use (msw intercepts; nothing leaves the process). */
export const BASE = 'https://gateway.test/api';
export const V3_BASE = 'https://v3.gateway.test';
export const TOKEN = 'tok_live_0123456789abcdef';
export const API_KEY = 'key_live_fedcba9876543210';

/** One request the code under test made. */
export interface Seen {
  method: string;
  url: URL;
  authorization: string | null;
  contentType: string | null;
  /** Every request header, as sent. */
  headers: Headers;
  body: unknown;
}

/** Starts msw for the file, fails on any unhandled request, and logs every request seen. */
export function useMsw() {
  const server = setupServer();
  const seen: Seen[] = [];
  let reads: Promise<void>[] = [];
  // Logged at once, so a call that fails fast is still counted; the body is read after.
  server.events.on('request:start', ({ request }) => {
    const entry: Seen = {
      method: request.method,
      url: new URL(request.url),
      authorization: request.headers.get('authorization'),
      contentType: request.headers.get('content-type'),
      headers: new Headers(request.headers),
      body: undefined,
    };
    seen.push(entry);
    reads.push(
      request
        .clone()
        .text()
        .then((text) => {
          entry.body = text === '' ? undefined : JSON.parse(text);
        }),
    );
  });
  beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
  afterEach(async () => {
    server.resetHandlers();
    await Promise.allSettled(reads);
    reads = [];
    seen.length = 0;
  });
  afterAll(() => server.close());
  /** Resolves when every logged request's body has been read. */
  const settle = async () => {
    await Promise.all(reads);
  };
  return { server, seen, settle };
}

/**
 * A client aimed at the msw addresses, with fast backoff so retry tests stay quick, and its log
 * off (the tests of logging turn it on).
 */
export function testClient(options: ClientOptions = {}): GatewayClient {
  return new GatewayClient({
    baseUrl: BASE,
    v3BaseUrl: V3_BASE,
    token: TOKEN,
    apiKey: API_KEY,
    retryBackoff: { initialDelayMs: 1, maxDelayMs: 50 },
    logLevel: 'off',
    ...options,
  });
}

/** A valid text send to a whatsapp number. */
export const textMessage = {
  channel_id: 'ch-1',
  recipient: { chat_type: 'whatsapp', chat_id: '79001234567' },
  text: 'Hello',
} as const;
