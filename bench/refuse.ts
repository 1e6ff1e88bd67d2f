// Refusing a hostile body: 1,000,000 bad items in a v2 delivery (2.9 MB) answered by the handler,
// beside JSON.parse of the same bytes, each in a fresh process (time, and peak RSS growth).
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { verdict } from './stats.js';

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

export async function refuseBench(): Promise<{ lines: string[]; ok: boolean }> {
  const json = await run('json');
  const handler = await run('handler');
  const ratio = handler.ms / json.ms;
  const ok = handler.status === 400 && ratio <= 5;
  return {
    lines: [
      `refuse: 1,000,000 bad items (${(json.bytes / 1e6).toFixed(1)} MB) — JSON.parse ${json.ms.toFixed(0)} ms, +${json.growthMiB.toFixed(0)} MiB RSS; handler ${handler.ms.toFixed(0)} ms, +${handler.growthMiB.toFixed(0)} MiB RSS, answered ${handler.status}`,
      verdict('refuse / JSON.parse, time', `${ratio.toFixed(2)}×`, ok, '≤ 5× and a 400'),
    ],
    ok,
  };
}
