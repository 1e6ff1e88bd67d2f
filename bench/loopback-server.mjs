// A minimal stand-in for the service, for the overhead bench: answers a send as the service
// does, and a GET with a list of one channel. Imported, it listens in the importing process; run
// as a script (forked), it listens in a process of its own and prints its port on stdout.
import { once } from 'node:events';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';

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

/**
 * Starts the server on a free port of 127.0.0.1.
 * @returns its base address and a function that closes it
 */
export async function listenLoopback() {
  const server = createServer((req, res) => {
    // A send's body is drained, as a real service reads it, then answered.
    const body = req.method === 'POST' ? SENT : BODY;
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const close = () => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  };
  return { url: `http://127.0.0.1:${server.address().port}`, close };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { url } = await listenLoopback();
  console.log(new URL(url).port);
  process.on('disconnect', () => process.exit(0));
}
