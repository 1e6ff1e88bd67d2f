/**
 * Webhook subscriptions: per-event in API v2, one address with four switches in API v3
 * (spec: Endpoints → Webhook subscriptions, API v3 webhook settings).
 * @module
 */
import * as z from 'zod/mini';
import { httpUrl, nonEmpty } from './common.js';
import { V2_EVENTS } from './constants.js';
import { idString, lenientBoolean, lenientString } from './lenient.js';

export { V2_EVENTS };

/** An event kind of API v2. */
export type V2EventName = (typeof V2_EVENTS)[number];
/** Schema of {@link V2EventName}. */
export const v2EventName = z.enum(V2_EVENTS, { error: `event must be one of ${V2_EVENTS.join(', ')}` });

/** One new subscription. */
export const newSubscription = z.object({ url: httpUrl(), event: v2EventName });
/** One new subscription. */
export type NewSubscription = z.input<typeof newSubscription>;

/** POST /v2/webhooks items, each checked alone. */
export const newSubscriptions = z
  .array(newSubscription)
  .check(z.minLength(1, { error: 'give at least one subscription' }));

/**
 * POST /v2/webhooks items, each checked alone. The rule that deal_add works only with
 * contact_add depends on what the account has already: `client.webhooks.subscribe` judges it
 * against the account's subscriptions, so this request schema does not.
 */
export const subscribeParams = newSubscriptions;

/** One changed subscription (PATCH /v2/webhooks). */
export const subscriptionUpdate = z.object({ id: nonEmpty(), url: httpUrl(), event: v2EventName });
/** One changed subscription. */
export type SubscriptionUpdate = z.input<typeof subscriptionUpdate>;

/** PATCH /v2/webhooks items. */
export const updateSubscriptionsParams = z
  .array(subscriptionUpdate)
  .check(z.minLength(1, { error: 'give at least one subscription' }));

/** DELETE /v2/webhooks ids. */
export const unsubscribeParams = z.array(nonEmpty()).check(z.minLength(1, { error: 'give at least one id' }));

/** A subscription as the service reports it; `event` is kept even when this SDK does not know it. */
export const subscription = z.looseObject({ id: idString, url: lenientString, event: lenientString });
/** A subscription as the service reports it. */
export type Subscription = z.output<typeof subscription>;

/** The four switches of API v3. */
export const V3_SWITCHES = [
  'messagesAndStatuses',
  'contactsAndDealsCreation',
  'channelsUpdates',
  'templateStatus',
] as const;

/**
 * PATCH /v3/webhooks body: an address of at most 200 characters and any of the four switches (a
 * switch left out keeps its value at the service; public integrations send two or three).
 */
export const v3WebhookSettingsParams = z.object({
  webhooksUri: httpUrl().check(z.maxLength(200, { error: 'webhooksUri: at most 200 characters' })),
  subscriptions: z.object(
    Object.fromEntries(
      V3_SWITCHES.map((k) => [k, z.optional(z.boolean({ error: `subscriptions.${k} must be a boolean` }))]),
    ) as {
      [K in (typeof V3_SWITCHES)[number]]: z.ZodMiniOptional<z.ZodMiniBoolean<boolean>>;
    },
  ),
});
/** Body of `v3.webhooks.update`. */
export type V3WebhookSettingsParams = z.input<typeof v3WebhookSettingsParams>;

const lenientSwitch = z.pipe(
  z.nullish(lenientBoolean),
  z.transform((v: boolean | null | undefined) => v ?? false),
);

/**
 * The v3 settings as the service reports them: booleans even when sent as "true"/"false",
 * `templateStatus` even when the wire says `wabaTemplatesStatus`, `webhooksUri` possibly null.
 */
export const v3WebhookSettings = z.looseObject({
  webhooksUri: z.pipe(
    z.nullish(lenientString),
    z.transform((v: string | null | undefined) => v ?? null),
  ),
  subscriptions: z.pipe(
    z.transform((raw: unknown) => {
      if (typeof raw !== 'object' || raw === null) return raw ?? {};
      const s = raw as Record<string, unknown>;
      return 'templateStatus' in s || !('wabaTemplatesStatus' in s)
        ? s
        : { ...s, templateStatus: s.wabaTemplatesStatus };
    }),
    z.looseObject({
      messagesAndStatuses: lenientSwitch,
      contactsAndDealsCreation: lenientSwitch,
      channelsUpdates: lenientSwitch,
      templateStatus: lenientSwitch,
    }),
  ),
});
/** The v3 settings as the service reports them. */
export type V3WebhookSettings = z.output<typeof v3WebhookSettings>;
