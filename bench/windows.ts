// The conversation windows' check before a send: what it adds with the memory store (the check
// alone, and a send through GatewayClient with and without `windows`, the server in a child
// process); the check on redisWindowStore and on store.windows of postgresStore (pg), beside one
// bare round trip on the same connection (PING, SELECT 1), and the round trips it makes (Redis's
// own command count, the statements the pool ran); the memory store's bytes per chat with
// 1,000,000 chats in its bound.
import { fork } from 'node:child_process';
import { once } from 'node:events';
import pg from 'pg';
import { ConversationWindows, GatewayClient, MemoryWindowStore, type WindowStore } from '../dist/index.js';
import { postgresStore } from '../dist/postgres.js';
import { redisWindowStore } from '../dist/redis.js';
import { postgresBinDir, startPostgresServer } from '../test/support/postgres-server.js';
import { connectClient, sendRaw } from '../test/support/redis-clients.js';
import { startRedisServer } from '../test/support/redis-server.js';
import { collectGarbage, median, timeEach, verdict } from './stats.js';

type Result = { lines: string[]; ok: boolean };
type Windows = InstanceType<typeof ConversationWindows>;

/** The memory store's check may add at most this much to a send (µs). */
const MEMORY_TARGET_US = 2;
/** Bytes per chat the memory store may hold at most. */
const BYTES_TARGET = 200;

const CHANNEL = 'c1';
const CHAT = '79001234567';
const MESSAGE = {
  channel_id: CHANNEL,
  recipient: { chat_type: 'whatsapp', chat_id: CHAT },
  text: 'Hello from the bench',
} as const;

/** Windows on `store` that know CHANNEL as wapi and CHAT's customer as having written just now. */
async function openWindow(store?: WindowStore) {
  const windows = new ConversationWindows({ store, heardSince: 0 });
  await store?.startListening(Date.now()); // as attach(hooks) records it
  await windows.learnChannels([{ channel_id: CHANNEL, transport: 'wapi', tier: 'TIER_0' }]);
  await windows.observeInbound(CHANNEL, CHAT);
  return windows;
}

/**
 * µs of this process's CPU per check, as the median of rounds of `n` checks each (one check is too
 * short to time alone). CPU time, not the clock's: on a shared machine the clock also counts the
 * time the process waited for a core.
 */
async function checkCost(windows: Windows, n: number, rounds: number): Promise<number> {
  const perRound: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const start = process.cpuUsage();
    for (let i = 0; i < n; i++) await windows.beforeSend(MESSAGE);
    const { user, system } = process.cpuUsage(start);
    perRound.push((user + system) / n);
  }
  return median(perRound);
}

