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
const SENT = JSON.stringify({
  data: { request_id: '6f1c2a54-2b1e-4f7e-9a43-2d1f0c9b8e11', chat_id: '79001234567' },
});
const server = createServer((req, res) => {
  // A send's body is drained, as a real service reads it, then answered.
  const body = req.method === 'POST' ? SENT : BODY;
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
process.on('disconnect', () => process.exit(0));
