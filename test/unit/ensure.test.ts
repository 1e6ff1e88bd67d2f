import fc from 'fast-check';
import { HttpResponse, http } from 'msw';
import { beforeEach, describe, expect, it } from 'vitest';
import { GatewayValidationError } from '../../src/core/errors.js';
import { apply, keepsRule, planEnsure, refused } from '../../src/resources/deal-rule.js';
import { BASE, testClient, useMsw } from '../support/msw.js';

const { server, seen } = useMsw();
const URL_A = 'https://crm.example/hooks';
const URL_B = 'https://other.example/hooks';
type Sub = { id: string; url: string; event: string };
let subs: Sub[];
let nextId: number;

/** A stateful fake of the v2 subscription endpoints. */
beforeEach(() => {
  subs = [];
  nextId = 1;
  const body = async (request: Request) => ((await request.json()) as { data: Sub[] }).data;
  server.use(
    http.get(`${BASE}/v2/webhooks`, () => HttpResponse.json({ data: subs })),
    http.post(`${BASE}/v2/webhooks`, async ({ request }) => {
      const created = (await body(request)).map((i) => ({ id: `s${nextId++}`, url: i.url, event: i.event }));
      if (dealWithoutContact([...subs, ...created])) return refuseDeal();
      subs.push(...created);
      return HttpResponse.json({ data: created });
    }),
    http.patch(`${BASE}/v2/webhooks`, async ({ request }) => {
      const changed = await body(request);
      const after = subs.map((s) => changed.find((c) => c.id === s.id) ?? s);
      if (dealWithoutContact(after)) return refuseDeal();
      subs = after;
      return HttpResponse.json({ data: changed });
    }),
    http.delete(`${BASE}/v2/webhooks`, async ({ request }) => {
      const ids = new Set((await body(request)).map((i) => i.id));
      subs = subs.filter((s) => !ids.has(s.id));
      return HttpResponse.json({ data: null });
    }),
  );
});

/** The service's rule (spec: POST /v2/webhooks): deal_add works only with contact_add. */
const dealWithoutContact = (list: Sub[]) =>
  list.some((s) => s.event === 'crm_entities.deal_add') &&
  !list.some((s) => s.event === 'crm_entities.contact_add');
const refuseDeal = () =>
  HttpResponse.json({ error: 'bad_request', description: 'deal_add needs contact_add' }, { status: 400 });

const writes = () => seen.filter((s) => s.method !== 'GET').map((s) => s.method);

