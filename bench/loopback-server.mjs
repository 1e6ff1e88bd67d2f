// A minimal server for the overhead bench, in its own process so it does not share the
// client's event loop. Prints its port on stdout.
import { createServer } from 'node:http';

const BODY = JSON.stringify({
  data: [
    {
      channel_id: 'c1',
      transport: 'whatsapp',
      state: 'active',
      status: 'active',
      reason: null,
      phone: '79001234567',
      username: '',
      messenger_id: 'm1',
      name: 'Main',
      tier: null,
    },
  ],
  meta: { timestamp: 1 },
});
const server = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(BODY) });
  res.end(BODY);
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
process.on('disconnect', () => process.exit(0));
