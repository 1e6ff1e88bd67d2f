// A receiver that is slow or never answers, over real HTTP on 127.0.0.1: the fake holds a bounded
// number of deliveries for it and for all receivers together (some in flight, the rest waiting
// their turn), drops what comes past that, and gives up on a delivery the service would have timed
// out, so its memory stays bounded whatever the receivers do; close() ends what it holds at once.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createFakeGateway, type FakeGateway } from 'messaging-gateway-sdk/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RECEIVER_LIMITS } from '../../src/testing/receiver-queues.js';
import { listen } from '../support/servers.js';

let gateway: FakeGateway | undefined;
let closeReceiver: (() => Promise<void>) | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await gateway?.close();
  await closeReceiver?.();
  gateway = undefined;
  closeReceiver = undefined;
});

/** A receiver that holds every request open until `answer()`; counts what is open at once. */
async function heldReceiver() {
  const held: ServerResponse[] = [];
  const seen: string[] = [];
  const counts = { open: 0, most: 0 };
  const server = await listen((req: IncomingMessage, res: ServerResponse) => {
    counts.open++;
    counts.most = Math.max(counts.most, counts.open);
    res.once('close', () => counts.open--);
    let text = '';
    req.on('data', (chunk) => (text += chunk));
    req.on('end', () => {
      seen.push(text);
      held.push(res);
    });
  });
  closeReceiver = server.close;
  const answer = () => {
    for (const res of held.splice(0)) res.end('ok');
  };
  return { url: `${server.url}/hooks?secret=s`, counts, seen, answer, held };
}

