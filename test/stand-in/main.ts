// `npm run stand-in`: the local stand-in gateway as a process of its own, for trying the SDK by
// hand. Development only; not in the package. STAND_IN_PORT picks the port (default 8787).
import { startStandIn } from './server.js';

const standIn = await startStandIn({ port: Number(process.env.STAND_IN_PORT ?? 8787) });
console.log(`stand-in gateway on ${standIn.url}`);
console.log(
  `  GATEWAY_BASE_URL=${standIn.url} GATEWAY_TOKEN=${standIn.token} GATEWAY_API_KEY=${standIn.apiKey}`,
);
console.log('  whatsapp numbers starting with 000 are unregistered (their messages fail with bad_contact)');
const stop = async () => {
  await standIn.close();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
