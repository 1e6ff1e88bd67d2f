import type * as z from 'zod/mini';
import { GatewayPromise, type WithResponse } from '../core/api-promise.js';
import { GatewayResponseError, GatewayValidationError } from '../core/errors.js';
import type { CallSpec, HttpCore } from '../core/http.js';
import type { RequestOptions } from '../core/options.js';
import { formatPath } from '../internal/format-path.js';
import { toIssues } from '../schemas/issues.js';

/**
 * Base of every resource: checks a body against its schema before it leaves (when
 * `validateRequests` is on), makes the call, and reads the answer tolerantly.
 */
export abstract class Resource {
  protected readonly core: HttpCore;

  constructor(core: HttpCore) {
    this.core = core;
  }

  /** Throws GatewayValidationError listing every broken rule; no request is made then. */
  protected check(schema: z.ZodMiniType, value: unknown, what: string): void {
    if (!this.core.validateRequests) return;
    const result = schema.safeParse(value);
    if (!result.success) throw new GatewayValidationError(toIssues(result.error), what);
  }

  /**
   * The promise a public method returns: `run` is async, so a rule it breaks (a check that
   * throws) rejects the promise rather than throwing at the caller.
   */
  protected promise<T>(run: () => Promise<WithResponse<T>>): GatewayPromise<T> {
    return new GatewayPromise(run());
  }

  /**
   * Makes the call and reads its data (after the envelope) with `read`. A 2xx answer `read`
   * cannot take is a GatewayResponseError with the status and request id, `accepted` for a write.
   */
  protected request<T>(
    spec: CallSpec,
    options: RequestOptions | undefined,
    read: (data: unknown) => T,
  ): Promise<WithResponse<T>> {
    return this.core.call(spec, options).then((answer) => {
      let data: T;
      try {
        data = read(answer.data);
      } catch (error) {
        if (!(error instanceof UnreadableAnswer)) throw error;
        throw new GatewayResponseError({
          method: spec.method,
          url: this.core.urlOf(spec),
          status: answer.response.status,
          requestId: answer.requestId,
          why: error.message,
        });
      }
      return { data, response: answer.response, requestId: answer.requestId };
    });
  }

  /** Reads an answer with a tolerant schema; an answer of another structure cannot be read. */
  protected read<S extends z.ZodMiniType>(schema: S, data: unknown): z.output<S> {
    const result = schema.safeParse(data);
    if (result.success) return result.data;
    const detail = toIssues(result.error)
      .map((i) => `${formatPath(i.path, '(root)')}: ${i.message}`)
      .join('; ');
    throw new UnreadableAnswer(detail);
  }

  /**
   * Reads an answer whose `data` is a list holding the one thing asked for (spec: GET
   * /v2/channels/{id}, pairing-code). An empty list cannot be read: never an invented 404, which
   * a job queue would take as permanent.
   */
  protected readOne<S extends z.ZodMiniType<unknown[]>>(
    listSchema: S,
    data: unknown,
    spec: CallSpec,
  ): z.output<S>[number] {
    const [first] = this.read(listSchema, Array.isArray(data) || data === null ? data : [data]) as unknown[];
    if (first !== undefined) return first;
    throw new UnreadableAnswer(`its data holds no item (${spec.method} ${spec.path} returns one)`);
  }
}

/** A 2xx answer a resource cannot read; `request` turns it into a GatewayResponseError. */
class UnreadableAnswer extends Error {}

/** Encodes one path segment (ids come from users and the service). */
export function segment(id: string): string {
  if (typeof id !== 'string' || id === '')
    throw new GatewayValidationError([{ path: ['id'], message: 'id must be a non-empty string' }]);
  return encodeURIComponent(id);
}
