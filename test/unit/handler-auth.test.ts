import { describe, expect, it, vi } from 'vitest';
import { GatewayError, GatewayValidationError, WebhookAuthError } from '../../src/core/errors.js';
import { WebhookHandler } from '../../src/webhooks/receive/handler.js';
import { SecretMatcher } from '../../src/webhooks/receive/secret-matcher.js';
import { messageAdd, post } from '../support/deliveries.js';
import { fixture } from '../support/fixtures.js';
import { collecting } from '../support/handler.js';

const createDeal = JSON.stringify(fixture('v3', 'createDeal'));
const contactAdd = JSON.stringify(fixture('v2', 'crm_entities.contact_add'));
const probe = JSON.stringify({ test: true });
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe('A secure default: the constructor needs a way to authenticate', () => {
  it('throws a GatewayError naming secret, v3AuthToken and allowUnauthenticated', () => {
    expect(() => new WebhookHandler()).toThrow(GatewayError);
    expect(() => new WebhookHandler({ secret: '' })).toThrow(
      /`secret`.*`v3AuthToken`.*allowUnauthenticated/s,
    );
  });

  it('builds with a secret, a crmKey, or allowUnauthenticated: true', () => {
    expect(() => new WebhookHandler({ secret: 's' })).not.toThrow();
    expect(() => new WebhookHandler({ v3AuthToken: 'k' })).not.toThrow();
    expect(() => new WebhookHandler({ allowUnauthenticated: true })).not.toThrow();
  });

  it('refuses figures that are not positive numbers, naming the option', () => {
    for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => new WebhookHandler({ secret: 's', bodyTimeoutMs: bad })).toThrow(/bodyTimeoutMs/);
      expect(() => new WebhookHandler({ secret: 's', maxBodyBytes: bad })).toThrow(/maxBodyBytes/);
    }
    expect(() => new WebhookHandler({ secret: 's', dispatch: 'later' as never })).toThrow(/dispatch/);
  });

  it('refuses a timer option past 2^31-1 ms (a timer that long fires at once) with a GatewayValidationError naming it', async () => {
    const thirtyDays = 30 * 86_400_000;
    for (const name of ['bodyTimeoutMs', 'replyTimeoutMs'] as const) {
      const build = () => new WebhookHandler({ secret: 's', [name]: thirtyDays });
      expect(build).toThrow(GatewayValidationError);
      try {
        build();
      } catch (error) {
        expect((error as GatewayValidationError).issues[0]?.path).toEqual([name]);
      }
      expect(() => new WebhookHandler({ secret: 's', [name]: 2_147_483_647 })).not.toThrow();
    }
    // The longest reply time still leaves a late responder a lease a timer can hold.
    const patient = new WebhookHandler({ secret: 's', replyTimeoutMs: 2_147_483_647 });
    let release: (reply: { id: string; name: string }) => void = () => {};
    patient.respond('crm_entities.contact_add', () => new Promise((resolve) => (release = resolve)));
    const answer = patient.handle(post(contactAdd, '/hooks?secret=s'));
    const early = await Promise.race([answer, new Promise((resolve) => setTimeout(resolve, 50, 'pending'))]);
    expect(early).toBe('pending');
    release({ id: 'c-1', name: 'Ann' });
    expect((await answer).status).toBe(200);
  });

  it('a 30-day dedupeTtlMs is a TTL, not a timer: accepted', () => {
    expect(() => new WebhookHandler({ secret: 's', dedupeTtlMs: 30 * 86_400_000 })).not.toThrow();
  });
});

