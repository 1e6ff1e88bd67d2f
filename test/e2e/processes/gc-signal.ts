// Child process (run with --expose-gc): a custom fetch that keeps only the request's signal, a
// call with a 1 s timeout, and forced garbage collections meanwhile. Prints how the call ended.
import { GatewayClient } from '../../../src/index.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');

const fetchKeepingOnlyTheSignal = (input: Request | string | URL, init?: RequestInit): Promise<Response> => {
  const signal = input instanceof Request ? input.signal : init?.signal;
  return new Promise((_resolve, reject) => {
    signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
};

const client = new GatewayClient({
  token: 't',
  baseUrl: 'http://127.0.0.1:9/v2',
  fetch: fetchKeepingOnlyTheSignal as typeof fetch,
  timeout: 1000,
  maxRetries: 0,
  rateLimit: false,
});
const started = performance.now();
const collect = setInterval(() => gc(), 50);
const outcome = await client.channels.list().then(
  () => 'resolved',
  (error: unknown) => (error as Error).name,
);
clearInterval(collect);
process.send?.({ outcome, ms: Math.round(performance.now() - started) });