/** A send with and without windows against a loopback server in a child process, rounds interleaved. */
async function sendsBeside(windows: Windows): Promise<{ without: number; with: number }> {
  const child = fork(new URL('./loopback-server.mjs', import.meta.url), {
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  try {
    const [chunk] = (await once(child.stdout!, 'data')) as [Buffer];
    const base = `http://127.0.0.1:${chunk.toString().trim()}`;
    const options = {
      baseUrl: base,
      token: 'bench-token',
      rateLimit: { requests: 100_000, intervalMs: 1000 },
    };
    const plain = new GatewayClient(options);
    const guarded = new GatewayClient({ ...options, windows });
    const samples = { without: [] as number[], with: [] as number[] };
    await timeEach(500, () => plain.messages.send(MESSAGE));
    await timeEach(500, () => guarded.messages.send(MESSAGE));
    const ways = [
      ['without', () => plain.messages.send(MESSAGE)],
      ['with', () => guarded.messages.send(MESSAGE)],
    ] as const;
    for (let round = 0; round < 10; round++) {
      // Each first in turn: neither always runs on a warmer (or a more tired) machine.
      for (const [name, send] of round % 2 ? [...ways].reverse() : ways)
        samples[name].push(median(await timeEach(200, send)));
    }
    return { without: median(samples.without), with: median(samples.with) };
  } finally {
    child.kill();
  }
}

async function memoryCheck(): Promise<Result> {
  const windows = await openWindow();
  await checkCost(windows, 100_000, 2); // warm-up
  const check = await checkCost(windows, 100_000, 15);
  const sends = await sendsBeside(windows);
  const ok = check <= MEMORY_TARGET_US;
  return {
    lines: [
      `windows (memory): messages.send, median µs per call — without windows ${sends.without.toFixed(1)}, with windows ${sends.with.toFixed(1)}`,
      verdict(
        'windows (memory) check added to a send',
        `${check.toFixed(2)} µs of CPU`,
        ok,
        `≤ ${MEMORY_TARGET_US} µs`,
      ),
    ],
    ok,
  };
}

/** Bytes the memory store holds per chat, filled with 1,000,000 chats (its bound set to that). */
function memoryPerChat(): Result {
  const n = 1_000_000;
  // Ids as the service gives them: a channel's UUID, a chat's phone number.
  const channels = Array.from(
    { length: 10 },
    (_, i) => `0f3c5a1e-7b2d-4c8e-9a6f-${String(i).padStart(12, '0')}`,
  );
  const chats = Array.from({ length: n }, (_, i) => String(79_000_000_000 + i));
  collectGarbage();
  const before = process.memoryUsage().heapUsed;
  const store = new MemoryWindowStore({ maxChats: n });
  const now = Date.now();
  for (let i = 0; i < n; i++) store.recordInbound(channels[i % 10] as string, chats[i] as string, now - i);
  collectGarbage();
  const perChat = (process.memoryUsage().heapUsed - before) / n;
  const ok = perChat <= BYTES_TARGET && store.size === n;
  return {
    lines: [
      verdict(
        `windows (memory) with ${n.toLocaleString('en')} chats`,
        `${perChat.toFixed(0)} bytes per chat`,
        ok,
        `≤ ${BYTES_TARGET}`,
      ),
    ],
    ok,
  };
}

/** The check on a shared store beside one bare round trip; `trips` counts the round trips of `n` checks. */
async function shared(
  name: string,
  windows: Windows,
  [bareName, bare]: [string, () => Promise<unknown>],
  trips: (run: () => Promise<void>) => Promise<number>,
): Promise<Result> {
  await timeEach(300, () => windows.beforeSend(MESSAGE)); // warm-up: scripts loaded, statements planned
  await timeEach(300, bare);
  const checks: number[] = [];
  const rounds: number[] = [];
  for (let round = 0; round < 10; round++) {
    checks.push(median(await timeEach(200, () => windows.beforeSend(MESSAGE))));
    rounds.push(median(await timeEach(200, bare)));
  }
  const [check, trip] = [median(checks), median(rounds)];
  const n = 1_000;
  const perCheck = (await trips(async () => void (await timeEach(n, () => windows.beforeSend(MESSAGE))))) / n;
  const ok = perCheck <= 1;
  return {
    lines: [
      `windows (${name}): check median ${check.toFixed(0)} µs, a bare round trip (${bareName}) ${trip.toFixed(0)} µs`,
      verdict(`windows (${name}) round trips per check`, perCheck.toFixed(2), ok, '1'),
    ],
    ok,
  };
}

/**
 * Commands the client sent Redis, from Redis's own statistics (`INFO commandstats`): its scripts'
 * calls and the few commands the store sends outside them (GET, SET, HSET); the commands a script
 * runs inside Redis (HMGET, ZSCORE) are no round trip and are not counted.
 */
async function commandsSent(redis: Parameters<typeof sendRaw>[0]): Promise<number> {
  const info = String(await sendRaw(redis, ['INFO', 'commandstats']));
  let calls = 0;
  for (const match of info.matchAll(/^cmdstat_(\w+(?:\|\w+)?):calls=(\d+)/gm))
    if (/^(eval|evalsha|eval_ro|evalsha_ro|script\|\w+|get|set|hset)$/.test(match[1] as string))
      calls += Number(match[2]);
  return calls;
}

async function redisCheck(): Promise<Result> {
  const server = await startRedisServer();
  const { redis, close } = await connectClient('ioredis', server.url);
  try {
    const windows = await openWindow(redisWindowStore(redis as never, { prefix: 'bench-windows:' }));
    return await shared('Redis', windows, ['PING', () => sendRaw(redis, ['PING'])], async (run) => {
      await sendRaw(redis, ['CONFIG', 'RESETSTAT']);
      await run();
      return commandsSent(redis);
    });
  } finally {
    await close();
    await server.stop();
  }
}

/** A pg Pool that counts the statements it runs (each one round trip). */
class CountingPool extends pg.Pool {
  statements = 0;
  override query(...args: unknown[]): never {
    this.statements++;
    return (super.query as (...a: unknown[]) => never)(...args);
  }
}

async function postgresCheck(): Promise<Result> {
  const bin = postgresBinDir();
  if (!bin) return { lines: ['windows (PostgreSQL): skipped, no PostgreSQL installed'], ok: true };
  const server = await startPostgresServer(bin);
  const pool = new CountingPool({ connectionString: server.url, max: 4 });
  try {
    const store = postgresStore(pool, { schema: 'bench_windows' });
    await store.migrate();
    const windows = await openWindow(store.windows);
    return await shared('PostgreSQL', windows, ['SELECT 1', () => pool.query('SELECT 1')], async (run) => {
      const before = pool.statements;
      await run();
      return pool.statements - before;
    });
  } finally {
    await pool.end();
    await server.stop();
  }
}

/** The window check with each store, and the memory store's size. */
export async function windowsBench(): Promise<Result> {
  const parts = [await memoryCheck(), memoryPerChat(), await redisCheck(), await postgresCheck()];
  return { lines: parts.flatMap((p) => p.lines), ok: parts.every((p) => p.ok) };
}
