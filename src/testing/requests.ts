import type { IncomingMessage, ServerResponse } from 'node:http';
import { fail, json, readJson } from './http-utils.js';
import type { FixedWindow } from './rate-limit.js';

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

/** A queued failure: its method and path, and the answer. */
export interface Failure extends FailAnswer {
  method: string;
  path: string;
}

/** Reads, records and pre-screens each request: bad JSON, the rate limit, queued failures. */
export class RequestGate {
  readonly records: RecordedRequest[] = [];
  readonly failures: Failure[] = [];

  constructor(
    readonly limiter: FixedWindow | undefined,
    readonly maxRecords: number,
    readonly onRequest?: (request: RecordedRequest) => void,
  ) {}

  /**
   * Records the request, and answers it when a pre-screen applies.
   * @returns its record, and whether it still needs an answer
   */
  async admit(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
  ): Promise<{ record: RecordedRequest; pending: boolean }> {
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
    if (this.records.length > this.maxRecords) this.records.shift();
    res.once('close', () => {
      record.status = res.writableFinished ? res.statusCode : 0;
      try {
        this.onRequest?.(record);
      } catch {
        // a throwing logger must not take the fake down
      }
    });
    try {
      record.body = await readJson(req);
    } catch {
      fail(res, 400, 'bad_request', 'the body is not JSON');
      return { record, pending: false };
    }
    const retryAfter = this.limiter?.take();
    if (retryAfter !== undefined) {
      res.setHeader('retry-after', String(Math.ceil(retryAfter)));
      fail(res, 429, 'too_many_requests', 'Request rate limit exceeded');
      return { record, pending: false };
    }
    const failure = this.failures.find((f) => f.method === record.method && f.path === record.path);
    if (!failure) return { record, pending: true };
    if (--(failure as { times: number }).times <= 0) this.failures.splice(this.failures.indexOf(failure), 1);
    if (failure.delayMs) await new Promise((r) => setTimeout(r, failure.delayMs));
    if (failure.dropConnection) req.socket.destroy();
    else if (!res.destroyed) json(res, failure.status, failure.body, failure.headers);
    return { record, pending: false };
  }
}
