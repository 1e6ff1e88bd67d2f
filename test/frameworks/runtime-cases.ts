import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageAdd } from '../support/deliveries.js';
import { skipFrameworks } from './cases.js';
import { eventually, type RuntimeProcess } from './runtime-process.js';

/** The smoke test of the built /webhooks entry in another runtime (its server prints what it got). */
export function runtimeSmoke(name: string, start: () => Promise<RuntimeProcess>): void {
  describe.skipIf(skipFrameworks)(`${name}: the built /webhooks entry behind createFetchHandler`, () => {
    let server: RuntimeProcess;
    beforeAll(async () => {
      server = await start();
    }, 120_000);
    afterAll(() => server?.stop());

    it('answers a delivery 200 and runs its listener', async () => {
      const answer = await fetch(`${server.url}/hooks?secret=runtime-secret`, {
        method: 'POST',
        body: messageAdd(undefined, 'from the test'),
        headers: { 'content-type': 'application/json; charset-utf-8' },
      });
      expect([answer.status, await answer.json()]).toEqual([200, { ok: true }]);
      await eventually(() => server.output().includes('received from the test'));
    });

    it('refuses a wrong secret 401 and reports it on "error"', async () => {
      const answer = await fetch(`${server.url}/hooks?secret=wrong`, { method: 'POST', body: messageAdd() });
      expect(answer.status).toBe(401);
      await eventually(() => server.output().includes('error auth'));
    });
  });
}