describe('Authenticated: the right ?secret=, or a v3 delivery with the right crmKey', () => {
  it('with a secret, takes v2 and v3 deliveries carrying it, and refuses others 401', async () => {
    const { hooks, errors } = collecting({ secret: 's3cret-value' });
    expect((await hooks.handle(post(messageAdd(), '/hooks'))).status).toBe(401);
    expect((await hooks.handle(post(messageAdd(), '/hooks?secret=nope'))).status).toBe(401);
    expect((await hooks.handle(post(messageAdd(), '/hooks?secret=s3cret-value'))).status).toBe(200);
    expect((await hooks.handle(post(probe, '/hooks?secret=s3cret-value'))).status).toBe(200);
    expect(errors.map(([e]) => e)).toEqual([expect.any(WebhookAuthError), expect.any(WebhookAuthError)]);
    expect(errors[1]?.[1].request.url).toBe('/hooks?secret=***');
    expect(errors[1]?.[0].message).toMatch(/lacks the right \?secret= query value/);
  });

  it('with only v3AuthToken, refuses every v2 delivery, even a forged one carrying the crmKey', async () => {
    const { hooks, errors } = collecting({ secret: undefined, v3AuthToken: 'crm-key-123' });
    const forged = vi.fn();
    hooks.on('crm_entities.contact_add', forged);
    hooks.respond('crm_entities.contact_add', forged);
    expect((await hooks.handle(post(contactAdd))).status).toBe(401);
    expect((await hooks.handle(post(contactAdd, '/hooks', bearer('crm-key-123')))).status).toBe(401);
    expect((await hooks.handle(post(messageAdd(), '/hooks', bearer('crm-key-123')))).status).toBe(401);
    await hooks.drain();
    expect(forged).not.toHaveBeenCalled();
    expect(errors.every(([e]) => e instanceof WebhookAuthError)).toBe(true);
    expect(errors[1]?.[0].message).toMatch(/v2 delivery needs the secret/);
  });

  it('with only v3AuthToken, takes a v3 delivery with the right Bearer and refuses a wrong one', async () => {
    const { hooks } = collecting({ secret: undefined, v3AuthToken: 'crm-key-123' });
    hooks.respond('v3.createDeal', () => ({ id: 1 }));
    expect((await hooks.handle(post(createDeal, '/hooks', bearer('crm-key-123')))).status).toBe(200);
    expect((await hooks.handle(post(probe, '/hooks', bearer('crm-key-12')))).status).toBe(401);
    expect((await hooks.handle(post(probe, '/hooks', bearer('crm-key-1234')))).status).toBe(401);
    expect((await hooks.handle(post(createDeal, '/hooks'))).status).toBe(401);
  });

  it('with both, a v3 delivery needs one of them, a v2 delivery the secret', async () => {
    const { hooks } = collecting({ secret: 'sec', v3AuthToken: 'key' });
    expect((await hooks.handle(post(probe, '/hooks?secret=sec'))).status).toBe(200);
    expect((await hooks.handle(post(probe, '/hooks', bearer('key')))).status).toBe(200);
    expect((await hooks.handle(post(messageAdd(), '/hooks', bearer('key')))).status).toBe(401);
  });

  it('refuses before reading the body: a stream that never ends is never touched', async () => {
    const { hooks } = collecting();
    let pulled = 0;
    const body = new ReadableStream({ pull: () => void pulled++ }, { highWaterMark: 0 });
    const answer = await hooks.handle(post(body, '/hooks?secret=wrong'));
    expect(answer.status).toBe(401);
    expect(pulled).toBe(0);
    expect(body.locked).toBe(false);
  });
});

describe('Secrets compared in constant time', () => {
  it('compares equal values equal and anything else unequal, lengths included', () => {
    const matcher = new SecretMatcher('abc');
    expect(matcher.matches('abc')).toBe(true);
    for (const other of ['abd', '', 'ab', 'abcabc', 'abca', null, undefined])
      expect(matcher.matches(other)).toBe(false);
    expect(new SecretMatcher('é').matches('é')).toBe(true);
    expect(() => new SecretMatcher('')).toThrow(RangeError);
  });

  it('never shows the secret when logged or serialized', async () => {
    const matcher = new SecretMatcher('top-secret');
    const { inspect } = await import('node:util');
    expect(JSON.stringify({ matcher })).not.toContain('top-secret');
    expect(inspect(matcher, { showHidden: true, depth: 5 })).not.toContain('top-secret');
    const hooks = new WebhookHandler({ secret: 'top-secret', v3AuthToken: 'crm-top' });
    expect(inspect(hooks, { showHidden: true, depth: 5 })).not.toMatch(/top-secret|crm-top/);
  });
});

