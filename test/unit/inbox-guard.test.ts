// Who may use the inbox, header by header; over real HTTP in test/e2e/inbox-http.test.ts.
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { refusal } from '../../src/testing/inbox/guard.js';
import { SecretMatcher } from '../../src/webhooks/receive/secret-matcher.js';

const req = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;
const token = new SecretMatcher('t');

describe('refusal', () => {
  it('lets in the page at port 80, where a browser leaves the port out of Host and Origin', () => {
    expect(refusal(req({ host: '127.0.0.1' }), 80, token, false)).toBeUndefined();
    expect(refusal(req({ host: 'localhost' }), 80, token, false)).toBeUndefined();
    expect(refusal(req({ host: '127.0.0.1:80' }), 80, token, false)).toBeUndefined();
    const action = { host: '127.0.0.1', origin: 'http://127.0.0.1', 'sec-fetch-site': 'same-origin' };
    expect(refusal(req({ ...action, 'x-inbox-token': 't' }), 80, token, true)).toBeUndefined();
  });

  it('still refuses a host or origin without the port at any other port', () => {
    expect(refusal(req({ host: '127.0.0.1' }), 8787, token, false)).toBeDefined();
    const action = { host: '127.0.0.1:8787', origin: 'http://127.0.0.1', 'x-inbox-token': 't' };
    expect(refusal(req(action), 8787, token, true)).toBe('cross-origin requests are refused');
    expect(refusal(req({ host: 'attacker.example' }), 80, token, false)).toBeDefined();
  });
});
