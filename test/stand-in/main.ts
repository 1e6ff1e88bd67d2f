// `npm run stand-in`: the local stand-in gateway as a process of its own, for trying the SDK by
// hand (and for benchmarks, which must not share a thread with it). Development only; not in the
// package. STAND_IN_PORT picks the port (default 8787); STAND_IN_RATE_LIMIT=requests/intervalMs.
import { startStandIn } from './server.js';

const [requests, intervalMs] = (process.env.STAND_IN_RATE_LIMIT ?? '500/5000').split('/').map(Number);
const standIn = await startStandIn({
  port: Number(process.env.STAND_IN_PORT ?? 8787),
  rateLimit: { requests: requests ?? 500, intervalMs: intervalMs ?? 5000 },
});
console.log(`stand-in gateway on ${standIn.url}`);
console.log(
  `  GATEWAY_BASE_URL=${standIn.url} GATEWAY_TOKEN=${standIn.token} GATEWAY_API_KEY=${standIn.apiKey}`,
);
console.log('  whatsapp numbers starting with 000 are unregistered (their messages fail with bad_contact)');
// Started with an IPC channel (by a benchmark): say when it listens, and answer each question
// with what happened so far.
const report = () =>
  process.send?.({ url: standIn.url, token: standIn.token, rejected: standIn.limiter.rejected });
process.on('message', report);
report();
const stop = async () => {
  await standIn.close();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
process.on('disconnect', stop);
