// The cost of instrument(): a client call and a webhook delivery, with nobody
// subscribed to the diagnostics channels and with instrument() on (real OpenTelemetry SDK
// providers, spans recorded and dropped), interleaved in one run. Printed, no target: the
// targets with nobody subscribed are those of the overhead and webhooks benches.
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, NoopSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { GatewayClient } from '../dist/index.js';
import { instrument } from '../dist/otel.js';
import { WebhookHandler } from '../dist/webhooks.js';
import { messageAdd } from '../test/support/deliveries.js';
import { median, timeEach } from './stats.js';

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
    return {
      lines: [line('client call', samples.call), line('handler.handle delivery', samples.hook)],
      ok: true,
    };
  } finally {
    child.kill();
  }
}
