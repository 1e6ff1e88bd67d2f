import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import {
  type GatewayAbortError,
  GatewayValidationError,
  InternalServerError,
} from '../../src/core/errors.js';
import type { SendManyProgress } from '../../src/resources/send-many.js';
import type { SendMessageParams } from '../../src/schemas/messages.js';
import { BASE, testClient, useMsw } from '../support/msw.js';

const { server, seen, settle } = useMsw();
const msg = (text: string): SendMessageParams => ({
  channel_id: 'ch',
  recipient: { chat_type: 'whatsapp', chat_id: '79001234567' },
  text,
});

/** Answers each send with request_id = its text, after `delayMs`; texts starting with "fail" get 500. */
function echo(delayMs = 0, inFlight = { now: 0, max: 0 }) {
  return http.post(`${BASE}/v2/messages`, async ({ request }) => {
    inFlight.now++;
    inFlight.max = Math.max(inFlight.max, inFlight.now);
    const { text } = (await request.json()) as { text: string };
    await new Promise((r) => setTimeout(r, delayMs));
    inFlight.now--;
    if (text.startsWith('fail')) return HttpResponse.json({ error: 'internal' }, { status: 500 });
    return HttpResponse.json({ data: { request_id: text, chat_id: 'c' } });
  });
}

describe('messages.sendMany', () => {
  it('returns one result per item, in input order, and never rejects for one item', async () => {
    server.use(echo());
    const items = [msg('a'), msg('fail-b'), { ...msg('c'), text: undefined } as never, msg('d')];
    const results = await testClient().messages.sendMany(items);
    expect(results.map((r) => r.ok)).toEqual([true, false, false, true]);
    expect(results[0]).toEqual({ ok: true, value: { request_id: 'a', chat_id: 'c' } });
    expect(results[1]?.ok === false && results[1].error).toBeInstanceOf(InternalServerError);
    expect(results[2]?.ok === false && results[2].error).toBeInstanceOf(GatewayValidationError);
    expect(results[3]).toMatchObject({ ok: true, value: { request_id: 'd' } });
    await settle();
    expect(seen).toHaveLength(3); // the invalid item made no request
  });

  it('reports progress after each item', async () => {
    server.use(echo());
    const progress: SendManyProgress[] = [];
    await testClient().messages.sendMany([msg('a'), msg('fail-b'), msg('c')], {
      onProgress: (p) => progress.push(p),
    });
    expect(progress).toHaveLength(3);
    expect(progress.at(-1)).toEqual({ done: 3, failed: 1, total: 3 });
    expect(progress.map((p) => p.done)).toEqual([1, 2, 3]);
  });

  it('keeps at most `concurrency` sends in flight (default 8)', async () => {
    const inFlight = { now: 0, max: 0 };
    server.use(echo(15, inFlight));
    await testClient().messages.sendMany(Array.from({ length: 30 }, (_, i) => msg(`m${i}`)));
    expect(inFlight.max).toBe(8);
    inFlight.max = 0;
    await testClient().messages.sendMany(
      Array.from({ length: 10 }, (_, i) => msg(`m${i}`)),
      { concurrency: 3 },
    );
    expect(inFlight.max).toBe(3);
  });

  it('stops the items not yet started on abort; they report the abort error', async () => {
    server.use(echo(10));
    const controller = new AbortController();
    const reason = new Error('shutting down');
    // Abort as soon as two items are done: deterministic, whatever the machine's speed.
    const onProgress = ({ done }: SendManyProgress) => {
      if (done === 2) controller.abort(reason);
    };
    const results = await testClient().messages.sendMany(
      Array.from({ length: 20 }, (_, i) => msg(`m${i}`)),
      { concurrency: 2, signal: controller.signal, onProgress },
    );
    expect(results).toHaveLength(20);
    expect(results.slice(0, 2).every((r) => r.ok)).toBe(true);
    // The item in flight when the abort came, and every item not yet started, report the abort.
    expect(
      results
        .slice(3)
        .every((r) => !r.ok && r.error.name === 'GatewayAbortError' && r.error.cause === reason),
    ).toBe(true);
    // The address of the call, full, as every other error of the client gives it.
    const stopped = results.at(-1) as { ok: false; error: GatewayAbortError };
    expect(stopped.error.message).toBe(`POST ${BASE}/v2/messages: aborted by the caller`);
    expect(seen.length).toBeLessThanOrEqual(4);
  });

  it('goes through the client’s rate limiter', async () => {
    server.use(echo());
    const client = testClient({ rateLimit: { requests: 2, intervalMs: 100 } });
    const t0 = performance.now();
    const results = await client.messages.sendMany(Array.from({ length: 5 }, (_, i) => msg(`m${i}`)));
    expect(results.every((r) => r.ok)).toBe(true);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(195);
  });

  it('returns an empty list for no items', async () => {
    await expect(testClient().messages.sendMany([])).resolves.toEqual([]);
  });
});
