import { queryValue } from '../../internal/query.js';
import { bearer, header, type WebhookRequest } from './request.js';
import { SecretMatcher } from './secret-matcher.js';

/**
 * How a delivery proved itself: by the `?secret=` of its URL (any delivery), by the v3 crmKey in
 * `Authorization: Bearer` (v3 deliveries only, checked once the body is decoded), or not at all
 * (only a handler built with `allowUnauthenticated`).
 */
export type Authentication = 'secret' | 'crmKey' | 'open';

/**
 * The first step of the pipeline: reads the URL and headers only, never the body, so a sender
 * without the secret or the crmKey costs no more than its headers.
 */
export class Verifier {
  readonly #secret: SecretMatcher | undefined;
  readonly #crmKey: SecretMatcher | undefined;

  constructor(secret: string | undefined, crmKey: string | undefined) {
    this.#secret = secret ? new SecretMatcher(secret) : undefined;
    this.#crmKey = crmKey ? new SecretMatcher(crmKey) : undefined;
  }

  /** What a refused request lacked, for the error report. */
  get expected(): string {
    const wanted = [
      this.#secret ? 'the right ?secret= query value' : '',
      this.#crmKey ? 'the right Authorization: Bearer <crmKey> of a v3 delivery' : '',
    ].filter(Boolean);
    return wanted.length > 1 ? `it has neither ${wanted.join(' nor ')}` : `it lacks ${wanted[0]}`;
  }

  /**
   * Whether an unauthenticated request may be the v3 `{ test: true }` probe, sent before the
   * service holds the crmKey: only when no URL secret is configured (it is still required when
   * one is), a crmKey is, and the request carries no Authorization at all (a wrong key is refused).
   */
  mayBeProbe(request: Pick<WebhookRequest, 'headers'>): boolean {
    return !this.#secret && !!this.#crmKey && header(request.headers, 'authorization') === undefined;
  }

  /** How the request is authenticated, or undefined when it is not. */
  verify(request: Pick<WebhookRequest, 'url' | 'headers'>): Authentication | undefined {
    if (!this.#secret && !this.#crmKey) return 'open';
    if (this.#secret?.matches(queryValue(request.url, 'secret'))) return 'secret';
    const token = bearer(header(request.headers, 'authorization'));
    if (token !== undefined && this.#crmKey?.matches(token)) return 'crmKey';
    return undefined;
  }
}
