/** What `.withResponse()` resolves to. */
export interface WithResponse<T> {
  /** What the call resolves to without `.withResponse()`. */
  data: T;
  /** The raw answer of the service (status, headers); its body has already been read. */
  response: Response;
  /** The service's request id, when it sent one (header `x-request-id`, or `request_id` in the body). */
  requestId: string | undefined;
}

/**
 * The promise every call of GatewayClient returns: it resolves to the answer's data, and
 * `.withResponse()` gives the raw `Response` and the request id as well.
 * @example
 * ```ts
 * const { data, response, requestId } = await client.messages.send(message).withResponse();
 * console.log(response.status, requestId, data.request_id);
 * ```
 */
export class GatewayPromise<T> extends Promise<T> {
  readonly #raw: Promise<WithResponse<T>>;
  #data: Promise<T> | undefined;

  /** @internal Built by the client from the promise of the whole answer. */
  constructor(raw: Promise<WithResponse<T>>) {
    // The base promise is never used: every method below reads `raw`, so a failure is reported
    // once, to whoever awaits (an ignored call still surfaces as an unhandled rejection).
    super((resolve) => resolve(undefined as T));
    this.#raw = raw;
  }

  // `then` on this class must make plain promises, not more GatewayPromises.
  static override get [Symbol.species]() {
    return Promise;
  }

  /** Resolves to `{ data, response, requestId }`. */
  withResponse(): Promise<WithResponse<T>> {
    return this.#raw;
  }

  #parsed(): Promise<T> {
    this.#data ??= this.#raw.then((r) => r.data);
    return this.#data;
  }

  // biome-ignore lint/suspicious/noThenProperty: a Promise subclass, thenable on purpose (as openai-node's APIPromise)
  override then<A = T, B = never>(
    onFulfilled?: ((value: T) => A | PromiseLike<A>) | null,
    onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.#parsed().then(onFulfilled, onRejected);
  }

  override catch<B = never>(onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<T | B> {
    return this.#parsed().catch(onRejected);
  }

  override finally(onFinally?: (() => void) | null): Promise<T> {
    return this.#parsed().finally(onFinally);
  }
}
