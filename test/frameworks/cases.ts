// The deliveries every framework test sends through a real server of that framework on
// 127.0.0.1: each adapter must pass the same cases, or state why a case is the framework's own
// answer, so no adapter keeps a second copy of the pipeline's rules.
import { createRequire } from 'node:module';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { GatewayError } from '../../src/core/errors.js';
import type { Webhook } from '../../src/webhooks/decode/parse.js';
import type { ErrorContext } from '../../src/webhooks/receive/events.js';
import { WebhookHandler } from '../../src/webhooks/receive/handler.js';
import { messageAdd } from '../support/deliveries.js';
import { fixture } from '../support/fixtures.js';

/** The framework matrix runs once in CI (on Node 24); the Node 22 run sets this. */
export const skipFrameworks = process.env.SKIP_FRAMEWORK_TESTS === '1';

export const SECRET = 'hook-secret';
export const CRM_KEY = 'crm-key';
/** Small, so a 413 costs little; the frameworks' own limits are set around it. */
export const MAX_BODY_BYTES = 64 * 1024;

/** The major version of an installed package (an alias such as `express4` included). */
export function majorOf(name: string): string {
  const { version } = createRequire(import.meta.url)(`${name}/package.json`) as { version: string };
  return version.split('.')[0] ?? '';
}

/** A running receiver: its base address and a closer. */
export interface Receiver {
  url: string;
  close(): Promise<void>;
}

/** How a set-up differs from an adapter that owns its route's body. */
export interface CaseOptions {
  /** Path of the webhook route. Default `/hooks`. */
  path?: string;
  /**
   * A global parser answers malformed JSON itself (this status) before the SDK sees it: out of
   * the SDK's reach, so no 'error' is expected.
   */
  malformedAnsweredBy?: number;
  /** The adapter reads the body itself: a chunked body over maxBodyBytes is cut off at 413. */
  ownsBody?: boolean;
  /** The framework's own body limit, below maxBodyBytes: a delivery between the two must pass. */
  frameworkLimitBytes?: number;
}

/** The handler every framework test serves: secret and crmKey, a CRM responder, errors collected. */
export function frameworkHandler() {
  const hooks = new WebhookHandler({
    secret: SECRET,
    v3AuthToken: CRM_KEY,
    maxBodyBytes: MAX_BODY_BYTES,
    dispatch: 'await',
  });
  const received: Webhook[] = [];
  const errors: [GatewayError, ErrorContext][] = [];
  hooks.on('webhook', (webhook) => void received.push(webhook));
  hooks.on('error', (error, context) => void errors.push([error, context]));
  hooks.respond('crm_entities.contact_add', ({ data }) => ({ id: 'crm-1', name: data[0]?.name ?? '' }));
  return { hooks, received, errors };
}

const text = (value: unknown) =>
  typeof value === 'string' ? value : new TextDecoder().decode(value as Uint8Array);

/** A message.add of about `bytes` bytes: an extra field pads it (unknown fields are kept). */
function paddedMessageAdd(bytes: number): string {
  const body = JSON.parse(messageAdd()) as Record<string, unknown>;
  body.pad = 'x'.repeat(bytes);
  return JSON.stringify(body);
}

/** A body sent chunked (no content-length), `total` bytes in 16 KiB pieces. */
function chunked(total: number): ReadableStream<Uint8Array> {
  let sent = 0;
  const piece = new TextEncoder().encode(`{"pad":"${'x'.repeat(16 * 1024)}`);
  return new ReadableStream({
    pull(controller) {
      if (sent >= total) return controller.close();
      controller.enqueue(piece);
      sent += piece.byteLength;
    },
  });
}

/**
 * Registers the delivery cases against the receiver `start` builds around the handler: v2, v3
 * with `application/json; charset-utf-8` and Bearer, a CRM reply, a duplicate, a wrong secret,
 * malformed JSON, 413.
 */
