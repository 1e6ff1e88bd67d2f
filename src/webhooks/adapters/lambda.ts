import { type HandlerSource, resolveSource } from '../receive/handler-source.js';
import type { WebhookRequest, WebhookResponse } from '../receive/request.js';

/**
 * The members of an AWS Lambda HTTP event the adapter reads: API Gateway REST (payload 1.0),
 * HTTP API (payload 2.0), a Function URL (2.0 too) or an Application Load Balancer target. Typed
 * structurally, so the SDK needs no AWS package; the events of `@types/aws-lambda` fit.
 */
export interface LambdaHttpEvent {
  /** Payload 2.0 (HTTP API, Function URL): `'2.0'`. */
  version?: string;
  /** REST and ALB: the method. */
  httpMethod?: string;
  /** REST and ALB: the path. */
  path?: string;
  /** Payload 2.0: the path as sent. */
  rawPath?: string;
  /** Payload 2.0: the query as sent, undecoded, without `?`. */
  rawQueryString?: string;
  /** The headers (payload 2.0 joins repeated ones with commas). */
  headers?: Record<string, string | undefined> | null;
  /** REST, and ALB with multi-value headers on: every value of each header. */
  multiValueHeaders?: Record<string, string[] | undefined> | null;
  /** REST: decoded values; ALB: values as sent (still URL-encoded). */
  queryStringParameters?: Record<string, string | undefined> | null;
  /** As `queryStringParameters`, every value of each key. */
  multiValueQueryStringParameters?: Record<string, string[] | undefined> | null;
  /** The body, as text or base64 (see `isBase64Encoded`); null or absent when empty. */
  body?: string | null;
  /** Whether `body` is base64. */
  isBase64Encoded?: boolean;
  /** Payload 2.0 carries the method in `requestContext.http.method`; an ALB event has `requestContext.elb`. */
  requestContext?: unknown;
}

/**
 * The answer in the shape each event source reads: `statusDescription` for an ALB,
 * `multiValueHeaders` instead of `headers` when the event came with them (an ALB with multi-value
 * headers on reads nothing else), and a body that is not text as base64. It fits
 * `APIGatewayProxyResult`, `APIGatewayProxyResultV2` and `ALBResult`.
 */
export interface LambdaHttpResult {
  /** The HTTP status. */
  statusCode: number;
  /** ALB only: `'200 OK'`. */
  statusDescription?: string;
  /** The headers, when the event came with single-valued ones. */
  headers?: Record<string, string>;
  /** The headers, each a list, when the event came with `multiValueHeaders`. */
  multiValueHeaders?: Record<string, string[]>;
  /** The body: text, or base64 when `isBase64Encoded`. */
  body: string;
  /** Whether `body` is base64 (a body that is not text). */
  isBase64Encoded: boolean;
}

/**
 * An AWS Lambda handler for webhook deliveries behind API Gateway (REST and HTTP API), a Function
 * URL or an Application Load Balancer: it translates the event into `handle()` and the answer back.
 * The promise resolves only once every listener of the delivery has finished, also under
 * `dispatch: 'background'`: Lambda freezes the process when the handler returns, and a listener
 * left running would stop mid-way. Never rejects.
 * @example
 * ```ts
 * export const handler = createLambdaHandler(() => new WebhookHandler({ secret: process.env.WEBHOOK_SECRET }));
 * ```
 */
export function createLambdaHandler(
  source: HandlerSource,
): (event: LambdaHttpEvent, context?: unknown) => Promise<LambdaHttpResult> {
  const handler = resolveSource(source);
  return async (event) => {
    const running: Promise<unknown>[] = [];
    const answer = await handler.handle(requestOf(event ?? {}), {
      waitUntil: (work) => void running.push(work),
    });
    await Promise.allSettled(running);
    return resultOf(event ?? {}, answer);
  };
}

/** The event as the handler's request. */
function requestOf(event: LambdaHttpEvent): WebhookRequest {
  const v2 = isV2(event);
  const http = (event.requestContext as { http?: { method?: string } } | undefined)?.http;
  return {
    method: (v2 ? http?.method : event.httpMethod) ?? '',
    url: v2 ? withQuery(event.rawPath ?? '/', event.rawQueryString ?? '') : urlOf(event),
    headers: nonEmpty(event.multiValueHeaders) ?? event.headers ?? {},
    body: bodyOf(event),
  };
}