describe('webhooks.ensure', () => {
  it('subscribes the missing events in one POST', async () => {
    const result = await testClient().webhooks.ensure(URL_A, ['message.add', 'message.status_update']);
    expect(writes()).toEqual(['POST']);
    expect(result.map((s) => s.event).sort()).toEqual(['message.add', 'message.status_update']);
    expect(subs).toHaveLength(2);
  });

  it('changes nothing the second time: no write request', async () => {
    const client = testClient();
    const first = await client.webhooks.ensure(URL_A, ['message.add', 'message.status_update']);
    seen.length = 0;
    const second = await client.webhooks.ensure(URL_A, ['message.add', 'message.status_update']);
    expect(writes()).toEqual([]);
    expect(seen).toHaveLength(1);
    expect(second).toEqual(first);
  });

  it('adds only what is missing and leaves other urls alone', async () => {
    subs.push(
      { id: 'x1', url: URL_A, event: 'message.add' },
      { id: 'x2', url: URL_B, event: 'channel.create' },
    );
    await testClient().webhooks.ensure(URL_A, ['message.add', 'channel.qr_update']);
    expect(writes()).toEqual(['POST']);
    expect(subs.map((s) => s.id)).toEqual(['x1', 'x2', 's1']);
  });

  it('without prune keeps this url’s other subscriptions', async () => {
    subs.push({ id: 'x1', url: URL_A, event: 'channel.create' });
    const result = await testClient().webhooks.ensure(URL_A, ['message.add']);
    expect(result.map((s) => s.event).sort()).toEqual(['channel.create', 'message.add']);
    expect(subs).toHaveLength(2);
  });

  it('with prune reuses unwanted subscriptions by PATCH, then deletes the rest', async () => {
    subs.push(
      { id: 'x1', url: URL_A, event: 'channel.create' },
      { id: 'x2', url: URL_A, event: 'channel.delete' },
      { id: 'x3', url: URL_A, event: 'message.add' },
      { id: 'x4', url: URL_B, event: 'channel.delete' },
    );
    const result = await testClient().webhooks.ensure(URL_A, ['message.add', 'message.status_update'], {
      prune: true,
    });
    expect(writes()).toEqual(['PATCH', 'DELETE']);
    expect(result.map((s) => s.event).sort()).toEqual(['message.add', 'message.status_update']);
    expect(subs.map((s) => `${s.id}:${s.event}`).sort()).toEqual([
      'x1:message.status_update',
      'x3:message.add',
      'x4:channel.delete',
    ]);
    seen.length = 0;
    await testClient().webhooks.ensure(URL_A, ['message.add', 'message.status_update'], { prune: true });
    expect(writes()).toEqual([]);
  });

  it('with prune removes a duplicate subscription of the same event', async () => {
    subs.push({ id: 'x1', url: URL_A, event: 'message.add' }, { id: 'x2', url: URL_A, event: 'message.add' });
    await testClient().webhooks.ensure(URL_A, ['message.add'], { prune: true });
    expect(subs.map((s) => s.id)).toEqual(['x1']);
  });

  it('writes contact_add no later than deal_add, so the service never sees deal_add alone', async () => {
    subs.push({ id: 'x1', url: URL_A, event: 'channel.create' });
    await testClient().webhooks.ensure(URL_A, ['crm_entities.deal_add', 'crm_entities.contact_add'], {
      prune: true,
    });
    expect(writes()).toEqual(['PATCH', 'POST']);
    expect(subs.map((s) => `${s.id}:${s.event}`).sort()).toEqual([
      's1:crm_entities.deal_add',
      'x1:crm_entities.contact_add',
    ]);
  });

  it('rejects deal_add without contact_add before any write', async () => {
    const error = await testClient()
      .webhooks.ensure(URL_A, ['crm_entities.deal_add'])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayValidationError);
    expect(writes()).toEqual([]);
  });

  it('accepts deal_add when contact_add is subscribed for another url', async () => {
    subs.push({ id: 'x1', url: URL_B, event: 'crm_entities.contact_add' });
    await testClient().webhooks.ensure(URL_A, ['crm_entities.deal_add']);
    expect(writes()).toEqual(['POST']);
  });

  it('rejects an unknown event before any request', async () => {
    await expect(testClient().webhooks.ensure(URL_A, ['message.nope' as never])).rejects.toBeInstanceOf(
      GatewayValidationError,
    );
    expect(seen).toHaveLength(0);
  });
});

