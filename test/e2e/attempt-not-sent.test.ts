// A time-out before the request is handed to fetch means it never left: the call says so
// (retryable, even for a POST), however it was held up (the limiter's queue, or the HTTP client
// loading on the first call of a process, as here: a fresh process is the only place it loads).
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';

describe('A time-out before the request is handed to fetch', () => {
  it('is reported never sent (retryable, queued) for a POST, and no request is made', async () => {
    const child = fork(new URL('./processes/not-sent.ts', import.meta.url), [], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    const message = await Promise.race([once(child, 'message'), once(child, 'exit').then(() => [undefined])]);
    clearTimeout(timer);
    child.kill('SIGKILL');
    expect(message[0]).toEqual({ name: 'GatewayTimeoutError', retryable: true, queued: true, requests: 0 });
  });
});