/** A map with at least one entry (an event may carry an empty one beside the other form). */
function nonEmpty<T extends object>(map: T | null | undefined): T | undefined {
  return map && Object.keys(map).length > 0 ? map : undefined;
}

function isV2(event: LambdaHttpEvent): boolean {
  return event.version === '2.0' || typeof event.rawPath === 'string';
}

function isAlb(event: LambdaHttpEvent): boolean {
  const context = event.requestContext;
  return typeof context === 'object' && context !== null && 'elb' in context;
}

function withQuery(path: string, query: string): string {
  return query === '' ? path : `${path}?${query}`;
}

/**
 * The path and query of a REST or ALB event. REST gives decoded values, encoded again here; an
 * ALB gives them as they were sent, kept as they are.
 */
function urlOf(event: LambdaHttpEvent): string {
  const encode = isAlb(event) ? (part: string) => part : encodeURIComponent;
  const pairs: string[] = [];
  const query = nonEmpty(event.multiValueQueryStringParameters) ?? event.queryStringParameters ?? {};
  for (const [key, values] of Object.entries(query)) {
    for (const value of Array.isArray(values) ? values : [values]) {
      if (value !== undefined) pairs.push(`${encode(key)}=${encode(value)}`);
    }
  }
  return withQuery(event.path ?? '/', pairs.join('&'));
}

/** Base64 characters decoded per read: a multiple of 4, so each slice decodes on its own. */
const BASE64_SLICE = 64 * 1024;

/**
 * The body as the event carries it: text, or its base64 as a stream that decodes when the handler
 * reads it, after the secret check (a request without the secret costs no decoding), one slice at
 * a time (the v3 probe's few bytes cost one slice).
 */
function bodyOf(event: LambdaHttpEvent): string | ReadableStream<Uint8Array> {
  const body = event.body ?? '';
  return event.isBase64Encoded ? decodedLater(body) : body;
}

/**
 * The bytes of `base64`, decoded slice by slice as they are read. A body flagged base64 that is
 * not base64 (a test harness's event) is read as the text it is from the slice where it stops
 * being base64: the handler answers it (400 `invalid_webhook` unless it is a webhook), never a
 * throw nor a failed read. A slice with a line break in it takes the rest of the body with it, so
 * the 4-character groups stay aligned.
 */
function decodedLater(base64: string): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (offset >= base64.length) return controller.close();
        let end = offset + BASE64_SLICE;
        if (/\s/.test(base64.slice(offset, end))) end = base64.length;
        const bytes = decoded(base64.slice(offset, end));
        controller.enqueue(bytes ?? new TextEncoder().encode(base64.slice(offset)));
        offset = bytes ? end : base64.length;
      },
    },
    { highWaterMark: 0 }, // nothing is decoded until the handler reads: not before the secret check
  );
}

/** The bytes of a base64 text, or undefined when it is not base64. */
function decoded(base64: string): Uint8Array | undefined {
  let binary: string;
  try {
    binary = atob(base64);
  } catch {
    return undefined;
  }
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** The answer in the event source's shape. */
function resultOf(event: LambdaHttpEvent, answer: WebhookResponse): LambdaHttpResult {
  const binary = !isText(answer.headers['content-type']);
  const result: LambdaHttpResult = {
    statusCode: answer.status,
    body: binary ? base64Of(answer.body) : answer.body,
    isBase64Encoded: binary,
  };
  if (isAlb(event)) result.statusDescription = `${answer.status} ${STATUS_TEXT[answer.status] ?? ''}`.trim();
  if (event.multiValueHeaders) {
    result.multiValueHeaders = Object.fromEntries(
      Object.entries(answer.headers).map(([name, value]) => [name, [value]]),
    );
  } else {
    result.headers = answer.headers;
  }
  return result;
}

function isText(contentType: string | undefined): boolean {
  if (contentType === undefined) return true;
  const type = contentType.toLowerCase();
  return type.startsWith('text/') || type.includes('json') || type.includes('xml');
}

function base64Of(text: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** The reason phrases of the statuses the outcome table answers with (an ALB wants one). */
const STATUS_TEXT: Record<number, string> = {
  200: 'OK',
  400: 'Bad Request',
  401: 'Unauthorized',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  409: 'Conflict',
  413: 'Payload Too Large',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};
