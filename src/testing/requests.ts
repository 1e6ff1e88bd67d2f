import type { IncomingMessage, ServerResponse } from 'node:http';
import { SecretMatcher } from '../webhooks/receive/secret-matcher.js';
import { BodyTooLargeError, fail, json, readJson } from './http-utils.js';
import { ownHosts } from './inbox/guard.js';
import { FixedWindow } from './rate-limit.js';

/** One request the fake gateway received. */
export interface RecordedRequest {
  method: string;
  /** The path without its query, e.g. `/v2/messages`. */
  path: string;
  /** The query parameters. */
  query: Record<string, string>;
  /** Request headers, names in lower case. */
  headers: Record<string, string>;
  /** The parsed JSON body; undefined when empty or not JSON. */
  body: unknown;
  /** The status the fake answered; 0 while it is being answered, or when the connection was dropped. */
  status: number;
}

/** What the next matching request gets instead of its answer (see `failNext`). */
export interface FailAnswer {
  /** The HTTP status to answer. */
  status: number;
  /** A JSON body; an empty body when absent (the spec allows an empty 4xx body). */
  body?: unknown;
  headers?: Record<string, string>;
  /** Wait before answering (ms), to provoke a client's time-out. */
  delayMs?: number;
  /** How many matching requests get it. @default 1 */
  times?: number;
  /** Drop the connection without answering (the client sees a reset). */
  dropConnection?: boolean;
}

/** A queued failure: its method and path, the answer, and how many more requests get it. */
export interface Failure extends FailAnswer {
  method: string;
  path: string;
  times: number;
}

/** What the gate checks a request against. */
export interface GateOptions {
  /** The v2 token and the v3 API key the fake accepts. */
  token: string;
  apiKey: string;
  /** Each credential's window, or no limit. */
  rateLimit: { requests: number; intervalMs: number } | false;
  /** The port the fake listens on (for the Host check); known once it listens. */
  port: () => number;
  maxRecords: number;
  onRequest?: ((request: RecordedRequest) => void) | undefined;
}

/**
 * Reads, records and pre-screens each API request, in this order: its Host (a page reached
 * through a DNS-rebound name is refused 403), its token (401 whatever the body, which is then
 * never kept), its credential's own rate-limit window (429; a refused request counts against
 * none), its body (413 over 5 MiB, 400 when not JSON), and the queued failures.
 */
export class RequestGate {
  readonly records: RecordedRequest[] = [];
  readonly failures: Failure[] = [];
  /** One fixed window per credential, by surface: the v2 token's and the v3 API key's. */
  readonly windows = new Map<string, FixedWindow>();
  readonly #v2: SecretMatcher;
  readonly #v3: SecretMatcher;

  constructor(readonly options: GateOptions) {
    this.#v2 = new SecretMatcher(`Bearer ${options.token}`);
    this.#v3 = new SecretMatcher(`Bearer ${options.apiKey}`);
  }

  /** Starts every window afresh. */
  resetLimits(): void {
    this.windows.clear();
  }

  /**
   * Records the request, and answers it when a pre-screen applies.
   * @returns its record, and whether it still needs an answer
   */
  async admit(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
  ): Promise<{ record: RecordedRequest; pending: boolean }> {
    const record = this.#record(req, res, url);
    const refused = this.#refusal(req, res, url);
    if (refused) {
      req.resume(); // read and dropped: nothing of an unauthenticated body is kept
      refused();
      return { record, pending: false };
    }
    try {
      record.body = await readJson(req);
    } catch (error) {
      if (error instanceof BodyTooLargeError) {
        // the rest of the body is not read: the connection cannot carry another request
        res.setHeader('connection', 'close');
        fail(res, 413, 'payload_too_large', `the body is over ${error.maxBytes} bytes`);
      } else fail(res, 400, 'bad_request', 'the body is not JSON');
      return { record, pending: false };
    }
    return { record, pending: !(await this.#failure(req, res, record)) };
  }

  /** The answer of a request refused by its Host, token or rate limit, or undefined. */
  #refusal(req: IncomingMessage, res: ServerResponse, url: URL): (() => void) | undefined {
    if (!ownHosts(this.options.port()).includes(req.headers.host ?? '')) {
      return () => fail(res, 403, 'forbidden', 'the fake answers only at its own loopback address');
    }
    // spec: Authentication — v2 takes the token, v3 the API key; a missing or wrong one gives 401
    const v3 = url.pathname.startsWith('/v3/');
    if (!(v3 ? this.#v3 : this.#v2).matches(req.headers.authorization)) {
      return () => fail(res, 401, 'unauthorized', 'API key missing or wrong');
    }
    const retryAfter = this.#window(v3 ? 'v3' : 'v2')?.take();
    if (retryAfter === undefined) return undefined;
    return () => {
      res.setHeader('retry-after', String(Math.ceil(retryAfter)));
      fail(res, 429, 'too_many_requests', 'Request rate limit exceeded');
    };
  }

  #window(surface: 'v2' | 'v3'): FixedWindow | undefined {
    const { rateLimit } = this.options;
    if (!rateLimit) return undefined;
    let window = this.windows.get(surface);
    if (!window) {
      window = new FixedWindow(rateLimit.requests, rateLimit.intervalMs);
      this.windows.set(surface, window);
    }
    return window;
  }

  /** Answers a queued failure that matches; true when one did. */
  async #failure(req: IncomingMessage, res: ServerResponse, record: RecordedRequest): Promise<boolean> {
    const failure = this.failures.find((f) => f.method === record.method && f.path === record.path);
    if (!failure) return false;
    if (--failure.times <= 0) this.failures.splice(this.failures.indexOf(failure), 1);
    if (failure.delayMs) await new Promise((r) => setTimeout(r, failure.delayMs));
    if (failure.dropConnection) req.socket.destroy();
    else if (!res.destroyed) json(res, failure.status, failure.body, failure.headers);
    return true;
  }

  #record(req: IncomingMessage, res: ServerResponse, url: URL): RecordedRequest {
    const record: RecordedRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: Object.fromEntries(
        Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]),
      ),
      body: undefined,
      status: 0,
    };
    this.records.push(record);
    if (this.records.length > this.options.maxRecords) this.records.shift();
    res.once('close', () => {
      record.status = res.writableFinished ? res.statusCode : 0;
      try {
        this.options.onRequest?.(record);
      } catch {
        // a throwing logger must not take the fake down
      }
    });
    return record;
  }
}
