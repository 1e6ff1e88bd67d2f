import type { KyInstance } from 'ky';
import type { Surface } from '../schemas/constants.js';
import { fetchHoldingRequest } from './attempt-fetch.js';
import { addressOf, type CallSpec, relativePath } from './call-spec.js';
import { type GatewayApiErrorInit, GatewayResponseError } from './errors.js';
import type { Redactor } from './redact.js';
import type { CallOptions, ResolvedClientOptions } from './resolve-options.js';
import { apiErrorClass, apiErrorInit, parseBody, readText, requestIdOf, unwrapEnvelope } from './response.js';
import { type Attempt, type AttemptFailure, isRetryable, parseRetryAfter } from './retry-policy.js';
import { failedExchange } from './transport-errors.js';
import { USER_AGENT } from './user-agent.js';

/** What an exchange tells of its progress. */
export interface ExchangeSteps {
  /** The request is handed to `fetch`: from now on it may reach the service. */
  leaving: () => void;
  /** The answer's headers are in. */
  answered: () => void;
}

/**
 * One request and its answer, through ky: the ky instances of the two APIs, the headers and the
 * credential, and the answer read into an {@link Attempt} (the envelope opened, or the API error
 * built). It knows nothing of retries, the rate limiter or the log.
 */
export class Exchange {
  readonly #options: ResolvedClientOptions;
  readonly #headers: Record<string, string>;
  readonly #redactor: Redactor;

  /** @param redactor keeps the credentials in use out of every error */
  constructor(options: ResolvedClientOptions, redactor: Redactor) {
    this.#options = options;
    this.#redactor = redactor;
    this.#headers = { 'user-agent': USER_AGENT, accept: 'application/json, text/plain', ...options.headers };
  }

  /** The base address of an API. */
  baseOf(surface: Surface): string {
    return surface === 'v2' ? this.#options.baseUrl : this.#options.v3BaseUrl;
  }

  /** The full address of a call, as errors report it. */
  urlOf(spec: CallSpec): string {
    return addressOf(this.baseOf(spec.surface), spec.path, spec.query);
  }

  /**
   * Sends one request under `signal` (the attempt's) and reads its answer. `steps.leaving` runs
   * when the request is handed to `fetch` (before that, nothing can have reached the service),
   * `steps.answered` once the headers are in. Resolves to the attempt's outcome, a failure
   * included; rejects only with the reason of the caller's own signal.
   */
  async send(
    spec: CallSpec,
    token: string,
    call: CallOptions,
    signal: AbortSignal,
    steps: ExchangeSteps,
  ): Promise<Attempt> {
    try {
      return await this.#send(spec, token, call, signal, steps);
    } catch (cause) {
      if (call.signal?.aborted) throw call.signal.reason;
      return this.failed(spec, call, cause, signal.aborted);
    }
  }

  /** The outcome of an exchange that got no answer: its time ran out, or the connection failed. */
  failed(spec: CallSpec, call: CallOptions, cause: unknown, timedOut: boolean): Attempt {
    const context = { ...this.#where(spec), timedOut, timeoutMs: call.timeout };
    return failedExchange(cause, context, this.#redactor);
  }

  async #send(
    spec: CallSpec,
    token: string,
    call: CallOptions,
    signal: AbortSignal,
    steps: ExchangeSteps,
  ): Promise<Attempt> {
    const instances = await this.#instances();
    const response = await instances[spec.surface](relativePath(spec.path), {
      method: spec.method,
      // The call's own headers add to the client's; the credential is always the client's.
      headers: { ...this.#headers, ...call.headers, authorization: `Bearer ${token}` },
      json: spec.body,
      searchParams: spec.query,
      signal,
      fetch: fetchHoldingRequest(this.#options.fetch, steps.leaving),
    });
    steps.answered();
    return this.#answer(spec, response);
  }

  /**
   * The two ky instances (v2, v3), created when the first call needs them. Each makes one attempt
   * per call: retries, time-outs and errors are the client's policy. Redirects are answers, never
   * followed: a 307 would send a message's body again, to another host.
   */
  #instances(): Promise<Record<Surface, KyInstance>> {
    // Loaded on the first call, not at import: ky costs about as much to load as zod. Kept in
    // `options.http`, which clients derived with withOptions share while their addresses are the same.
    const http = this.#options.http;
    http.instances ??= import('ky').then(
      ({ default: ky }) => {
        const base = {
          retry: 0,
          timeout: false as const,
          throwHttpErrors: false,
          redirect: 'manual' as const,
        };
        return {
          v2: ky.create({ ...base, prefix: this.baseOf('v2') }),
          v3: ky.create({ ...base, prefix: this.baseOf('v3') }),
        };
      },
      (error: unknown) => {
        http.instances = undefined; // let the next call try again
        throw error;
      },
    );
    return http.instances;
  }

  /** Reads an answer: its data (v2: the envelope's), or the error its status stands for. */
  async #answer(spec: CallSpec, response: Response): Promise<Attempt> {
    const limit = this.#options.maxResponseBytes;
    const { status } = response;
    const text = await readText(response, limit);
    if (text === undefined && response.ok) {
      const why = `over maxResponseBytes (${limit})`;
      const error = new GatewayResponseError({ ...this.#where(spec), status, why });
      return { ok: false, failure: { kind: 'status', status }, error };
    }
    // A refusal's body over the bound is cut (not kept): its status alone decides the error.
    const body = text === undefined ? `answer body over maxResponseBytes (${limit}), cut` : parseBody(text);
    if (response.ok) {
      const data = spec.surface === 'v2' ? unwrapEnvelope(body) : body;
      // A request id is shown in logs, diagnostics and spans: one that echoes a credential is scrubbed.
      const requestId = this.#redactor.text(requestIdOf(response.headers, body));
      return { ok: true, answer: { data, response, requestId } };
    }
    const init = this.#scrubbed(apiErrorInit(status, body, response.headers, this.#where(spec)));
    const failure: AttemptFailure = { kind: 'status', status };
    const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'));
    const retryable = isRetryable(spec.method, failure);
    const ErrorClass = apiErrorClass(status);
    const error = new ErrorClass({ ...init, retryable, retryAfterMs });
    return { ok: false, failure, error, retryAfterMs };
  }

  /**
   * What the service put in an API error, scrubbed of the credentials it may echo; what the SDK
   * built (status, method, url) is kept as it is, whatever the credential.
   */
  #scrubbed(init: GatewayApiErrorInit): GatewayApiErrorInit {
    const redactor = this.#redactor;
    return {
      ...init,
      code: redactor.text(init.code),
      description: redactor.text(init.description),
      requestId: redactor.text(init.requestId),
      data: redactor.value(init.data),
      headers: redactor.value(init.headers),
    };
  }

  /** Built only when an error needs it: a successful call never pays for it. */
  #where(spec: CallSpec) {
    return { method: spec.method, url: this.urlOf(spec) };
  }
}
