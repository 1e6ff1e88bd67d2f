// Installs the packed tarball into a scratch project and uses it as a user would:
// `import` and `require` of each entry, one copy of every class across entries, the /webhooks
// entry loading no ky, the /redis entry loading no Redis client, /testing loading nothing but
// node's modules and the package's own files, and the bin `messaging-gateway` run through npx
// (DESIGN.md, Entry points).
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const tarball = process.argv[2];
if (!tarball) throw new Error('usage: node scripts/test-packed-package.mjs <tarball>');
checkFileList(execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).trim().split('\n'));
const dir = mkdtempSync(join(tmpdir(), 'mgsdk-packed-'));
try {
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'packed-check', private: true }));
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--silent', tarball, '@opentelemetry/api@1'], {
    cwd: dir,
    stdio: 'inherit',
  });

  const esm = `
    import * as main from 'messaging-gateway-sdk';
    import * as hooks from 'messaging-gateway-sdk/webhooks';
    import * as schemas from 'messaging-gateway-sdk/schemas';
    import assert from 'node:assert/strict';
    assert.equal(typeof main.GatewayClient, 'function');
    // Node gets the chunked build (the \`node\` condition); bundlers the one-file-per-module build.
    for (const entry of ['', '/webhooks', '/schemas', '/redis', '/postgres', '/testing', '/otel'])
      assert.ok(import.meta.resolve('messaging-gateway-sdk' + entry).includes('/dist/node/'), entry);
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
    assert.throws(() => redis.redisWindowStore({}), main.GatewayError);
    assert.ok(new main.ConversationWindowError({ code: 'window', transport: 'wapi', channelId: 'c', chatId: '1' }) instanceof main.GatewayValidationError);
    const pg = await import('messaging-gateway-sdk/postgres');
    assert.throws(() => pg.postgresStore({}), main.GatewayError);
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
    assert.throws(() => require('messaging-gateway-sdk/postgres').postgresStore({}), main.GatewayError);
    // ky is ESM-only: the CJS build loads it with import() on the first call (the kit test below makes one).
    const client = new main.GatewayClient({ baseUrl: 'http://127.0.0.1:9', token: 't' });
    assert.equal(typeof client.messages.send, 'function');
    console.log('cjs: ok');
  `;
  // The kit from both module systems: a fake gateway answering the client, a built delivery that
  // the main entry's parseWebhook accepts.
  const kit = (load) => `
    ${load}
    const gateway = await testing.createFakeGateway();
    const client = new main.GatewayClient({ baseUrl: gateway.url, token: gateway.token });
    const [channel] = await client.channels.create({ transport: 'telegram', credentials: { telegram_token: 't' } });
    if (!gateway.channels.has(channel.channel_id)) throw new Error('the fake did not keep the channel');
    const webhook = main.parseWebhook(testing.buildWebhook('message.add', { data: [{ text: 'hi' }] }));
    if (webhook.data[0].text !== 'hi') throw new Error('buildWebhook');
    await gateway.close();
    console.log('testing kit: ok');
  `;
  const kitEsm = kit(
    `import * as main from 'messaging-gateway-sdk'; import * as testing from 'messaging-gateway-sdk/testing';`,
  );
  const kitCjs = `(async () => { ${kit(`const main = require('messaging-gateway-sdk'); const testing = require('messaging-gateway-sdk/testing');`)} })();`;
  // /testing must load nothing at import time beyond node's modules and the package itself.
  const kitLoads = `
    await import('messaging-gateway-sdk/testing');
    const foreign = [...globalThis.__loaded].filter(
      (u) => !u.startsWith('node:') && !u.endsWith('/kit-loads.mjs') && !u.includes('/node_modules/messaging-gateway-sdk/'),
    );
    console.log('testing entry loaded beyond node: and the package:', foreign.length ? foreign : 'nothing');
    if (foreign.length) process.exit(1);
  `;
  // The /webhooks entry must not load ky: check the module graph it actually loads.
  const noKy = `
    await import('messaging-gateway-sdk/webhooks');
    const loaded = [...(globalThis.__loaded ?? [])];
    console.log('webhooks entry loaded ky:', loaded.some((u) => u.includes('/ky/')));
    if (loaded.some((u) => u.includes('/ky/'))) process.exit(1);
  `;
  // No entry but /otel loads @opentelemetry/api or the /otel code; /otel works in ESM and CJS.
  const noOtel = `
    await import('messaging-gateway-sdk');
    await import('messaging-gateway-sdk/webhooks');
    await import('messaging-gateway-sdk/redis');
    await import('messaging-gateway-sdk/schemas');
    const loaded = [...(globalThis.__loaded ?? [])];
    const otel = loaded.filter((u) => u.includes('/@opentelemetry/') || u.includes('/dist/otel.') || u.includes('/dist/node/otel.'));
    console.log('entries loaded OpenTelemetry:', otel.length ? otel : 'nothing');
    if (otel.length > 0) process.exit(1);
    const { instrument } = await import('messaging-gateway-sdk/otel');
    instrument()();
    const cjs = (await import('node:module')).createRequire(import.meta.url)('messaging-gateway-sdk/otel');
    if (typeof cjs.instrument !== 'function') process.exit(1);
  `;
  // The /redis entry must load no Redis client of its own (the user passes theirs in).
  const noRedisClient = `
    await import('messaging-gateway-sdk/redis');
    const loaded = [...(globalThis.__loaded ?? [])];
    const clients = loaded.filter((u) => ['/ioredis/', '/redis/', '/@redis/'].some((p) => u.includes('/node_modules' + p)));
    console.log('redis entry loaded a Redis client:', clients.length > 0);
    if (clients.length > 0) process.exit(1);
  `;
  // The /postgres entry must load no PostgreSQL driver or ORM of its own (the user passes theirs in).
  const noPgDriver = `
    await import('messaging-gateway-sdk/postgres');
    const loaded = [...(globalThis.__loaded ?? [])];
    const drivers = loaded.filter((u) => ['/pg/', '/postgres/', '/@electric-sql/', '/drizzle-orm/', '/kysely/', '/knex/', '/@prisma/'].some((p) => u.includes('/node_modules' + p)));
    console.log('postgres entry loaded a driver:', drivers.length > 0);
    if (drivers.length > 0) process.exit(1);
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
  writeFileSync(join(dir, 'no-pg-driver.mjs'), noPgDriver);
  writeFileSync(join(dir, 'no-otel.mjs'), noOtel);
  writeFileSync(join(dir, 'kit.mjs'), kitEsm);
  writeFileSync(join(dir, 'kit.cjs'), kitCjs);
  writeFileSync(join(dir, 'kit-loads.mjs'), kitLoads);
  for (const [file, args] of [
    ['esm.mjs', []],
    ['cjs.cjs', []],
    ['no-ky.mjs', ['--import', './hook.mjs']],
    ['no-redis-client.mjs', ['--import', './hook.mjs']],
    ['no-pg-driver.mjs', ['--import', './hook.mjs']],
    ['no-otel.mjs', ['--import', './hook.mjs']],
    ['kit.mjs', []],
    ['kit.cjs', []],
    ['kit-loads.mjs', ['--import', './hook.mjs']],
  ]) {
    execFileSync(process.execPath, [...args, file], { cwd: dir, stdio: 'inherit' });
  }
  await checkBin(dir);
  checkPostgresTypes(dir);
  const pkg = JSON.parse(readFileSync(join(dir, 'node_modules/messaging-gateway-sdk/package.json'), 'utf8'));
  console.log(
    `packed ${pkg.name}@${pkg.version}: import, require, /schemas, /webhooks without ky, /redis without a Redis client, /otel loaded by no other entry, /testing and the bin all pass`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}

/** The bin as npm installs it: --help, decode of a built delivery, fake-gateway answering and serving its inbox. */
async function checkBin(dir) {
  const bin = join(dir, 'node_modules/.bin/messaging-gateway');
  const help = execFileSync(bin, ['--help'], { cwd: dir, encoding: 'utf8' });
  if (!help.startsWith('Usage: messaging-gateway')) throw new Error(`bin --help printed: ${help}`);
  const body = execFileSync(bin, ['trigger', '--list'], { cwd: dir, encoding: 'utf8' });
  if (!body.split('\n').includes('v3.createDeal')) throw new Error('bin trigger --list');
  const sample = JSON.stringify({ test: true });
  const decoded = execFileSync(bin, ['decode', '--json'], { cwd: dir, input: sample, encoding: 'utf8' });
  if (JSON.parse(decoded).kind !== 'test') throw new Error(`bin decode printed: ${decoded}`);
  const child = spawn(bin, ['fake-gateway', '--json', '--quiet'], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const first = await new Promise((resolve, reject) => {
      child.stdout.once('data', (chunk) => resolve(String(chunk).split('\n')[0]));
      child.once('exit', (code) => reject(new Error(`fake-gateway exited ${code}`)));
    });
    const { url, token, inbox } = JSON.parse(first);
    const res = await fetch(`${url}/v2/channels`, { headers: { authorization: `Bearer ${token}` } });
    if (res.status !== 200) throw new Error(`fake-gateway answered ${res.status}`);
    // The inbox page ships inside dist/ (embedded at build): the page, its script and its style.
    const page = await (await fetch(inbox)).text();
    if (!page.includes('<title>Inbox') || !page.includes('/_inbox/inbox-live.js'))
      throw new Error('no inbox page');
    for (const file of ['inbox-live.js', 'inbox.js', 'inbox.css']) {
      const asset = await fetch(`${url}/_inbox/${file}`);
      if (asset.status !== 200 || (await asset.text()).length < 500)
        throw new Error(`inbox ${file}: ${asset.status}`);
    }
  } finally {
    child.kill('SIGINT');
  }
  console.log('bin messaging-gateway: --help, trigger --list, decode, fake-gateway and its inbox page: ok');
}

/**
 * What the tarball holds: the built entries (ESM, CJS, both type files and source maps), the bin, the
 * PostgreSQL migrations as SQL, the guides and their pictures, README, CHANGELOG and LICENSE, and
 * nothing else (no src/, tests or local files).
 */
function checkFileList(paths) {
  const files = paths.map((path) => path.replace(/^package\//, ''));
  const allowed = [
    // ESM: one file per source module, in src/'s folders, and for Node the entries and their
    // shared chunks in dist/node/; CJS: the entries and their shared chunks.
    /^dist\/([\w-]+\/)*[\w.-]+\.js(\.map)?$/,
    /^dist\/[\w.-]+\.(cjs|d\.ts|d\.cts)(\.map)?$/,
    /^dist\/postgres\/sql\/\d+_[\w-]+\.sql$/,
    /^docs\/[\w-]+\.md$/,
    /^docs\/images\/[\w-]+\.png$/, // the guides' and README's pictures, linked relatively
    /^(package\.json|README\.md|CHANGELOG\.md|LICENSE)$/,
  ];
  const stray = files.filter((file) => !allowed.some((pattern) => pattern.test(file)));
  if (stray.length > 0) throw new Error(`the tarball holds files it should not: ${stray.join(', ')}`);
  const required = [
    'package.json',
    'README.md',
    'CHANGELOG.md',
    'LICENSE',
    'dist/cli.js',
    'docs/receiving-webhooks.md',
    'docs/images/inbox.png',
    'dist/postgres/sql/001_tables.sql',
  ];
  for (const entry of ['index', 'webhooks', 'schemas', 'redis', 'postgres', 'testing', 'otel']) {
    for (const ext of ['js', 'cjs', 'd.ts', 'd.cts']) required.push(`dist/${entry}.${ext}`);
  }
  const missing = required.filter((file) => !files.includes(file));
  if (missing.length > 0) throw new Error(`the tarball lacks ${missing.join(', ')}`);
  console.log(`files: ${files.length} in the tarball, all expected`);
}

/**
 * The /postgres entry's types compile (skipLibCheck off) in a project with no driver's types
 * installed, and store.tx(context) is the driver's transaction worked out from the user's db.
 */
function checkPostgresTypes(dir) {
  const consumer = `
    import { WebhookHandler } from 'messaging-gateway-sdk';
    import { postgresStore } from 'messaging-gateway-sdk/postgres';
    interface Client { query(text: string): Promise<{ rows: unknown[] }>; release(): void }
    interface Pool {
      totalCount: number;
      query(text: string): Promise<{ rows: unknown[] }>;
      connect(): Promise<Client>;
      connect(callback: (err: Error | undefined, client: Client | undefined, done: () => void) => void): void;
    }
    declare const pool: Pool;
    const store = postgresStore(pool);
    const hooks = new WebhookHandler({ secret: 's', dedupe: store.dedupe, dispatch: store.inbox });
    hooks.on('message.add', async (_event, context) => {
      const client: Client = store.tx(context);
      await client.query('SELECT 1');
    });
  `;
  writeFileSync(join(dir, 'consumer.ts'), consumer);
  const tsc = join(process.cwd(), 'node_modules/typescript/bin/tsc');
  const flags = [
    '--noEmit',
    '--strict',
    '--skipLibCheck',
    'false',
    '--module',
    'nodenext',
    '--target',
    'es2022',
  ];
  // Node's own types from this repository, and nothing else of it (no driver's types).
  const types = ['--typeRoots', join(process.cwd(), 'node_modules/@types'), '--types', 'node'];
  execFileSync(process.execPath, [tsc, ...flags, ...types, 'consumer.ts'], { cwd: dir, stdio: 'inherit' });
  console.log('postgres types: compile without any driver installed; store.tx is typed from the db');
}