export function deliveryCases(
  name: string,
  start: (hooks: WebhookHandler) => Promise<Receiver>,
  options: CaseOptions = {},
): void {
  describe.skipIf(skipFrameworks)(name, () => {
    const { hooks, received, errors } = frameworkHandler();
    const path = options.path ?? '/hooks';
    let receiver: Receiver;
    const post = (body: BodyInit, init: { query?: string; headers?: Record<string, string> } = {}) =>
      fetch(`${receiver.url}${path}${init.query ?? `?secret=${SECRET}`}`, {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json', ...init.headers },
        ...(body instanceof ReadableStream ? { duplex: 'half' } : {}),
      } as RequestInit);

    beforeAll(async () => {
      receiver = await start(hooks);
    });
    afterAll(() => receiver?.close());
    beforeEach(() => {
      received.length = 0;
      errors.length = 0;
    });

    it('answers a v2 message.add 200 and runs its listeners', async () => {
      const answer = await post(messageAdd(undefined, 'привет'));
      expect([answer.status, await answer.json()]).toEqual([200, { ok: true }]);
      expect(received.map((w) => w.api === 'v2' && w.event === 'message.add' && w.data[0]?.text)).toEqual([
        'привет',
      ]);
      expect(errors).toEqual([]);
    });

    it('answers a v3 delivery with application/json; charset-utf-8 and Bearer <crmKey>', async () => {
      const body = JSON.stringify(fixture('v3', 'messages--inbound-text'));
      const answer = await post(body, {
        query: '',
        headers: { 'content-type': 'application/json; charset-utf-8', authorization: `Bearer ${CRM_KEY}` },
      });
      expect(answer.status).toBe(200);
      expect(received.map((w) => w.api === 'v3' && w.type)).toEqual(['messagesAndStatuses']);
    });

    it('answers a CRM request with the responder’s reply', async () => {
      const body = fixture('v2', 'crm_entities.contact_add') as { meta: { idempotency_key: string } };
      body.meta.idempotency_key = crypto.randomUUID();
      const answer = await post(JSON.stringify(body));
      expect([answer.status, await answer.json()]).toEqual([200, { id: 'crm-1', name: 'Alice' }]);
    });

    it('answers a duplicate 200 without running the listeners again', async () => {
      const body = messageAdd();
      expect((await post(body)).status).toBe(200);
      const again = await post(body);
      expect([again.status, await again.json()]).toEqual([200, { ok: true, duplicate: true }]);
      expect(received).toHaveLength(1);
    });

    it('refuses a wrong secret 401 and reports it on "error"', async () => {
      const answer = await post(messageAdd(), { query: '?secret=wrong' });
      expect(answer.status).toBe(401);
      expect(errors.map(([, context]) => context.stage)).toEqual(['auth']);
      expect(received).toEqual([]);
    });

    if (options.malformedAnsweredBy === undefined) {
      it('answers malformed JSON 400 and reports it on "error" with the raw body', async () => {
        const answer = await post('{"event":"message.add",');
        expect(answer.status).toBe(400);
        expect(errors.map(([, context]) => context.stage)).toEqual(['decode']);
        expect(text(errors[0]?.[1].rawBody)).toBe('{"event":"message.add",');
      });
    } else {
      const status = options.malformedAnsweredBy;
      it(`leaves malformed JSON to the global parser, which answers ${status} (out of the SDK's reach)`, async () => {
        const answer = await post('{"event":"message.add",');
        expect(answer.status).toBe(status);
        expect(errors).toEqual([]);
      });
    }

    it('answers a body over maxBodyBytes 413', async () => {
      const answer = await post(paddedMessageAdd(MAX_BODY_BYTES + 1024));
      expect(answer.status).toBe(413);
      expect(received).toEqual([]);
    });

    if (options.ownsBody) {
      it('stops reading a chunked body at maxBodyBytes and answers 413', async () => {
        const answer = await post(chunked(4 * MAX_BODY_BYTES));
        expect(answer.status).toBe(413);
      });
    }

    const limit = options.frameworkLimitBytes;
    if (limit !== undefined) {
      it(`reads a delivery over the framework's own limit (${limit} bytes) up to maxBodyBytes`, async () => {
        const answer = await post(paddedMessageAdd(limit * 4));
        expect(answer.status).toBe(200);
        expect(received).toHaveLength(1);
      });
    }
  });
}
