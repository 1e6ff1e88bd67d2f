// Child process of the otel bench: a bare node:http handler (read + JSON.parse), and two
// createNodeMiddleware servers on the built package, one while instrument() is active (real
// OpenTelemetry SDK providers and a registered context manager, spans dropped). instrument()
// listens to every handler of the process, so the uninstrumented figure comes from the
// `webhooks` bench's own child; this one measures the instrumented handler beside bare.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, NoopSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { instrument } from '../dist/otel.js';
import { createNodeMiddleware, WebhookHandler } from '../dist/webhooks.js';

const bare = createServer(async (req, res) => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  JSON.parse(Buffer.concat(chunks).toString('utf8'));
  res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
});
const hooks = new WebhookHandler({ secret: 'bench-secret-of-some-length' });
hooks.on('message.add', () => {});
const sdk = createServer(createNodeMiddleware(hooks));

if (process.env.BENCH_OTEL === '1') {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  instrument({
    tracerProvider: new BasicTracerProvider({ spanProcessors: [new NoopSpanProcessor()] }),
    meterProvider: new MeterProvider(),
  });
}

const port = (s: typeof bare) =>
  new Promise<number>((r) => s.listen(0, '127.0.0.1', () => r((s.address() as AddressInfo).port)));
console.log(JSON.stringify({ bare: await port(bare), sdk: await port(sdk) }));
process.on('disconnect', () => process.exit(0));
