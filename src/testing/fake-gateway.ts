import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { channelLife, QR_TRANSPORTS, setChannelStatus } from './channel-life.js';
import { Deliverer, type DeliveryOptions, type DeliveryRecord } from './deliveries.js';
import { fail } from './http-utils.js';
import { entriesOf } from './inbox/delta.js';
import { LiveUpdates } from './inbox/live-updates.js';
import { deliveryDetail } from './inbox/log-lines.js';
import { inboxRoutes } from './inbox/route.js';
import { inboxSnapshot } from './inbox/snapshot.js';
import { deliverDelete, deliverEdit, messageLife } from './lifecycles.js';
import { type FailAnswer, type RecordedRequest, RequestGate } from './requests.js';
import { routeV2, type V2Effects } from './routes-v2.js';
import { routeV3 } from './routes-v3.js';
import { type FakeGatewaySimulate, simulator } from './simulate.js';
import {
  type FakeChannel,
  type FakeMessage,
  FakeState,
  type FakeSubscription,
  type FakeV3Settings,
  type SeededChannel,
} from './state.js';

/** Options of {@link createFakeGateway}. */
export interface FakeGatewayOptions extends DeliveryOptions {
  /** The v2 `client_access_token` it accepts. @default 'fake-gateway-token' */
  token?: string;
  /** The v3 API key it accepts. @default 'fake-gateway-api-key' */
  apiKey?: string;
  /** The port on 127.0.0.1. @default 0 (a free port) */
  port?: number;
  /**
   * Requests over this limit are answered 429 with `Retry-After` (a fixed window, reset every
   * `intervalMs`, as the spec states it); `false` turns it off. @default { requests: 500, intervalMs: 5000 }
   */
  rateLimit?: { requests: number; intervalMs: number } | false;
  /**
   * After a send, deliver message.add and then the statuses accepted → sent → delivered → read
   * (or → failed, bad_contact, for a number starting with `000`). `false` delivers only message.add:
   * the test drives statuses with `simulate.status`. @default true
   */
  autoStatuses?: boolean;
  /**
   * Scan each QR by itself a step after showing it (and open the wapi link), so a plain test gets
   * an active channel. `false` keeps every QR-based (and wapi) channel waiting until
   * `simulate.scan`; its QR is refreshed twice, then it goes disabled / qridle. @default true
   */
  autoScan?: boolean;
  /** How long a QR lives (autoScan false) before the channel goes disabled / qridle (ms). @default 60000 */
  qrLifetimeMs?: number;
  /**
   * Channels it holds from the start, active, e.g. `[{ channel_id: 'ch-1', transport: 'whatsapp' }]`:
   * a send goes only through a channel the fake holds and that is active (an unknown one is 404).
   * `reset()` brings them back. @default []
   */
  channels?: readonly SeededChannel[];
  /** How many requests, deliveries, messages and channels it keeps, dropping the oldest. @default 10000 */
  maxRecords?: number;
  /** Called with each request once it has been answered (e.g. to log it). */
  onRequest?: (request: RecordedRequest) => void;
}

/** A running fake gateway: API v2 and v3 of the service on 127.0.0.1, with state. */
export interface FakeGateway {
  /**
   * The base address of API v2 and v3, e.g. `http://127.0.0.1:54321`; `url + '/'` is the inbox
   * page, which shows in a browser what the fake holds and lets a person act as the customer.
   */
  readonly url: string;
  /** The v2 token it accepts. */
  readonly token: string;
  /** The v3 API key it accepts. */
  readonly apiKey: string;
  /** Every request received, oldest first (bounded by `maxRecords`). */
  readonly requests: readonly RecordedRequest[];
  /** Every webhook delivery made, oldest first (bounded by `maxRecords`). */
  readonly deliveries: readonly DeliveryRecord[];
  /** The channels it holds, by id. */
  readonly channels: ReadonlyMap<string, FakeChannel>;
  /** The messages it accepted, by message_id. */
  readonly messages: ReadonlyMap<string, FakeMessage>;
  /** The v2 webhook subscriptions, by id. */
  readonly subscriptions: ReadonlyMap<string, FakeSubscription>;
  /** The v3 webhook address and switches. */
  readonly v3Settings: FakeV3Settings;
  /** Repeated deliveries: see {@link DeliveryOptions.repeats}; may be changed at any time. */
  repeats: boolean | number;
  /** Makes the fake deliver events as the service would. */
  readonly simulate: FakeGatewaySimulate;
  /**
   * The next request of `method` to `path` (no query, e.g. `/v2/messages`) gets `answer` instead
   * of its own (once, unless `answer.times` says more); a request the fake refuses first (a wrong
   * token, over the rate limit) keeps its refusal and leaves the failure queued.
   */
  failNext(method: string, path: string, answer: FailAnswer): void;
  /** Resolves when every delivery and message or channel life started so far has finished. */
  drain(): Promise<void>;
  /** Forgets all state, records and queued failures, and stops lives in progress; keeps running. */
  reset(): void;
  /** Stops the server, abandons deliveries in flight, and closes every connection. */
  close(): Promise<void>;
}

