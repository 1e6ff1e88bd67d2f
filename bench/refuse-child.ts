// Child of the refusal bench: builds the body of 1,000,000 bad items, then either JSON.parses it
// (the baseline) or has a WebhookHandler answer it, and reports time and peak memory growth.
import { WebhookHandler } from '../dist/webhooks.js';

const body = `{"event":"message.add","data":[${Array(1_000_000).fill('{}').join(',')}],"meta":{"idempotency_key":"m","timestamp":1}}`;
const baseRss = process.resourceUsage().maxRSS;
const t0 = performance.now();
let status = 0;
if (process.argv[2] === 'json') {
  JSON.parse(body);
} else {
  const hooks = new WebhookHandler({ secret: 'bench', maxBodyBytes: 8 * 1024 * 1024 });
  let issues = 0;
  hooks.on('error', (error) => {
    issues = (error as { issues?: unknown[] }).issues?.length ?? 0;
  });
  const answer = await hooks.handle({ method: 'POST', url: '/hooks?secret=bench', headers: {}, body });
  status = answer.status;
  process.stderr.write(`issues kept ${issues}\n`);
}
const ms = performance.now() - t0;
const growthMiB = (process.resourceUsage().maxRSS - baseRss) / 1024;
process.send?.({ ms, growthMiB, status, bytes: body.length });
