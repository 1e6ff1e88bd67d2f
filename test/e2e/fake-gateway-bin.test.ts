// The bin's fake gateway with --manual-statuses, spawned as a user runs it: a sent message waits
// at accepted, so the inbox page's buttons move it forward and nothing moves it back.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';

const CLI = ['--import', 'tsx', 'src/cli/main.ts'];

describe('messaging-gateway fake-gateway --manual-statuses', () => {
  it('keeps a sent message at accepted until a status is set', async () => {
    const child = spawn(
      process.execPath,
      [...CLI, 'fake-gateway', '--json', '--quiet', '--manual-statuses'],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    const lines = createInterface({ input: child.stdout });
    try {
      const started = JSON.parse(await new Promise<string>((resolve) => lines.once('line', resolve)));
      const call = (method: string, path: string, body?: unknown) =>
        fetch(`${started.url}${path}`, {
          method,
          headers: { authorization: `Bearer ${started.token}` },
          ...(body !== undefined && { body: JSON.stringify(body) }),
        }).then((r) => r.json());
      const created = await call('POST', '/v2/channels', {
        transport: 'telegram',
        credentials: { telegram_token: 't' },
      });
      const channel_id = created.data[0].channel_id;
      await expect
        .poll(async () => (await call('GET', `/v2/channels/${channel_id}`)).data[0].status)
        .toBe('active');
      const recipient = { chat_type: 'telegram', chat_id: '42' };
      await call('POST', '/v2/messages', { channel_id, recipient, text: 'Hi' });
      const page = await (await fetch(`${started.url}/`)).text();
      const token = /name="inbox-token" content="([^"]+)"/.exec(page)?.[1] as string;
      const events = await fetch(`${started.url}/_inbox/events?t=${token}`);
      // with automatic statuses the message is read a few 10 ms steps after the send
      await new Promise((resolve) => setTimeout(resolve, 200));
      const reader = (events.body as ReadableStream<Uint8Array>).getReader();
      const first = new TextDecoder().decode((await reader.read()).value);
      await reader.cancel();
      expect(first).toContain('"status":"accepted"');
      expect(first).not.toContain('"status":"read"');
    } finally {
      child.kill('SIGINT');
    }
    expect(await exited).toBe(0);
  });
});
