import { z } from 'zod';
import { GatewayValidationError } from '../core/errors.js';
import type { RequestOptions } from '../core/options.js';
import { httpUrl } from '../schemas/common.js';
import { listOf } from '../schemas/lenient.js';
import {
  type NewSubscription,
  newSubscriptions,
  type Subscription,
  type SubscriptionUpdate,
  subscribeParams,
  subscription,
  unsubscribeParams,
  updateSubscriptionsParams,
  type V2EventName,
  v2EventName,
} from '../schemas/subscriptions.js';
import { Resource } from './resource.js';

/** Options of `webhooks.ensure`. */
export interface EnsureOptions extends RequestOptions {
  /** Also remove this url's subscriptions to events not in the list. @default false */
  prune?: boolean;
}

// Built once: a zod schema is costly to construct, so never per call.
const subscriptionList = listOf(subscription);
const ensureParams = z.object({ url: httpUrl(), events: z.array(v2EventName) });
const CONTACT = 'crm_entities.contact_add';
const DEAL = 'crm_entities.deal_add';

function sameUrl(a: string, b: string): boolean {
  try {
    return new URL(a).href === new URL(b).href;
  } catch {
    return a === b;
  }
}

/** `client.webhooks`: per-event subscriptions of API v2 (spec: Endpoints → Webhook subscriptions). */
export class Webhooks extends Resource {
  /** Subscribes urls to events (POST /v2/webhooks); deal_add only together with contact_add. */
  async subscribe(items: NewSubscription[], options?: RequestOptions): Promise<Subscription[]> {
    this.check(subscribeParams, items, 'subscriptions');
    return this.#post(items, options);
  }

  async #post(items: NewSubscription[], options?: RequestOptions): Promise<Subscription[]> {
    this.check(newSubscriptions, items, 'subscriptions');
    const data = await this.call(
      { surface: 'v2', method: 'POST', path: '/v2/webhooks', body: { data: items } },
      options,
    );
    return this.read(subscriptionList, data, 'POST /v2/webhooks');
  }

  /** Changes the url or event of existing subscriptions (PATCH /v2/webhooks). */
  async update(items: SubscriptionUpdate[], options?: RequestOptions): Promise<Subscription[]> {
    this.check(updateSubscriptionsParams, items, 'subscriptions');
    const data = await this.call(
      { surface: 'v2', method: 'PATCH', path: '/v2/webhooks', body: { data: items } },
      options,
    );
    return this.read(subscriptionList, data, 'PATCH /v2/webhooks');
  }

  /** The account's subscriptions (GET /v2/webhooks). */
  async list(options?: RequestOptions): Promise<Subscription[]> {
    const data = await this.call({ surface: 'v2', method: 'GET', path: '/v2/webhooks' }, options);
    return this.read(subscriptionList, data, 'GET /v2/webhooks');
  }

  /** Removes subscriptions by id (DELETE /v2/webhooks); their events stop arriving. */
  async unsubscribe(ids: string[], options?: RequestOptions): Promise<void> {
    this.check(unsubscribeParams, ids, 'ids');
    const body = { data: ids.map((id) => ({ id })) };
    await this.call({ surface: 'v2', method: 'DELETE', path: '/v2/webhooks', body }, options);
  }

  /**
   * Makes `url` subscribed to exactly `events` (and, with `prune`, to nothing else), with the
   * fewest writes: reads the subscriptions, with `prune` turns this url's unwanted ones into
   * missing ones by PATCH, POSTs the rest of what is missing, then DELETEs what is left over. Running it twice
   * changes nothing the second time.
   * @returns this url's subscriptions now in force
   */
  async ensure(
    url: string,
    events: readonly V2EventName[],
    options: EnsureOptions = {},
  ): Promise<Subscription[]> {
    const { prune = false, ...requestOptions } = options;
    this.check(ensureParams, { url, events }, 'ensure');
    const current = await this.list(requestOptions);
    const wanted = [...new Set(events)];
    const mine = current.filter((s) => sameUrl(s.url, url));
    const kept: Subscription[] = [];
    const extra: Subscription[] = [];
    for (const s of mine) {
      if (wanted.includes(s.event as V2EventName) && !kept.some((k) => k.event === s.event)) kept.push(s);
      else extra.push(s);
    }
    // contact_add first: it is then written no later than deal_add (spec: deal_add works only
    // when contact_add is subscribed), whether it lands in the PATCH or in the same POST.
    const missing = wanted
      .filter((e) => !kept.some((k) => k.event === e))
      .sort((a, b) => Number(b === CONTACT) - Number(a === CONTACT));
    const removable = prune ? extra : [];
    this.#checkDealRule(
      wanted,
      current.filter((s) => !removable.includes(s)),
    );

    const patches = removable
      .slice(0, missing.length)
      .map((s, i) => ({ id: s.id, url, event: missing[i] as V2EventName }));
    const posts = missing.slice(patches.length).map((event) => ({ url, event }));
    const deletes = removable.slice(patches.length).map((s) => s.id);

    // PATCH before POST: patches take the first missing events, so contact_add goes out first.
    // The deal rule was checked against the account above, not against the POST alone.
    const patched = patches.length ? await this.update(patches, requestOptions) : [];
    const created = posts.length ? await this.#post(posts, requestOptions) : [];
    if (deletes.length) await this.unsubscribe(deletes, requestOptions);
    return [...kept, ...(prune ? [] : extra), ...patched, ...created];
  }

  /** Spec: deal_add works only when contact_add is also subscribed (for any url). */
  #checkDealRule(wanted: string[], surviving: Subscription[]): void {
    if (!this.core.validateRequests || !wanted.includes(DEAL) || wanted.includes(CONTACT)) return;
    if (surviving.some((s) => s.event === CONTACT)) return;
    throw new GatewayValidationError([
      {
        path: ['events'],
        message: 'crm_entities.deal_add works only together with crm_entities.contact_add: add it',
      },
    ]);
  }
}