async function post(path: string, body: unknown) {
  const fake = gateway as FakeGateway;
  const res = await fetch(`${fake.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${fake.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  await res.arrayBuffer();
  return res.status;
}

/** Sends `n` messages, `concurrency` at a time, through the fake's API. */
async function sendMany(n: number, concurrency = 10) {
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < n; i = next++) {
      const recipient = { chat_type: 'whatsapp', chat_id: `7900${i}` };
      expect(await post('/v2/messages', { channel_id: 'ch', recipient, text: `message ${i}` })).toBe(200);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

const held = () => (gateway as FakeGateway).deliveries.filter((d) => d.status === undefined).length;
const failed = (failure: string) =>
  (gateway as FakeGateway).deliveries.filter((d) => d.failure === failure).length;

describe('a receiver that never answers', () => {
  it('gets at most a bounded number of deliveries at once; the fake keeps a bounded line and drops the rest', async () => {
    const receiver = await heldReceiver();
    const recorded: unknown[] = [];
    gateway = await createFakeGateway({
      rateLimit: false,
      autoStatuses: false,
      channels: [{ channel_id: 'ch' }],
      onDelivery: (record) => recorded.push(record),
      // none is given up while the sends go on, however long a loaded machine takes over them:
      // a delivery given up would free a turn, and fewer would be dropped
      deliveryTimeoutMs: 2 ** 31 - 1,
    });
    expect(await post('/v2/webhooks', { data: [{ url: receiver.url, event: 'message.add' }] })).toBe(200);
    const sends = 2 * (RECEIVER_LIMITS.inFlight + RECEIVER_LIMITS.waiting);
    await sendMany(sends);
    const bound = RECEIVER_LIMITS.inFlight + RECEIVER_LIMITS.waiting;
    await expect.poll(() => failed('dropped'), { timeout: 10_000 }).toBe(sends - bound);
    await expect.poll(() => receiver.counts.open, { timeout: 10_000 }).toBe(RECEIVER_LIMITS.inFlight);
    expect(receiver.counts.most).toBe(RECEIVER_LIMITS.inFlight);
    expect(held()).toBeLessThanOrEqual(bound);
    expect(gateway.deliveries).toHaveLength(sends);
    for (const d of gateway.deliveries.filter((r) => r.status !== undefined)) {
      expect(d).toMatchObject({ status: 0, failure: 'dropped' });
    }
    // never sent, so never recorded (fake-gateway --record saves what onDelivery gets)
    expect(recorded).toEqual([]);
    console.log(
      `a receiver that never answers, ${sends} sends: ${receiver.counts.most} in flight at most, ` +
        `${held()} held, ${failed('dropped')} dropped`,
    );
  }, 60_000);

  it('gives up on a delivery once the reply time-out passes, in flight or still waiting its turn', async () => {
    const receiver = await heldReceiver();
    gateway = await createFakeGateway({ deliveryTimeoutMs: 1000 });
    expect(await post('/v2/webhooks', { data: [{ url: receiver.url, event: 'channel.create' }] })).toBe(200);
    const made = await Promise.all(
      Array.from({ length: RECEIVER_LIMITS.inFlight + 2 }, (_, i) =>
        gateway?.simulate.deliver({ event: 'channel.create', data: [{ channel_id: `c${i}` }] }),
      ),
    );
    const records = made.flat();
    expect(records.map((r) => r?.failure)).toEqual(records.map(() => 'timedOut'));
    expect(records.map((r) => r?.status)).toEqual(records.map(() => 0));
    // the receiver saw only those that had a turn (the others timed out waiting); each was cut
    expect(receiver.seen.length).toBeLessThanOrEqual(RECEIVER_LIMITS.inFlight);
    await expect.poll(() => receiver.counts.open, { timeout: 10_000 }).toBe(0);
  });
});

describe('deliveryTimeoutMs', () => {
  it.each([0, -1, 1.5, Number.NaN, 2 ** 31])('refuses %s', async (deliveryTimeoutMs) => {
    await expect(createFakeGateway({ deliveryTimeoutMs })).rejects.toThrow(/deliveryTimeoutMs/);
  });
});

describe('a slow receiver', () => {
  it('gets every delivery in the order they were made, a bounded number at a time', async () => {
    const receiver = await heldReceiver();
    gateway = await createFakeGateway();
    expect(await post('/v2/webhooks', { data: [{ url: receiver.url, event: 'channel.create' }] })).toBe(200);
    const n = RECEIVER_LIMITS.inFlight * 3;
    const made = Array.from({ length: n }, (_, i) =>
      gateway?.simulate.deliver({ event: 'channel.create', data: [{ channel_id: `c${i}` }] }),
    );
    const batches: string[][] = [];
    const idOf = (text: string) => JSON.parse(text).data[0].channel_id as string;
    for (let answered = 0; answered < n; answered += RECEIVER_LIMITS.inFlight) {
      await expect.poll(() => receiver.held.length, { timeout: 10_000 }).toBe(RECEIVER_LIMITS.inFlight);
      batches.push(receiver.seen.splice(0).map(idOf).sort());
      receiver.answer();
    }
    const statuses = (await Promise.all(made)).flat().map((r) => r?.status);
    expect(statuses).toEqual(Array.from({ length: n }, () => 200));
    expect(receiver.counts.most).toBe(RECEIVER_LIMITS.inFlight);
    // in the order made: each turn goes to the oldest waiting (those in flight together may land in any order)
    const ids = Array.from({ length: n }, (_, i) => `c${i}`);
    const per = RECEIVER_LIMITS.inFlight;
    const expected = batches.map((_, b) => ids.slice(b * per, (b + 1) * per).sort());
    expect(batches).toEqual(expected);
  });
});

/** A receiver that never answers; counts the requests it holds open. */
async function silentReceiver() {
  const counts = { open: 0 };
  const server = await listen((req: IncomingMessage, res: ServerResponse) => {
    counts.open++;
    res.once('close', () => counts.open--);
    req.resume();
  });
  return { ...server, counts };
}

/** Subscribes `url` to `event` through the fake's API. */
async function subscribe(url: string, event: string) {
  expect(await post('/v2/webhooks', { data: [{ url, event }] })).toBe(200);
}

/** `n` channel.create deliveries, made at once. */
const deliverMany = (n: number) =>
  Array.from({ length: n }, (_, i) =>
    (gateway as FakeGateway).simulate.deliver({ event: 'channel.create', data: [{ channel_id: `c${i}` }] }),
  );

describe('close(), with deliveries in flight and waiting for a receiver that never answers', () => {
  it('abandons them all, repeats on, and sends nothing more', async () => {
    const receiver = await heldReceiver();
    // with a reply time-out this long, only close() can end what the receiver holds
    const fake = await createFakeGateway({ repeats: true, deliveryTimeoutMs: 2 ** 31 - 1 });
    gateway = fake;
    await subscribe(receiver.url, 'channel.create');
    const made = deliverMany(RECEIVER_LIMITS.inFlight + 2);
    await expect.poll(() => receiver.held.length, { timeout: 10_000 }).toBe(RECEIVER_LIMITS.inFlight);
    gateway = undefined;
    await fake.close();
    const records = (await Promise.all(made)).flat();
    expect(records.map((r) => [r.status, r.failure])).toEqual(records.map(() => [0, 'closed']));
    expect(receiver.seen).toHaveLength(RECEIVER_LIMITS.inFlight); // the repeats were never sent
  });
});

describe('a test that sets the system clock back (vi.setSystemTime) while deliveries wait', () => {
  it('leaves each waiting delivery its turn, then its answer', async () => {
    const receiver = await heldReceiver();
    gateway = await createFakeGateway();
    await subscribe(receiver.url, 'channel.create');
    const made = deliverMany(RECEIVER_LIMITS.inFlight + 2);
    await expect.poll(() => receiver.held.length, { timeout: 10_000 }).toBe(RECEIVER_LIMITS.inFlight);
    vi.setSystemTime(new Date('2020-01-01T00:00:00Z')); // Date only: the timers stay real
    receiver.answer();
    await expect.poll(() => receiver.held.length, { timeout: 10_000 }).toBe(2);
    receiver.answer();
    const records = (await Promise.all(made)).flat();
    expect(records.map((r) => r.status)).toEqual(records.map(() => 200));
  });
});

describe('many receivers that never answer', () => {
  it(`hold at most ${RECEIVER_LIMITS.inFlightInAll} deliveries in flight and ${RECEIVER_LIMITS.waitingInAll} waiting in all`, async () => {
    const { inFlight, waiting, inFlightInAll, waitingInAll } = RECEIVER_LIMITS;
    const n = Math.ceil(waitingInAll / waiting) + 2;
    const receivers = await Promise.all(Array.from({ length: n }, silentReceiver));
    const open = () => receivers.reduce((sum, r) => sum + r.counts.open, 0);
    try {
      gateway = await createFakeGateway({ maxRecords: 20_000 });
      for (const r of receivers) await subscribe(`${r.url}/hooks`, 'channel.create');
      const events = inFlight + waiting + 1;
      void Promise.all(deliverMany(events));
      await expect
        .poll(() => failed('dropped'), { timeout: 10_000 })
        .toBe(n * events - inFlightInAll - waitingInAll);
      await expect.poll(open, { timeout: 10_000 }).toBe(inFlightInAll);
      expect(held()).toBe(inFlightInAll + waitingInAll);
    } finally {
      await gateway?.close();
      gateway = undefined;
      await Promise.all(receivers.map((r) => r.close()));
    }
  });
});
