// Every failure a GatewayError, every answer read within its bounds: over real HTTP on 127.0.0.1.
import { brotliCompressSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { GatewayError, GatewayResponseError, MessageFailedError } from '../../src/core/errors.js';
import { GatewayClient } from '../../src/index.js';
import { listen } from '../support/servers.js';

describe('A token function that throws', () => {
  it('gives a GatewayError (retryable) with its error as cause, and no request is made', async () => {
    let requests = 0;
    const server = await listen((_req, res) => {
      requests++;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":[]}');
    });
    try {
      const failure = new Error('vault unreachable');
      const client = new GatewayClient({
        baseUrl: `${server.url}/v2`,
        token: () => {
          throw failure;
        },
        rateLimit: false,
      });
      const error = await client.channels.list().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(GatewayError);
      expect(error).toMatchObject({ retryable: true, cause: failure });
      expect((error as Error).message).toMatch(/token \(GATEWAY_TOKEN\) function failed: vault unreachable/);
      expect(requests).toBe(0);
    } finally {
      await server.close();
    }
  });
});

describe('MessageFailedError.retryable follows the reasons the spec calls temporary', () => {
  it.each([
    ['network_error', true],
    ['to_many_requests', true],
    ['message_channel_unavailable', true],
    ['MESSAGE_CHANNEL_busy', true],
    ['bad_contact', false],
    ['waba_rejected_by_marketing', false],
  ])('%s → %s', (reason, retryable) => {
    expect(new MessageFailedError({ reason, requestId: 'r', messageId: null }).retryable).toBe(retryable);
  });
});

describe('maxResponseBytes bounds what an answer may take, after decompression', () => {
  it('a 1.6 KB brotli body expanding to 1 GiB is cut at the bound: GatewayResponseError, accepted for a write', async () => {
    const bomb = brotliCompressSync(Buffer.alloc(64 * 1024 * 1024, 0x20)); // 64 MiB of spaces
    const server = await listen((_req, res) => {
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-encoding': 'br',
        'content-length': String(bomb.byteLength),
      });
      res.end(bomb);
    });
    try {
      const client = new GatewayClient({
        token: 't',
        baseUrl: `${server.url}/v2`,
        rateLimit: false,
        maxResponseBytes: 1024 * 1024,
      });
      const before = process.memoryUsage().arrayBuffers;
      const send = await client.messages
        .send({ channel_id: 'c', recipient: { chat_type: 'whatsapp', chat_id: '79001234567' }, text: 'x' })
        .catch((e: unknown) => e);
      expect(send).toBeInstanceOf(GatewayResponseError);
      expect(send).toMatchObject({ status: 200, accepted: true, retryable: false });
      expect((send as Error).message).toMatch(/over maxResponseBytes \(1048576\)/);
      const list = await client.channels.list().catch((e: unknown) => e);
      expect(list).toMatchObject({ name: 'GatewayResponseError', accepted: false });
      expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(32 * 1024 * 1024);
    } finally {
      await server.close();
    }
  });

  it('refuses a maxResponseBytes that is not a positive whole number, naming the option', () => {
    const options = { token: 't', baseUrl: 'http://127.0.0.1:9/v2', maxResponseBytes: 0 };
    expect(() => new GatewayClient(options)).toThrow(/maxResponseBytes/);
  });
});

describe('Credentials in errors', () => {
  it('redacts a token the service echoes back URL-encoded or in base64', async () => {
    const token = 'tok/en+with=specials';
    const forms = [encodeURIComponent(token), btoa(token), btoa(token).replace(/=+$/, '')];
    const server = await listen((_req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'unauthorized', description: forms.join(' | ') }));
    });
    try {
      const client = new GatewayClient({ token, baseUrl: `${server.url}/v2`, rateLimit: false });
      const error = await client.channels.list().catch((e: unknown) => e);
      const shown = `${JSON.stringify(error)} ${(error as Error).message}`;
      for (const form of [...forms, token]) expect(shown).not.toContain(form);
      expect(shown).toContain('[redacted]');
    } finally {
      await server.close();
    }
  });

  it('says a non-ASCII token cannot be sent in a header, without showing it', async () => {
    const client = new GatewayClient({
      token: 'tökén-umlauts',
      baseUrl: 'http://127.0.0.1:9/v2',
      rateLimit: false,
    });
    const error = await client.channels.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as Error).message).toMatch(/not sendable in an HTTP header \(non-ASCII/);
    expect((error as Error).message).not.toContain('tökén');
  });
});

describe('An edit text is bounded', () => {
  it('refuses 4097 characters before sending (4096 is the largest limit of the channels that edit)', async () => {
    const client = new GatewayClient({ token: 't', baseUrl: 'http://127.0.0.1:9/v2', rateLimit: false });
    const error = await client.messages.edit('m-1', { text: 'x'.repeat(4097) }).catch((e: unknown) => e);
    expect((error as Error).name).toBe('GatewayValidationError');
    expect((error as Error).message).toMatch(/at most 4096/);
  });
});
