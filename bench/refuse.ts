// Refusing a hostile body: 1,000,000 bad items in a v2 delivery (2.9 MB) answered by the handler,
// beside JSON.parse of the same bytes, each in a fresh process (time, and peak RSS growth). And
// refusing a hostile query: 16 KB of malformed escapes without the secret, CPU per request.
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { median, verdict } from './stats.js';

type Report = { ms: number; growthMiB: number; status: number; bytes: number };

async function run(mode: 'json' | 'handler'): Promise<Report> {
  const child = fork(new URL('./refuse-child.ts', import.meta.url), [mode], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const [report] = (await once(child, 'message')) as [Report];
  child.kill();
  return report;
}

/** The unauthenticated queries timed, each about 16 KB (node's own bound on a request's headers). */
const HOSTILE_QUERIES = ['%=&', '%zz=1&', '&', 'x=%zzzzzz&'];

/**
 * CPU per refusal (median of 200, µs) of a POST without the secret whose query is 16 KB of
 * `piece`, beside one whose query is just a wrong secret.
 */
async function refuseQueries(): Promise<{ lines: string[]; ok: boolean }> {
  const { WebhookHandler } = await import('../dist/webhooks.js');
  const hooks = new WebhookHandler({ secret: 'bench' });
  hooks.on('error', () => {});
  const cpu = async (url: string) => {
    const each: number[] = [];
    for (let i = 0; i < 220; i++) {
      const start = process.cpuUsage();
      const answer = await hooks.handle({ method: 'POST', url, headers: {}, body: '{}' });
      const used = process.cpuUsage(start);
      if (answer.status !== 401) throw new Error(`${url.slice(0, 20)}… answered ${answer.status}`);
      if (i >= 20) each.push(used.user + used.system); // the first ones warm the code up
    }
    return median(each);
  };
  const plain = await cpu('/hooks?secret=wrong');
  const lines: string[] = [];
  let ok = true;
  for (const piece of HOSTILE_QUERIES) {
    const us = await cpu(`/hooks?${piece.repeat(Math.floor(16_384 / piece.length))}`);
    const met = us <= 1000;
    ok &&= met;
    lines.push(
      verdict(
        `refuse a 16 KB query of '${piece}', CPU`,
        `${(us / 1000).toFixed(3)} ms (${(us / plain).toFixed(0)}× a plain wrong secret, ${plain.toFixed(0)} µs)`,
        met,
        '≤ 1 ms',
      ),
    );
  }
  return { lines, ok };
}

export async function refuseBench(): Promise<{ lines: string[]; ok: boolean }> {
  const json = await run('json');
  const handler = await run('handler');
  const ratio = handler.ms / json.ms;
  const bodyOk = handler.status === 400 && ratio <= 5;
  const queries = await refuseQueries();
  return {
    lines: [
      `refuse: 1,000,000 bad items (${(json.bytes / 1e6).toFixed(1)} MB) — JSON.parse ${json.ms.toFixed(0)} ms, +${json.growthMiB.toFixed(0)} MiB RSS; handler ${handler.ms.toFixed(0)} ms, +${handler.growthMiB.toFixed(0)} MiB RSS, answered ${handler.status}`,
      verdict('refuse / JSON.parse, time', `${ratio.toFixed(2)}×`, bodyOk, '≤ 5× and a 400'),
      ...queries.lines,
    ],
    ok: bodyOk && queries.ok,
  };
}
