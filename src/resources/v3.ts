import type { GatewayPromise } from '../core/api-promise.js';
import type { HttpCore } from '../core/http.js';
import type { RequestOptions } from '../core/options.js';
import {
  type V3WebhookSettings,
  type V3WebhookSettingsParams,
  v3WebhookSettings,
  v3WebhookSettingsParams,
} from '../schemas/subscriptions.js';
import { Resource } from './resource.js';

/** `client.v3.webhooks`: the one webhook address and four switches of API v3. */
export class V3Webhooks extends Resource {
  /** The current address and switches (GET /v3/webhooks), read tolerantly. */
  get(options?: RequestOptions): GatewayPromise<V3WebhookSettings> {
    return this.promise(() =>
      this.request({ surface: 'v3', method: 'GET', path: '/v3/webhooks' }, options, (data) =>
        this.read(v3WebhookSettings, data),
      ),
    );
  }

  /**
   * Sets the address and switches (PATCH /v3/webhooks). The service first POSTs `{ test: true }`
   * to the address, which must answer 200 (WebhookHandler does); otherwise BadRequestError with
   * code `testPostNotPassed`, or `uriNotValid` for a malformed address.
   */
  update(params: V3WebhookSettingsParams, options?: RequestOptions): GatewayPromise<void> {
    return this.promise(async () => {
      this.check(v3WebhookSettingsParams, params, 'v3 webhook settings');
      const spec = { surface: 'v3', method: 'PATCH', path: '/v3/webhooks', body: params } as const;
      return this.request(spec, options, () => undefined);
    });
  }
}

/** `client.v3`: the legacy API v3 surface, authorized with the API key. */
export class V3 {
  /** Webhook address and switches. */
  readonly webhooks: V3Webhooks;

  constructor(core: HttpCore) {
    this.webhooks = new V3Webhooks(core);
  }
}
