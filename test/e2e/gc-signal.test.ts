// A garbage collection must not cut a call off from its timeout: with a custom fetch that keeps
// only the request's signal, the call still settles by its timeout (it stayed pending for good).
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';

describe('Signals the SDK relies on survive a garbage collection', () => {
  it('a call through a custom fetch that keeps only the request signal settles by its timeout', {
    timeout: 120_000,
  }, async () => {
    const child = fork(new URL('./processes/gc-signal.ts', import.meta.url), [], {
      execArgv: ['--import', 'tsx', '--expose-gc'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    // A safety net only: a call left pending for good never reports; tsx alone may take seconds
    // to start on a busy machine.
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    const message = await Promise.race([once(child, 'message'), once(child, 'exit').then(() => [undefined])]);
    clearTimeout(timer);
    child.kill('SIGKILL');
    // a GatewayTimeoutError is the call's own 1 s timeout firing: a signal lost to the collector
    // would have left it pending until the safety net above
    expect(message[0]).toMatchObject({ outcome: 'GatewayTimeoutError' });
  });
});
