// The cost of instrument(): a client call and a webhook delivery, with nobody
// subscribed to the diagnostics channels and with instrument() on (real OpenTelemetry SDK
// providers, spans recorded and dropped), interleaved in one run; then deliveries per second of
// createNodeMiddleware against a bare node:http server, without and with instrument() active
// (each in a process of its own, since instrument() hears every handler of its process). The
// floor: the instrumented handler keeps at least 0.85× a bare server's deliveries per second.
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, NoopSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { GatewayClient } from '../dist/index.js';
import { instrument } from '../dist/otel.js';
import { WebhookHandler } from '../dist/webhooks.js';
import { messageAdd } from '../test/support/deliveries.js';
import { median, pairedRounds, timeEach, verdict } from './stats.js';
import { load } from './webhooks.js';

/** The floor: the handler with instrument() active keeps this share of a bare server's rate. */
const FLOOR = 0.85;
/** Rounds of each process, as many as the webhooks bench runs: the median of fewer moved between runs. */
const ROUNDS = 21;

export async function otelBench(): Promise<{ lines: string[]; ok: boolean }> {
  const child = fork(new URL('./loopback-server.mjs', import.meta.url), {
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new NoopSpanProcessor()] });
  const meterProvider = new MeterProvider();
  try {
    const [chunk] = (await once(child.stdout!, 'data')) as [Buffer];
    const base = `http://127.0.0.1:${chunk.toString().trim()}`;
    const client = new GatewayClient({
      baseUrl: base,
      token: 'bench-token',
      rateLimit: { requests: 100_000, intervalMs: 1000 },
    });
    const hooks = new WebhookHandler({ secret: 'bench-secret-of-some-length', dedupe: false });
    const deliver = () =>
      hooks.handle({
        method: 'POST',
        url: '/hooks?secret=bench-secret-of-some-length',
        headers: {},
        body: messageAdd(),
      });
    const call = () => client.channels.list();
    const samples = { call: [[], []] as number[][], hook: [[], []] as number[][] };
    const run = async (on: 0 | 1, n: number) => {
      const stop = on ? instrument({ tracerProvider, meterProvider }) : undefined;
      try {
        samples.call[on]?.push(...(await timeEach(n, call)));
        samples.hook[on]?.push(...(await timeEach(n * 5, deliver)));
      } finally {
        stop?.();
      }
    };
    await run(0, 300);
    await run(1, 300); // warm-up
    samples.call = [[], []];
    samples.hook = [[], []];
    for (let round = 0; round < 10; round++) {
      await run(0, 200);
      await run(1, 200);
    }
    const line = (what: string, s: number[][]) => {
      const off = median(s[0] ?? []);
      const on = median(s[1] ?? []);
      return `otel: ${what} median µs — nobody subscribed ${off.toFixed(1)}, instrument() on ${on.toFixed(1)} (+${(on - off).toFixed(1)} µs, ${(on / off).toFixed(2)}×)`;
    };
    const off = await handlerRatio('0');
    const on = await handlerRatio('1');
    return {
      lines: [
        line('client call', samples.call),
        line('handler.handle delivery', samples.hook),
        `otel: createNodeMiddleware / bare node:http, deliveries/s at concurrency 50 (medians of ${ROUNDS} rounds) — uninstrumented ${off.toFixed(2)}×, instrument() active ${on.toFixed(2)}×`,
        verdict(
          'createNodeMiddleware with instrument() / bare',
          `${on.toFixed(2)}×`,
          on >= FLOOR,
          `≥ ${FLOOR}×`,
        ),
      ],
      ok: on >= FLOOR,
    };
  } finally {
    child.kill();
  }
}

/** The median ratio, over rounds run back to back, of the handler's deliveries/s to bare's. */
async function handlerRatio(otel: '0' | '1'): Promise<number> {
  const child = fork(new URL('./otel-servers.ts', import.meta.url), {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, BENCH_OTEL: otel },
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  try {
    const [chunk] = (await once(child.stdout!, 'data')) as [Buffer];
    const ports = JSON.parse(chunk.toString()) as { bare: number; sdk: number };
    const batch = () => Array.from({ length: 15_000 }, () => messageAdd()); // about a second a round
    await load(ports.bare, batch(), 50); // warm-up
    await load(ports.sdk, batch(), 50);
    const rates: Record<'bare' | 'sdk', number[]> = { bare: [], sdk: [] };
    await pairedRounds(
      ROUNDS,
      async (which) => void rates[which].push(await load(ports[which], batch(), 50)),
    );
    return median(rates.sdk.map((sdk, i) => sdk / (rates.bare[i] as number)));
  } finally {
    child.kill();
  }
}
