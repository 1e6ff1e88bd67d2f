// Read and update the API v3 webhook settings. The service first POSTs { test: true } to the
// address, which must answer 200: here a small local receiver does (see also WebhookHandler).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BadRequestError } from 'messaging-gateway-sdk';
import { connect } from './setup.js';

const receiver = createServer((req, res) => {
  req.resume();
  res.writeHead(200).end();
});
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
const webhooksUri =
  process.env.WEBHOOK_URL ?? `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/v3`;

const { client, close } = await connect();
try {
  console.log('before:', await client.v3.webhooks.get());
  await client.v3.webhooks.update({
    webhooksUri,
    subscriptions: {
      messagesAndStatuses: true,
      contactsAndDealsCreation: true,
      channelsUpdates: true,
      templateStatus: false,
    },
  });
  console.log('after: ', await client.v3.webhooks.get());
} catch (error) {
  if (error instanceof BadRequestError && error.code === 'testPostNotPassed') {
    console.error('The address did not answer 200 to the test POST:', error.data);
  } else throw error;
} finally {
  await close();
  receiver.close();
}
