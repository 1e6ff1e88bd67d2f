import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Deliverer, type DeliveryOptions } from './deliveries.js';
import { fail, json, readJson } from './http-utils.js';
import { FixedWindow } from './rate-limit.js';
import { routeV2, type V2Effects } from './routes-v2.js';
import { routeV3 } from './routes-v3.js';
import { StandInState } from './state.js';

/** Options of the stand-in gateway. */
export interface StandInOptions {
  /** The v2 client_access_token it accepts. @default 'stand-in-token' */
  token?: string;
  /** The v3 API key it accepts. @default 'stand-in-api-key' */
  apiKey?: string;
  /** Its rate limit. @default { requests: 500, intervalMs: 5000 } (spec: Limits) */
  rateLimit?: { requests: number; intervalMs: number };
  /** Port on 127.0.0.1. @default 0 (any free port) */
  port?: number;
  /** How webhooks are delivered after sends and channel creations. */
  deliveries?: DeliveryOptions;
}

/** A fault the next matching requests get instead of their answer. */
export interface Fault {
  method?: string;
  path?: string;
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** How many requests get it. @default 1 */
  times?: number;
  /** Delay before answering (ms), to provoke time-outs. */
  delayMs?: number;
}

/** One request the stand-in received. */
export interface LoggedRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  body: unknown;
}

/** A running stand-in: the gateway of the spec on 127.0.0.1, for tests, examples and the demo. */
export interface StandIn {
  /** Base address of API v2 and v3. */
  url: string;
  token: string;
  apiKey: string;
  state: StandInState;
  limiter: FixedWindow;
  /** Every request received, in order. */
  log: LoggedRequest[];
  /** Queues a fault for the next matching requests. */
  inject(fault: Fault): void;
  /** What happens after a send or a channel creation: webhook deliveries by default. */
  effects: V2Effects;
  /** The webhook deliveries it makes. */
  deliverer: Deliverer;
  /** Stops the server and closes its connections. */
  close(): Promise<void>;
}

/** Starts the stand-in gateway on 127.0.0.1. */
export async function startStandIn(options: StandInOptions = {}): Promise<StandIn> {
  const token = options.token ?? 'stand-in-token';
  const apiKey = options.apiKey ?? 'stand-in-api-key';
  const limit = options.rateLimit ?? { requests: 500, intervalMs: 5000 };
  const state = new StandInState();
  const faults: Fault[] = [];
  const log: LoggedRequest[] = [];
  const deliverer = new Deliverer(state, options.deliveries);
  const standIn = {
    deliverer,
    token,
    apiKey,
    state,
    log,
    limiter: new FixedWindow(limit.requests, limit.intervalMs),
    inject: (fault: Fault) => faults.push({ times: 1, ...fault }),
    effects: deliverer.effects(),
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://stand-in');
    const segments = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    const version = segments.shift();
    let body: unknown;
    try {
      body = await readJson(req);
    } catch {
      return fail(res, 400, 'bad_request', 'body is not JSON');
    }
    log.push({
      method: req.method ?? '',
      path: url.pathname + url.search,
      authorization: req.headers.authorization,
      body,
    });
    const retryAfter = standIn.limiter.take();
    if (retryAfter !== undefined) {
      res.setHeader('retry-after', String(Math.ceil(retryAfter)));
      return fail(res, 429, 'too_many_requests', 'Request rate limit exceeded');
    }
    const fault = faults.find(
      (f) => (!f.method || f.method === req.method) && (!f.path || f.path === url.pathname),
    );
    if (fault) {
      if (--(fault.times as number) <= 0) faults.splice(faults.indexOf(fault), 1);
      if (fault.delayMs) await new Promise((r) => setTimeout(r, fault.delayMs));
      if (res.destroyed) return;
      return json(res, fault.status, fault.body ?? {}, fault.headers);
    }
    const expected = version === 'v3' ? apiKey : token;
    if (req.headers.authorization !== `Bearer ${expected}`) {
      return fail(res, 401, 'unauthorized', 'API key missing or wrong');
    }
    const route = { method: req.method ?? 'GET', segments, query: url.searchParams, body };
    const handled =
      version === 'v2'
        ? routeV2(route, res, state, standIn.effects)
        : version === 'v3'
          ? await routeV3(route, res, state)
          : false;
    if (!handled) fail(res, 404, 'not_found', `no route ${req.method} ${url.pathname}`);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) fail(res, 500, 'internal', String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(standIn, {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      await deliverer.drain();
      await new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      });
    },
  });
}