describe('The secret is read from the query as URLSearchParams reads it', () => {
  it('agrees with URLSearchParams on encoded, repeated, odd and missing values', async () => {
    const { queryValue } = await import('../../src/internal/query.js');
    const urls = [
      '/h?secret=a%20b',
      '/h?secret=a+b',
      '/h?x=1&secret=s&secret=t',
      '/h?secret',
      '/h?secret=%E0%A4%A',
      '/h?sec%72et=v',
      '/h#secret=no',
      '/h?a=1#x&secret=no',
      'https://crm.example/hooks?secret=%F0%9F%94%91',
      '/h',
      '/h?=&&secret==x',
      '/h?',
      '/h?&',
      '/h?secret=x&',
      '/h?a=b=c&secret=d=e',
      '/h?secret=1#',
      '/h?#secret=1',
      '/h?x&secret',
      '/h?secret&secret=2',
    ];
    // And every query of four pieces drawn from those that matter (2,401 of them).
    const alphabet = ['secret', '=', '&', '#', '%72', '+', 'x'];
    for (let n = 0; n < 7 ** 4; n++) {
      let query = '';
      for (let rest = n, i = 0; i < 4; i++, rest = Math.floor(rest / 7)) query += alphabet[rest % 7];
      urls.push(`/h?${query}`);
    }
    for (const url of urls) {
      expect(queryValue(url, 'secret'), url).toBe(
        new URL(url, 'http://localhost').searchParams.get('secret'),
      );
    }
  });

  it('agrees with URLSearchParams on values full of malformed, partial and non-UTF-8 escapes', async () => {
    const { queryValue } = await import('../../src/internal/query.js');
    // Pieces that each decode differently: valid and broken escapes, bytes that are not UTF-8, a
    // byte-order mark (kept), `+`, and text that is not ASCII.
    const pieces = ['%', '%4', '%41', '%zz', '%e9', '%C3%A9', '%E0%A4', '%EF%BB%BF', '%2B', '+', 'é', 'a'];
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (let n = 0; n < 2000; n++) {
      let value = '';
      for (let i = 1 + random(5); i > 0; i--) value += pieces[random(pieces.length)];
      const url = `/h?${random(2) ? 'x=%zz&' : ''}secret=${value}`;
      expect(queryValue(url, 'secret'), url).toBe(
        new URL(url, 'http://localhost').searchParams.get('secret'),
      );
    }
  });

  it('matches a percent-encoded secret, and masks every spelling of the key', async () => {
    const { maskSecret } = await import('../../src/internal/query.js');
    const hooks = new WebhookHandler({ secret: 'a b/é' });
    const encoded = `/hooks?s%65cret=${encodeURIComponent('a b/é')}`;
    expect((await hooks.handle(post(messageAdd(), encoded))).status).toBe(200);
    expect((await hooks.handle(post(messageAdd(), '/hooks?secret=a+b%2F%C3%A9'))).status).toBe(200);
    expect(maskSecret('/h?a=1&SECRET=x&s%65cret=y&secret&b=%zz#secret=z')).toBe(
      '/h?a=1&SECRET=***&s%65cret=***&secret=***&b=%zz#secret=z',
    );
    expect(maskSecret('/h?secrets=1&%zz=2')).toBe('/h?secrets=1&%zz=2');
  });

  it('is linear in the query’s length: 256 K of pairs without `=`, or of malformed escapes, take under 50 ms each', async () => {
    const { maskSecret, queryValue } = await import('../../src/internal/query.js');
    // Node's own server stops at 16 KB of headers, Deno's at ~65 KB (where a quadratic scan took 11 ms).
    for (const url of [
      `/h?${'&'.repeat(256_000)}`,
      `/h?${'%=&'.repeat(85_000)}`,
      `/h?${'%zz=1&'.repeat(42_000)}`,
    ]) {
      queryValue(url, 'secret'); // warm
      // The cheapest of three runs: a busy machine can slow one run, not all of them.
      let cheapest = Number.POSITIVE_INFINITY;
      for (let run = 0; run < 3; run++) {
        const start = process.cpuUsage();
        expect(queryValue(url, 'secret')).toBeNull();
        expect(maskSecret(url)).toBe(url);
        const used = process.cpuUsage(start);
        cheapest = Math.min(cheapest, (used.user + used.system) / 1000);
      }
      expect(cheapest, url.slice(0, 12)).toBeLessThan(50);
    }
  });

  it('answers a hostile 16 KB query 401 at the cost of an ordinary refusal, not one exception per escape', async () => {
    const hooks = new WebhookHandler({ secret: 'right' });
    hooks.on('error', () => {});
    for (const piece of ['%=&', '%zz=1&', '%zzzzzz=&']) {
      const url = `/hooks?${piece.repeat(Math.floor(16_384 / piece.length))}`;
      // The cheapest of five runs: a busy machine can slow one run, not all of them.
      let cheapest = Number.POSITIVE_INFINITY;
      for (let run = 0; run < 5; run++) {
        const start = process.cpuUsage();
        expect((await hooks.handle(post(messageAdd(), url))).status).toBe(401);
        const used = process.cpuUsage(start);
        cheapest = Math.min(cheapest, (used.user + used.system) / 1000);
      }
      expect(cheapest, piece).toBeLessThan(5); // far below an exception per malformed escape
    }
  });
});
