import type * as z from 'zod/mini';
import { GatewayPromise, type WithResponse } from '../core/api-promise.js';
import { GatewayError, GatewayValidationError, NotFoundError } from '../core/errors.js';
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

  /** Makes the call and reads its data (after the envelope) with `read`. */
  protected request<T>(
    spec: CallSpec,
    options: RequestOptions | undefined,
    read: (data: unknown) => T,
  ): Promise<WithResponse<T>> {
    return this.core.call(spec, options).then((answer) => ({
      data: read(answer.data),
      response: answer.response,
      requestId: answer.requestId,
    }));
  }

  /** Reads an answer with a tolerant schema; an answer of another structure is a GatewayError. */
  protected read<S extends z.ZodMiniType>(schema: S, data: unknown, what: string): z.output<S> {
    const result = schema.safeParse(data);
    if (result.success) return result.data;
    const detail = toIssues(result.error)
      .map((i) => `${formatPath(i.path, '(root)')}: ${i.message}`)
      .join('; ');
    throw new GatewayError(`Unexpected answer of ${what}: ${detail}`);
  }

  /**
   * Reads an answer whose `data` is a list holding the one thing asked for (spec: GET
   * /v2/channels/{id}, pairing-code); NotFoundError when it holds none.
   */
  protected readOne<S extends z.ZodMiniType<unknown[]>>(
    listSchema: S,
    data: unknown,
    spec: CallSpec,
  ): z.output<S>[number] {
    const what = `${spec.method} ${spec.path}`;
    const [first] = this.read(
      listSchema,
      Array.isArray(data) || data === null ? data : [data],
      what,
    ) as unknown[];
    if (first !== undefined) return first;
    const url = this.core.urlOf(spec);
    throw new NotFoundError({
      status: 404,
      method: spec.method,
      url,
      description: `${what}: the answer holds nothing`,
    });
  }
}

/** Encodes one path segment (ids come from users and the service). */
export function segment(id: string): string {
  if (typeof id !== 'string' || id === '')
    throw new GatewayValidationError([{ path: ['id'], message: 'id must be a non-empty string' }]);
  return encodeURIComponent(id);
}
