import { fork } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisDedupeStore } from '../../src/redis.js';
import { WebhookHandler } from '../../src/webhooks/receive/handler.js';
import { fixture } from '../support/fixtures.js';
import { CLIENTS, connectClient, skipRedis } from '../support/redis-clients.js';
import { TARGETS, useRedisTarget } from '../support/redis-target.js';

const contactAdd = fixture('v2', 'crm_entities.contact_add') as { meta: Record<string, unknown> };

describe.skipIf(skipRedis)('redisDedupeStore: the three states of a key, on a real redis-server', () => {
  describe.each(TARGETS)('on %s', (where) => {
    const target = useRedisTarget(where);

    describe.each(CLIENTS)('with %s', (kind) => {
      let clients: Awaited<ReturnType<typeof connectClient>>[] = [];
      beforeAll(async () => {
        clients = await Promise.all([connectClient(kind, target.url), connectClient(kind, target.url)]);
      });
      afterAll(() => Promise.all(clients.map((c) => c.close())));
      const store = (n = 0) => redisDedupeStore(clients[n]!.redis, { prefix: `t:${kind}:` });

      it('claims, refuses a second claim while the lease lives, and answers done with the stored reply', async () => {
        const a = store(0);
        const b = store(1);
        expect(await a.claim('k1', 10_000)).toMatchObject({ state: 'claimed' });
        expect(await b.claim('k1', 10_000)).toEqual({ state: 'processing' });
        await a.complete('k1', 60_000, { id: 'contact-7', name: 'Ann' });
        expect(await b.claim('k1', 10_000)).toEqual({
          state: 'done',
          reply: { id: 'contact-7', name: 'Ann' },
        });
        expect(await b.claim('k2', 10_000)).toMatchObject({ state: 'claimed' });
        await b.complete('k2', 60_000);
        expect(await a.claim('k2', 10_000)).toEqual({ state: 'done' });
      });

      it('release forgets the key, so the next attempt is processed', async () => {
        const a = store(0);
        expect(await a.claim('k3', 10_000)).toMatchObject({ state: 'claimed' });
        await a.release('k3');
        expect(await store(1).claim('k3', 10_000)).toMatchObject({ state: 'claimed' });
      });

      it('a claim expires with its lease; a late release of it never forgets the next holder’s claim', async () => {
        const a = store(0);
        const b = store(1);
        expect(await a.claim('k4', 100)).toMatchObject({ state: 'claimed' });
        await sleep(150);
        expect(await b.claim('k4', 10_000)).toMatchObject({ state: 'claimed' });
        await a.release('k4'); // a's claim is long gone: this must not delete b's
        expect(await a.claim('k4', 10_000)).toEqual({ state: 'processing' });
      });

      it('with the token of a claim that lost the key, neither release nor complete touches the new claim', async () => {
        const a = store(0);
        const first = await a.claim('k6', 100);
        await sleep(150);
        const second = await a.claim('k6', 10_000); // the same process: only the token tells them apart
        expect(second).toMatchObject({ state: 'claimed' });
        const stale = (first as { token: string }).token;
        await a.release('k6', stale);
        await a.complete('k6', 10_000, { id: 'late' }, stale);
        expect(await a.claim('k6', 10_000)).toEqual({ state: 'processing' });
        await a.complete('k6', 10_000, { id: 'second' }, (second as { token: string }).token);
        expect(await a.claim('k6', 10_000)).toEqual({ state: 'done', reply: { id: 'second' } });
      });

      it('done keys expire after their ttl', async () => {
        const a = store(0);
        await a.claim('k5', 10_000);
        await a.complete('k5', 100);
        await sleep(150);
        expect(await a.claim('k5', 10_000)).toMatchObject({ state: 'claimed' });
      });

      it('200 keys claimed at once by two stores on two connections: each claimed exactly once', async () => {
        const keys = Array.from({ length: 200 }, (_, i) => `burst-${i}`);
        const [a, b] = [store(0), store(1)];
        const results = await Promise.all(
          keys.flatMap((key) => [a.claim(key, 10_000), b.claim(key, 10_000)]),
        );
        const claimed = results.filter((r) => r.state === 'claimed').length;
        expect(claimed).toBe(200);
        expect(results.filter((r) => r.state === 'processing')).toHaveLength(200);
      });

      it('a holder whose claim expired cannot overwrite its successor’s stored reply', async () => {
        const a = store(0);
        const b = store(1);
        const stale = (await a.claim('k7', 100)) as { token: string };
        await sleep(150);
        const successor = (await b.claim('k7', 10_000)) as { token: string };
        await b.complete('k7', 60_000, { id: 'new' }, successor.token);
        await a.complete('k7', 60_000, { id: 'stale' }, stale.token);
        expect(await b.claim('k7', 10_000)).toEqual({ state: 'done', reply: { id: 'new' } });
      });

      it('a kept CRM reply survives a release and an expired lease; complete supersedes it', async () => {
        const a = store(0);
        const b = store(1);
        const first = (await a.claim('k8', 100)) as { token: string };
        await a.keepReply('k8', { id: 'contact-1', name: 'Ann' }, 60_000);
        await a.release('k8', first.token);
        const second = (await b.claim('k8', 100)) as { token: string };
        expect(second).toMatchObject({ state: 'claimed', reply: { id: 'contact-1', name: 'Ann' } });
        await sleep(150); // its holder died: the lease ends, the reply stays
        const third = (await a.claim('k8', 10_000)) as { token: string };
        expect(third).toMatchObject({ state: 'claimed', reply: { id: 'contact-1' } });
        await a.complete('k8', 60_000, { id: 'contact-1', name: 'Ann' }, third.token);
        expect(await b.claim('k8', 10_000)).toEqual({
          state: 'done',
          reply: { id: 'contact-1', name: 'Ann' },
        });
      });

      it("a handler on this store: 'await' with a failing listener creates one CRM contact, not two", async () => {
        let created = 0;
        let failures = 1;
        const handlers = [0, 1].map((n) => {
          const hooks = new WebhookHandler({ secret: 's', dispatch: 'await', dedupe: store(n) });
          hooks.on('error', () => {});
          hooks.respond('crm_entities.contact_add', () => ({ id: `crm-${++created}`, name: 'Ann' }));
          hooks.on('crm_entities.contact_add', () => {
            if (failures-- > 0) throw new Error('database down');
          });
          return hooks;
        });
        const body = JSON.stringify({
          ...contactAdd,
          meta: { ...contactAdd.meta, idempotency_key: `crm-${kind}` },
        });
        const deliver = (n: number) =>
          handlers[n]!.handle({ method: 'POST', url: '/?secret=s', headers: {}, body });
        const first = await deliver(0);
        const retry = await deliver(1); // the service's retry reaches the other instance
        expect([first.status, retry.status, JSON.parse(retry.body).id, created]).toEqual([
          500,
          200,
          'crm-1',
          1,
        ]);
      });

      it('a late responder: its reply is kept when it ends, so the retry gets it (one contact, not two)', async () => {
        let created = 0;
        const hooks = new WebhookHandler({ secret: 's', replyTimeoutMs: 30, dedupe: store(0) });
        hooks.on('error', () => {});
        hooks.respond('crm_entities.contact_add', async () => {
          await sleep(80); // the CRM is slow and ignores the signal
          return { id: `crm-${++created}`, name: 'Ann' };
        });
        const body = JSON.stringify({
          ...contactAdd,
          meta: { ...contactAdd.meta, idempotency_key: `late-${kind}` },
        });
        const deliver = () => hooks.handle({ method: 'POST', url: '/?secret=s', headers: {}, body });
        expect((await deliver()).status).toBe(500);
        expect((await deliver()).status).toBe(409); // still running: held
        await sleep(120);
        const retry = await deliver();
        expect([retry.status, JSON.parse(retry.body).id, created]).toEqual([200, 'crm-1', 1]);
      });

      it('a claim whose process was SIGKILLed is processed again after its lease', async () => {
        const child = fork(
          new URL('./fixtures/claim-and-hang.ts', import.meta.url),
          [target.url, kind, 'dead-1'],
          {
            execArgv: ['--import', 'tsx'],
            stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
          },
        );
        const [message] = await once(child, 'message');
        expect(message).toMatchObject({ state: 'claimed' });
        const exited = once(child, 'exit');
        child.kill('SIGKILL');
        await exited;
        const b = store(1);
        expect(await b.claim('dead-1', 10_000)).toEqual({ state: 'processing' });
        await sleep(500); // the child's lease is 400 ms
        expect(await b.claim('dead-1', 10_000)).toMatchObject({ state: 'claimed' });
      });
    });
  });
});
