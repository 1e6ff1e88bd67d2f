import * as z from 'zod/mini';
import type { GatewayPromise, WithResponse } from '../core/api-promise.js';
import type { CallSpec } from '../core/http.js';
import type { RequestOptions } from '../core/options.js';
import { httpUrl } from '../schemas/common.js';
import { listOf } from '../schemas/lenient.js';
import {
  type NewSubscription,
  newSubscriptions,
  type Subscription,
  type SubscriptionUpdate,
  subscription,
  unsubscribeParams,
  updateSubscriptionsParams,
  type V2EventName,
  v2EventName,
} from '../schemas/subscriptions.js';
import { breaksRule, CONTACT, DEAL, dealRuleError, planEnsure, rulePath, type Write } from './deal-rule.js';
import { Resource } from './resource.js';

/** Options of `webhooks.ensure`. */
export interface EnsureOptions extends RequestOptions {
  /** Also remove this url's subscriptions to events not in the list. @default false */
  prune?: boolean;
}

// Built once: a zod schema is costly to construct, so never per call.
const subscriptionList = listOf(subscription);
const ensureParams = z.object({ url: httpUrl(), events: z.array(v2EventName) });

function sameUrl(a: string, b: string): boolean {
  try {
    return new URL(a).href === new URL(b).href;
  } catch {
    return a === b;
  }
}

/** Whether a write could break the deal_add rule, so the account must be read to judge it. */
function mayBreakRule(write: Write): boolean {
  if (write.kind === 'delete') return true; // the ids do not say which events they remove
  const events = write.items.map((i) => i.event);
  // A PATCH may turn the account's contact_add into something else; one naming contact_add keeps one.
  if (events.includes(CONTACT)) return false;
  return write.kind === 'patch' || events.includes(DEAL);
}

/**
 * `client.webhooks`: per-event subscriptions of API v2 (spec: Endpoints → Webhook subscriptions).
 * The spec's rule that crm_entities.deal_add works only while crm_entities.contact_add is
 * subscribed is judged against the account: a write that would break it is refused with a
 * GatewayValidationError before it is sent (this reads the subscriptions first, when needed).
 */
export class Webhooks extends Resource {
  /** Subscribes urls to events (POST /v2/webhooks); deal_add only while contact_add is subscribed. */
  subscribe(items: NewSubscription[], options?: RequestOptions): GatewayPromise<Subscription[]> {
    return this.promise(async () => {
      this.check(newSubscriptions, items, 'subscriptions');
      await this.#judge({ kind: 'post', items }, 'subscriptions', options);
      return this.#write({ kind: 'post', items }, options);
    });
  }

  /** Changes the url or event of existing subscriptions (PATCH /v2/webhooks). */
  update(items: SubscriptionUpdate[], options?: RequestOptions): GatewayPromise<Subscription[]> {
    return this.promise(async () => {
      this.check(updateSubscriptionsParams, items, 'subscriptions');
      await this.#judge({ kind: 'patch', items }, 'subscriptions', options);
      return this.#write({ kind: 'patch', items }, options);
    });
  }

  /** The account's subscriptions (GET /v2/webhooks). */
  list(options?: RequestOptions): GatewayPromise<Subscription[]> {
    return this.promise(() => this.#list(options));
  }

  /** Removes subscriptions by id (DELETE /v2/webhooks); their events stop arriving. */
  unsubscribe(ids: string[], options?: RequestOptions): GatewayPromise<void> {
    return this.promise(async () => {
      this.check(unsubscribeParams, ids, 'ids');
      await this.#judge({ kind: 'delete', ids }, 'ids', options);
      const answer = await this.#write({ kind: 'delete', ids }, options);
      return { ...answer, data: undefined };
    });
  }

  /**
   * Makes `url` subscribed to exactly `events` (and, with `prune`, to nothing else), with the
   * fewest writes: reads the subscriptions, with `prune` turns this url's unwanted ones into
   * missing ones by PATCH, POSTs the rest of what is missing, then DELETEs what is left over.
   * The writes are ordered so the account never passes through a state the service refuses
   * (deal_add without contact_add). Running it twice changes nothing the second time.
   * `.withResponse()` gives the answer of its last request.
   * @returns this url's subscriptions now in force
   */
  ensure(
    url: string,
    events: readonly V2EventName[],
    options: EnsureOptions = {},
  ): GatewayPromise<Subscription[]> {
    return this.promise(async () => {
      const { prune = false, ...requestOptions } = options;
      this.check(ensureParams, { url, events }, 'ensure');
      const listed = await this.#list(requestOptions);
      const current = listed.data;
      const mine = current.filter((s) => sameUrl(s.url, url));
      const plan = planEnsure(current, url, mine, [...new Set(events)], prune);
      if (this.core.validateRequests && plan.refusedEnd) throw dealRuleError(['events'], 'ensure');
      let last: WithResponse<unknown> = listed;
      const written: Subscription[] = [];
      for (const write of plan.writes) {
        const answer = await this.#write(write, requestOptions);
        written.push(...answer.data);
        last = answer;
      }
      const data = [...plan.kept, ...(prune ? [] : plan.extra), ...written];
      return { ...last, data };
    });
  }

  /** Refuses a write that would leave deal_add without contact_add on the account. */
  async #judge(write: Write, what: string, options?: RequestOptions): Promise<void> {
    if (!this.core.validateRequests || !mayBreakRule(write)) return;
    const { data: current } = await this.#list(options);
    if (breaksRule(current, write)) throw dealRuleError(rulePath(current, write), what);
  }

  #list(options?: RequestOptions): Promise<WithResponse<Subscription[]>> {
    return this.request({ surface: 'v2', method: 'GET', path: '/v2/webhooks' }, options, (data) =>
      this.read(subscriptionList, data),
    );
  }

  /** One write; DELETE answers no subscriptions. */
  #write(write: Write, options?: RequestOptions): Promise<WithResponse<Subscription[]>> {
    const method = write.kind === 'post' ? 'POST' : write.kind === 'patch' ? 'PATCH' : 'DELETE';
    const body = { data: write.kind === 'delete' ? write.ids.map((id) => ({ id })) : write.items };
    const spec: CallSpec = { surface: 'v2', method, path: '/v2/webhooks', body };
    return this.request(spec, options, (data) =>
      write.kind === 'delete' ? [] : this.read(subscriptionList, data),
    );
  }
}