describe('The deal_add ⇒ contact_add rule, judged against the account', () => {
  const CONTACT = 'crm_entities.contact_add';
  const DEAL = 'crm_entities.deal_add';

  it('ensure with prune on a url holding contact_add and deal_add never passes through a refused state', async () => {
    subs.push({ id: 'c', url: URL_A, event: CONTACT }, { id: 'd', url: URL_A, event: DEAL });
    // The fake refuses (400) any write leaving deal_add without contact_add: the call would reject.
    const result = await testClient().webhooks.ensure(URL_A, ['message.add'], { prune: true });
    expect(result.map((s) => s.event)).toEqual(['message.add']);
    expect(subs.map((s) => s.event)).toEqual(['message.add']);
    expect(writes()).toEqual(['PATCH', 'DELETE']);
  });

  it('ensure refuses, before any write, a prune that would leave another url’s deal_add alone', async () => {
    subs.push({ id: 'c', url: URL_A, event: CONTACT }, { id: 'd', url: URL_B, event: DEAL });
    const error = await testClient()
      .webhooks.ensure(URL_A, ['message.add'], { prune: true })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayValidationError);
    expect(writes()).toEqual([]);
  });

  it('subscribe accepts deal_add alone when the account has contact_add', async () => {
    subs.push({ id: 'c', url: URL_B, event: CONTACT });
    await testClient().webhooks.subscribe([{ url: URL_A, event: DEAL }]);
    expect(seen.map((s) => s.method)).toEqual(['GET', 'POST']);
  });

  it('subscribe refuses deal_add alone when the account has no contact_add, after one GET', async () => {
    const error = await testClient()
      .webhooks.subscribe([{ url: URL_A, event: DEAL }])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayValidationError);
    expect(seen.map((s) => s.method)).toEqual(['GET']);
  });

  it('subscribe of contact_add and deal_add together needs no read', async () => {
    await testClient().webhooks.subscribe([
      { url: URL_A, event: CONTACT },
      { url: URL_A, event: DEAL },
    ]);
    expect(seen.map((s) => s.method)).toEqual(['POST']);
  });

  it('update refuses to turn the account’s only contact_add into another event while deal_add stays', async () => {
    subs.push({ id: 'c', url: URL_A, event: CONTACT }, { id: 'd', url: URL_A, event: DEAL });
    const error = await testClient()
      .webhooks.update([{ id: 'c', url: URL_A, event: 'message.add' }])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayValidationError);
    expect(writes()).toEqual([]);
    await testClient().webhooks.update([{ id: 'd', url: URL_A, event: 'message.add' }]);
    expect(writes()).toEqual(['PATCH']);
  });

  it('unsubscribe refuses to remove contact_add while deal_add stays, and allows both together', async () => {
    subs.push({ id: 'c', url: URL_A, event: CONTACT }, { id: 'd', url: URL_B, event: DEAL });
    const error = await testClient()
      .webhooks.unsubscribe(['c'])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayValidationError);
    expect((error as GatewayValidationError).issues[0]?.path).toEqual([0]);
    expect(writes()).toEqual([]);
    await testClient().webhooks.unsubscribe(['d', 'c']);
    expect(subs).toEqual([]);
  });

  it('with validateRequests: false the account is not read and the service judges', async () => {
    await testClient({ validateRequests: false })
      .webhooks.unsubscribe(['x'])
      .catch(() => {});
    expect(seen.map((s) => s.method)).toEqual(['DELETE']);
  });
});

describe('ensure’s plan keeps the rule at every step (property)', () => {
  const EVENTS = [
    'crm_entities.contact_add',
    'crm_entities.deal_add',
    'message.add',
    'channel.create',
  ] as const;
  const sub = fc.record({ url: fc.constantFrom(URL_A, URL_B), event: fc.constantFrom(...EVENTS) });

  it('whenever the end state is allowed, no write passes through a refused state', () => {
    fc.assert(
      fc.property(
        fc.array(sub, { maxLength: 6 }),
        fc.subarray([...EVENTS]),
        fc.boolean(),
        (items, wanted, prune) => {
          const current = items.map((s, i) => ({ id: `x${i}`, ...s }));
          if (refused(current)) return; // the service would not have let the account get here
          const mine = current.filter((s) => s.url === URL_A);
          const plan = planEnsure(current, URL_A, mine, wanted, prune);
          if (plan.refusedEnd) return;
          expect(keepsRule(current, plan.writes)).toBe(true);
          const final = plan.writes.reduce(apply, current);
          const events = final.filter((s) => s.url === URL_A).map((s) => s.event);
          for (const event of wanted) expect(events).toContain(event);
          if (prune) expect(new Set(events)).toEqual(new Set(wanted));
        },
      ),
      { numRuns: 2000 },
    );
  });
});
