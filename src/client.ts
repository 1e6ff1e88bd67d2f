import { HttpCore } from './core/http.js';
import type { ClientOptions } from './core/options.js';
import {
  deriveClientOptions,
  type ResolvedClientOptions,
  ResolvedOptions,
  resolveClientOptions,
} from './core/resolve-options.js';
import { Channels } from './resources/channels.js';
import { Messages } from './resources/messages.js';
import { V3 } from './resources/v3.js';
import { Webhooks } from './resources/webhooks.js';

/**
 * The typed client of the messaging gateway. Every method returns a promise of the answer's
 * `data`, checks its body against the spec before sending (`validateRequests`), keeps to the
 * service's rate limit, and retries only what is safe to repeat.
 * @example
 * ```ts
 * import { GatewayClient } from 'messaging-gateway-sdk';
 * const client = new GatewayClient(); // GATEWAY_BASE_URL, GATEWAY_TOKEN, GATEWAY_API_KEY
 * const channels = await client.channels.list();
 * ```
 */
export class GatewayClient {
  /** Send, edit, delete and export messages. */
  readonly messages: Messages;
  /** Connect and manage channels. */
  readonly channels: Channels;
  /** Per-event webhook subscriptions of API v2. */
  readonly webhooks: Webhooks;
  /** API v3: webhook address and switches. */
  readonly v3: V3;
  readonly #core: HttpCore;
  readonly #options: ResolvedClientOptions;

  /**
   * @throws GatewayError when no base URL is given or set in GATEWAY_BASE_URL, and
   * GatewayValidationError naming the option when an option is out of range or of the wrong kind
   */
  constructor(options: ClientOptions = {}) {
    this.#options = options instanceof ResolvedOptions ? options.resolved : resolveClientOptions(options);
    this.#core = new HttpCore(this.#options);
    this.messages = new Messages(this.#core);
    this.channels = new Channels(this.#core);
    this.webhooks = new Webhooks(this.#core);
    this.v3 = new V3(this.#core);
  }

  /**
   * A client that differs from this one only in the options given: each replaces this client's
   * (`headers` included, whole), and everything else is shared, not copied: the rate limiter
   * (unless `rateLimit` is given), the logger, `fetch` and its connection pool. Cheap enough to
   * keep one per account of a partner's many (a few kilobytes each). Accounts that share the
   * limiter share its window: the service limits each token on its own, so give each account its
   * own limiter (`rateLimit: redisRateLimiter(redis, { key: accountId })` in a fleet).
   * @example
   * ```ts
   * const base = new GatewayClient({ baseUrl });
   * const acme = base.withOptions({ token: tokens.acme, rateLimit: { requests: 500, intervalMs: 5_000 } });
   * await acme.messages.send({ channel_id, recipient: { chat_type: 'whatsapp', chat_id: '79001234567' }, text: 'Hi' });
   * ```
   * @throws GatewayValidationError naming a bad option, as the constructor does
   */
  withOptions(options: ClientOptions): GatewayClient {
    const derived = deriveClientOptions(this.#options, options);
    // Already resolved: the constructor takes it as it is (see ResolvedOptions).
    return new GatewayClient(new ResolvedOptions(derived) as unknown as ClientOptions);
  }

  /** Requests waiting for the client's rate limiter now (0 when it is off or does not say). */
  get pendingRequests(): number {
    const pending = (this.#core.limiter as { pending?: unknown } | undefined)?.pending;
    return typeof pending === 'number' ? pending : 0;
  }
}
