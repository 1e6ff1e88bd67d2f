// Who may use the inbox, header by header; over real HTTP in test/e2e/inbox-http.test.ts.
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { refusal } from '../../src/testing/inbox/guard.js';

const req = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;

describe('refusal', () => {
  it('lets in the page at port 80, where a browser leaves the port out of Host and Origin', () => {
    expect(refusal(req({ host: '127.0.0.1' }), 80, 't', false)).toBeUndefined();
    expect(refusal(req({ host: 'localhost' }), 80, 't', false)).toBeUndefined();
    expect(refusal(req({ host: '127.0.0.1:80' }), 80, 't', false)).toBeUndefined();
    const action = { host: '127.0.0.1', origin: 'http://127.0.0.1', 'sec-fetch-site': 'same-origin' };
    expect(refusal(req({ ...action, 'x-inbox-token': 't' }), 80, 't', true)).toBeUndefined();
  });

  it('still refuses a host or origin without the port at any other port', () => {
    expect(refusal(req({ host: '127.0.0.1' }), 8787, 't', false)).toBeDefined();
    const action = { host: '127.0.0.1:8787', origin: 'http://127.0.0.1', 'x-inbox-token': 't' };
    expect(refusal(req(action), 8787, 't', true)).toBe('cross-origin requests are refused');
    expect(refusal(req({ host: 'attacker.example' }), 80, 't', false)).toBeDefined();
  });
});
