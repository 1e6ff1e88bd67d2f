// The documented node-redis set-up survives a Redis restart: deliveries get a 5xx while Redis is
// down and are acknowledged again once it is back; the receiver process never exits.
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { messageAdd } from '../support/deliveries.js';
import { skipRedis } from '../support/redis-clients.js';
import { useRedisServer } from '../support/redis-server.js';

async function startReceiver(
  url: string,
  withListener: boolean,
): Promise<{ child: ChildProcess; port: number }> {
  const child = fork(
    new URL('./fixtures/node-redis-receiver.ts', import.meta.url),
    [url, withListener ? 'yes' : 'no'],
    {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
    },
  );
  const [message] = (await once(child, 'message')) as [{ port: number }];
  return { child, port: message.port };
}

const deliver = (port: number) =>
  fetch(`http://127.0.0.1:${port}/hooks?secret=restart-secret`, {
    method: 'POST',
    body: messageAdd(),
    headers: { 'content-type': 'application/json' },
  }).then(
    (r) => r.status,
    () => 0, // the receiver is gone
  );

describe.skipIf(skipRedis)('node-redis as the docs show it, through a Redis restart', () => {
  const server = useRedisServer();
  let child: ChildProcess | undefined;
  afterEach(() => {
    child?.kill('SIGKILL');
  });

  it('keeps acknowledging deliveries after Redis comes back; the process never exits', async () => {
    const receiver = await startReceiver(server.url, true);
    child = receiver.child;
    expect(await deliver(receiver.port)).toBe(200);
    await server.stop();
    expect(await deliver(receiver.port)).toBeGreaterThanOrEqual(500); // never a 200 that loses it
    await server.start();
    let status = 0;
    for (let i = 0; i < 100 && status !== 200; i++) {
      await sleep(100);
      status = await deliver(receiver.port);
    }
    expect(status).toBe(200);
    expect(child.exitCode).toBeNull();
  });

  it('without the error listener, the restart kills the process (why the docs attach one)', async () => {
    const receiver = await startReceiver(server.url, false);
    child = receiver.child;
    const exited = once(child, 'exit');
    await server.stop();
    await Promise.race([exited, sleep(5_000)]);
    expect(child.exitCode).not.toBeNull();
    await server.start();
  });
});
