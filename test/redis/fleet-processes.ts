import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';

/** What one sending process reports. */
export interface SenderReport {
  ok: number;
  rejected: number;
  failed: number;
  ms: number;
  /** The distinct errors of the failed calls (name: message). */
  errors: string[];
}

/**
 * Runs `processes` sender processes at once (each after all are connected) and collects their
 * reports. `mode`: `redis` shares one Redis limiter; `memory` gives each its own limiter.
 */
export async function runSenders(options: {
  mode: 'redis' | 'memory';
  processes: number;
  calls: number;
  limit: string;
  redisUrl: string;
  baseUrl: string;
  token: string;
  /** Client per process, in turn. @default ['ioredis'] */
  kinds?: string[];
  /**
   * Calls each process makes before the run, outside the shared limit, as a fleet that has been
   * running has; the run then starts once the gateway's window of those calls is over. @default 0
   */
  warmUp?: number;
  /** The gateway's window (ms), waited out after a warm-up. @default 5000 */
  windowMs?: number;
}): Promise<{ reports: SenderReport[]; ms: number }> {
  const { mode, redisUrl, baseUrl, token, calls, limit, kinds = ['ioredis'], warmUp = 0 } = options;
  const children: ChildProcess[] = Array.from({ length: options.processes }, (_, i) =>
    fork(
      new URL('./fixtures/limited-sender.ts', import.meta.url),
      [
        mode,
        redisUrl,
        baseUrl,
        token,
        String(calls),
        limit,
        kinds[i % kinds.length] as string,
        String(warmUp),
      ],
      { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
    ),
  );
  try {
    await Promise.all(children.map((child) => once(child, 'message')));
    if (warmUp > 0) await new Promise((resolve) => setTimeout(resolve, (options.windowMs ?? 5000) + 100));
    const t0 = performance.now();
    const done = children.map((child) => once(child, 'message') as Promise<[SenderReport]>);
    for (const child of children) child.send('go');
    const reports = (await Promise.all(done)).map(([report]) => report);
    return { reports, ms: performance.now() - t0 };
  } finally {
    for (const child of children) if (child.exitCode === null) child.kill();
  }
}