function router(state: FakeState, deliverer: Deliverer, gate: RequestGate, options: FakeGatewayOptions) {
  const autoStatuses = options.autoStatuses ?? true;
  const play = { autoScan: options.autoScan ?? true, qrLifetimeMs: options.qrLifetimeMs ?? 60_000 };
  const effects: V2Effects = {
    messageSent: (m) => void deliverer.track(messageLife(deliverer, m, autoStatuses)),
    messageEdited: (m, old) => void deliverer.track(deliverEdit(deliverer, m, old)),
    messageDeleted: (m) => void deliverer.track(deliverDelete(deliverer, m)),
    channelCreated: (c) => void deliverer.track(channelLife(deliverer, state, c, play)),
    channelReinit: (c) => {
      state.timers.clear(c.channel_id);
      const qrBased = QR_TRANSPORTS.has(c.transport);
      Object.assign(c, { status: 'init', state: 'init', reason: qrBased ? 'qr' : null, qr: undefined });
      void deliverer.track(channelLife(deliverer, state, c, play, false));
    },
    channelActivated: (c) => void deliverer.track(setChannelStatus(deliverer, c, 'active', null)),
    channelDeleted: (id) => void deliverer.v2('channel.delete', [{ channel_id: id, timestamp: Date.now() }]),
  };
  const handle = async (req: IncomingMessage, res: ServerResponse, inbox: InboxRoute) => {
    const url = new URL(req.url ?? '/', 'http://fake-gateway');
    // the inbox page is not the API: not recorded, not rate-limited, no API token
    const served = inbox(req, res, url);
    if (served !== false) return served;
    res.once('close', () => state.changed());
    const { record, pending } = await gate.admit(req, res, url);
    if (!pending) return;
    const segments = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    const version = segments.shift();
    const route = { method: record.method, segments, query: url.searchParams, body: record.body };
    const handled =
      version === 'v2'
        ? routeV2(route, res, state, effects)
        : version === 'v3' && (await routeV3(route, res, state, deliverer));
    if (!handled) fail(res, 404, 'not_found', `no route ${record.method} ${url.pathname}`);
  };
  return handle;
}

type InboxRoute = ReturnType<typeof inboxRoutes>;

/**
 * Starts a fake of the messaging gateway on 127.0.0.1 for tests: real HTTP, API v2 and v3 as the
 * service documents them (envelope, 401 on a wrong token or key, 429 over its rate limit, the v3
 * test POST), channels and subscriptions kept, and webhooks delivered to the subscribed addresses.
 * @example
 * ```ts
 * const gateway = await createFakeGateway();
 * const client = new GatewayClient({ baseUrl: gateway.url, token: gateway.token, apiKey: gateway.apiKey });
 * await client.webhooks.subscribe([{ url: `${receiverUrl}?secret=s`, event: 'message.status_update' }]);
 * const { request_id } = await client.messages.send({ ... }); // statuses are delivered to the receiver
 * await gateway.close();
 * ```
 */
export async function createFakeGateway(options: FakeGatewayOptions = {}): Promise<FakeGateway> {
  const maxRecords = options.maxRecords ?? 10_000;
  const state = new FakeState(maxRecords, options.channels);
  const deliverer = new Deliverer(state, options);
  const token = options.token ?? 'fake-gateway-token';
  const apiKey = options.apiKey ?? 'fake-gateway-api-key';
  let port = 0;
  const gate = new RequestGate({
    token,
    apiKey,
    rateLimit: options.rateLimit ?? { requests: 500, intervalMs: 5000 },
    port: () => port,
    maxRecords,
    onRequest: options.onRequest,
  });
  const handle = router(state, deliverer, gate, options);
  const simulate = simulator(state, deliverer);
  const live = new LiveUpdates(() => entriesOf(inboxSnapshot(state, deliverer.records, gate.records)));
  state.onChange = () => live.changed();
  const inbox = inboxRoutes({
    simulate,
    live,
    detail: (id) => deliveryDetail(id, deliverer.records),
    port: () => port,
  });
  const server = createServer((req, res) => {
    handle(req, res, inbox).catch(() => {
      if (!res.headersSent) fail(res, 500, 'internal', 'the fake gateway failed');
    });
  });
  // Idle connections stay open past the 5 s window (Node's default is 5 s), so a client paced at
  // the rate limit reuses them from one window to the next instead of reconnecting every batch.
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', resolve);
  });
  port = (server.address() as AddressInfo).port;
  const parts = { state, deliverer, gate, server, simulate, live };
  const base = { url: `http://127.0.0.1:${port}`, token, apiKey, ...controls(parts) };
  // Descriptors, not a spread: a spread would read the getters once and drop the setter.
  return Object.defineProperties(base, Object.getOwnPropertyDescriptors(views(parts))) as FakeGateway;
}

interface Parts {
  state: FakeState;
  deliverer: Deliverer;
  gate: RequestGate;
  server: Server;
  simulate: FakeGatewaySimulate;
  live: LiveUpdates;
}

/** What a test reads: records and state, live. */
function views({ state, deliverer, gate }: Parts) {
  return {
    requests: gate.records,
    deliveries: deliverer.records,
    channels: state.channels,
    messages: state.messages,
    subscriptions: state.subscriptions,
    get v3Settings() {
      return state.v3Settings;
    },
    get repeats() {
      return deliverer.repeats;
    },
    set repeats(value: boolean | number) {
      deliverer.repeats = value;
    },
  };
}

/** What a test does to the fake. */
function controls({ state, deliverer, gate, server, simulate, live }: Parts) {
  return {
    simulate,
    failNext(method: string, path: string, answer: FailAnswer) {
      // NaN or a count under 1 would never reach 0 or mean nothing: once, as when left out
      const times = (answer.times ?? 0) >= 1 ? (answer.times as number) : 1;
      gate.failures.push({ ...answer, times, method: method.toUpperCase(), path });
    },
    drain: () => deliverer.drain(),
    reset() {
      state.reset();
      deliverer.reset();
      gate.records.length = 0;
      gate.failures.length = 0;
      gate.resetLimits();
    },
    async close() {
      live.close();
      state.timers.clear();
      deliverer.stop();
      await deliverer.drain();
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
    },
  };
}
