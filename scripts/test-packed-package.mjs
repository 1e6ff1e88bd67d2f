// Installs the packed tarball into a scratch project and uses it as a user would:
// `import` and `require` of each entry, one copy of every class across entries, the /webhooks
// entry loading no ky, and the /redis entry loading no Redis client (DESIGN.md, Entry points).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const tarball = process.argv[2];
if (!tarball) throw new Error('usage: node scripts/test-packed-package.mjs <tarball>');
const dir = mkdtempSync(join(tmpdir(), 'mgsdk-packed-'));
try {
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'packed-check', private: true }));
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--silent', tarball], {
    cwd: dir,
    stdio: 'inherit',
  });

  const esm = `
    import * as main from 'messaging-gateway-sdk';
    import * as hooks from 'messaging-gateway-sdk/webhooks';
    import * as schemas from 'messaging-gateway-sdk/schemas';
    import assert from 'node:assert/strict';
    assert.equal(typeof main.GatewayClient, 'function');
    assert.equal(typeof schemas.messageAdd.safeParse, 'function');
    assert.equal(typeof schemas.sendMessageParams.safeParse, 'function');
    // The main entry and /webhooks hold classes, functions, types and constants: no schema values.
    for (const entry of [main, hooks]) {
      const lower = Object.keys(entry).filter((k) => /^[a-z]/.test(k) && typeof entry[k]?.safeParse === 'function');
      assert.deepEqual(lower, []);
    }
    assert.equal(hooks.WebhookParseError, main.WebhookParseError);
    assert.ok(new hooks.WebhookParseError([], '') instanceof main.GatewayError);
    const redis = await import('messaging-gateway-sdk/redis');
    assert.equal(typeof redis.redisRateLimiter, 'function');
    assert.throws(() => redis.redisDedupeStore({}), main.GatewayError);
    console.log('esm: ok');
  `;
  const cjs = `
    const main = require('messaging-gateway-sdk');
    const hooks = require('messaging-gateway-sdk/webhooks');
    const schemas = require('messaging-gateway-sdk/schemas');
    const assert = require('node:assert/strict');
    assert.equal(typeof schemas.v3Message.safeParse, 'function');
    assert.equal(typeof main.GatewayClient, 'function');
    assert.equal(hooks.WebhookParseError, main.WebhookParseError);
    assert.ok(new hooks.WebhookParseError([], '') instanceof main.GatewayError);
    const redis = require('messaging-gateway-sdk/redis');
    assert.equal(typeof redis.redisDeliveryStore, 'function');
    assert.throws(() => redis.redisRateLimiter({}, { key: 'k' }), main.GatewayError);
    // ky is ESM-only: the CJS build loads it through require(esm) (Node >= 22.12).
    const client = new main.GatewayClient({ baseUrl: 'http://127.0.0.1:9', token: 't' });
    assert.equal(typeof client.messages.send, 'function');
    console.log('cjs: ok');
  `;
  // The /webhooks entry must not load ky: check the module graph it actually loads.
  const noKy = `
    await import('messaging-gateway-sdk/webhooks');
    const loaded = [...(globalThis.__loaded ?? [])];
    console.log('webhooks entry loaded ky:', loaded.some((u) => u.includes('/ky/')));
    if (loaded.some((u) => u.includes('/ky/'))) process.exit(1);
  `;
  // The /redis entry must load no Redis client of its own (the user passes theirs in).
  const noRedisClient = `
    await import('messaging-gateway-sdk/redis');
    const loaded = [...(globalThis.__loaded ?? [])];
    const clients = loaded.filter((u) => ['/ioredis/', '/redis/', '/@redis/'].some((p) => u.includes('/node_modules' + p)));
    console.log('redis entry loaded a Redis client:', clients.length > 0);
    if (clients.length > 0) process.exit(1);
  `;
  const hook = `
    import { registerHooks } from 'node:module';
    globalThis.__loaded = new Set();
    registerHooks({ resolve(spec, ctx, next) { const r = next(spec, ctx); globalThis.__loaded.add(r.url); return r; } });
  `;
  writeFileSync(join(dir, 'esm.mjs'), esm);
  writeFileSync(join(dir, 'cjs.cjs'), cjs);
  writeFileSync(join(dir, 'hook.mjs'), hook);
  writeFileSync(join(dir, 'no-ky.mjs'), noKy);
  writeFileSync(join(dir, 'no-redis-client.mjs'), noRedisClient);
  for (const [file, args] of [
    ['esm.mjs', []],
    ['cjs.cjs', []],
    ['no-ky.mjs', ['--import', './hook.mjs']],
    ['no-redis-client.mjs', ['--import', './hook.mjs']],
  ]) {
    execFileSync(process.execPath, [...args, file], { cwd: dir, stdio: 'inherit' });
  }
  const pkg = JSON.parse(readFileSync(join(dir, 'node_modules/messaging-gateway-sdk/package.json'), 'utf8'));
  console.log(
    `packed ${pkg.name}@${pkg.version}: import, require, /schemas, /webhooks without ky and /redis without a Redis client all pass`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
