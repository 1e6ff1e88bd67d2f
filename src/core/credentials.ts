import { GatewayError } from './errors.js';
import { MIN_SCRUBBED_LENGTH } from './redact.js';

/** A token or key, or a function returning one (sync or async) so it can be refreshed. */
export type Credential = string | (() => string | Promise<string>);

/**
 * Holds one credential out of sight: in a private field, so neither `JSON.stringify` nor
 * `util.inspect` of the client shows it. Remembers the values it handed out, so errors can be
 * scrubbed of them should the service ever echo one back.
 */
export class CredentialSource {
  readonly #credential: Credential | undefined;
  readonly #option: string;
  readonly #seen = new Set<string>();
  readonly #warn: (line: string) => void;
  #warnedShort = false;

  /**
   * @param option names the option in messages, e.g. `token (GATEWAY_TOKEN)`
   * @param warn writes the one warning about a credential too short to be scrubbed from text
   */
  constructor(credential: Credential | undefined, option: string, warn: (line: string) => void) {
    this.#credential = credential;
    this.#option = option;
    this.#warn = warn;
  }

  /** Whether asking again can give a new value (a function was given). */
  get refreshable(): boolean {
    return typeof this.#credential === 'function';
  }

  /** The current value; GatewayError when none is configured or the function gives none. */
  async get(): Promise<string> {
    const credential = this.#credential;
    if (credential === undefined) {
      throw new GatewayError(
        `No ${this.#option} configured: pass it to GatewayClient or set its environment variable`,
      );
    }
    let value: unknown = credential;
    if (typeof credential === 'function') {
      try {
        value = await credential();
      } catch (error) {
        // Its own failure, as a GatewayError a queue can act on: asking again may well work.
        throw new GatewayError(`${this.#option} function failed: ${(error as Error)?.message ?? error}`, {
          cause: error,
          retryable: true,
        });
      }
    }
    if (typeof value !== 'string' || value === '') {
      throw new GatewayError(`The ${this.#option} function returned no token`);
    }
    // Bounded: a refreshing function yields few distinct values; keep the latest 8.
    if (!this.#seen.has(value)) {
      // A header carries printable ASCII and tabs only: say so rather than fail as "no response".
      if (!/^[\x20-\x7e\t]+$/.test(value)) {
        throw new GatewayError(
          `${this.#option} not sendable in an HTTP header (non-ASCII or control characters)`,
        );
      }
      if (this.#seen.size >= 8) this.#seen.delete(this.#seen.values().next().value as string);
      this.#seen.add(value);
      if (value.length < MIN_SCRUBBED_LENGTH) this.#warnShort();
    }
    return value;
  }

  /** Once: errors, logs and spans replace a short credential only where a whole value equals it. */
  #warnShort(): void {
    if (this.#warnedShort) return;
    this.#warnedShort = true;
    this.#warn(
      `${this.#option} is under ${MIN_SCRUBBED_LENGTH} characters: too short to scrub from text; use it in tests only`,
    );
  }

  /** Every value handed out lately (for redaction only). */
  secrets(): Iterable<string> {
    return this.#seen;
  }
}
