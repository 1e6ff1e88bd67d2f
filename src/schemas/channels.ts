/**
 * Channels (spec: Endpoints → Channels, Resources → Channel).
 * @module
 */
import * as z from 'zod/mini';
import { digitsOnly, nonEmpty } from './common.js';
import { CHANNEL_REASONS, CHANNEL_STATUSES, TIERS, TRANSPORTS } from './constants.js';
import { idString, lenientEnum, lenientString } from './lenient.js';

export { CHANNEL_REASONS, CHANNEL_STATUSES, TIERS };

const empty = z.object({}, { error: 'credentials must be an object ({} for this transport)' });

/** Credentials per transport (spec: POST /v2/channels → Credentials by transport). */
export const credentialsByTransport = {
  telegram: z.object({ telegram_token: nonEmpty() }),
  tgapi: empty,
  vk: z.object({
    code: nonEmpty(),
    groups: z.array(z.object({ name: z.string(), id: z.number({ error: 'vk group id must be a number' }) })),
  }),
  wapi: empty,
  whatsapp: empty,
  instAPI: z.object({
    username: nonEmpty(),
    page_id: nonEmpty(),
    inst_id: nonEmpty(),
    user_token: nonEmpty(),
  }),
  viber: empty,
  avito: z.object({ code: nonEmpty() }),
  max: empty,
  maxbot: z.object({ access_token: nonEmpty() }),
} as const satisfies Record<(typeof TRANSPORTS)[number], z.ZodMiniType>;

function channelOf<T extends (typeof TRANSPORTS)[number]>(t: T) {
  return z.object({ transport: z.literal(t), credentials: credentialsByTransport[t] });
}

/** POST /v2/channels body: a discriminated union on `transport`. */
export const createChannelParams = z.discriminatedUnion(
  'transport',
  [
    channelOf('telegram'),
    channelOf('tgapi'),
    channelOf('vk'),
    channelOf('wapi'),
    channelOf('whatsapp'),
    channelOf('instAPI'),
    channelOf('viber'),
    channelOf('avito'),
    channelOf('max'),
    channelOf('maxbot'),
  ],
  { error: `transport must be one of ${TRANSPORTS.join(', ')}` },
);
/** Body of `channels.create`; `credentials` is typed by `transport`. */
export type CreateChannelParams = z.input<typeof createChannelParams>;

/** Credentials of any transport (reinit does not name the transport). */
export type ChannelCredentials = CreateChannelParams['credentials'];

const c = credentialsByTransport;
/**
 * POST /v2/channels/{id}/reinit body. The call does not name the transport, so the credentials
 * are those of any transport: the most specific shape that fits is the output (so what this
 * schema gives is what `channels.reinit` takes), and any other object still passes as the
 * credentials of a transport that needs none.
 */
export const reinitChannelParams = z.object({
  credentials: z.union([c.instAPI, c.vk, c.telegram, c.maxbot, c.avito, empty], {
    error: 'credentials must be an object',
  }),
});
/** Body of `channels.reinit`. */
export type ReinitChannelParams = { credentials: ChannelCredentials };

/** POST /v2/channels/{id}/auth/2fa body: any transport but maxbot. */
export const submit2faParams = z.object({
  two_factor_code: nonEmpty(),
  transport: z.enum(
    TRANSPORTS.filter((t) => t !== 'maxbot') as [Exclude<(typeof TRANSPORTS)[number], 'maxbot'>, ...never[]],
    { error: 'transport: any transport but maxbot' },
  ),
});
/** Body of `channels.submit2fa`. */
export type Submit2faParams = z.input<typeof submit2faParams>;

/** POST /v2/channels/{id}/pairing-code body (whatsapp only). */
export const pairingCodeParams = z.object({
  transport: z.literal('whatsapp', { error: 'transport must be whatsapp' }),
  /** Digits only, no plus sign. */
  pairing_phone: z.optional(digitsOnly()),
});
/** Body of `channels.requestPairingCode`. */
export type PairingCodeParams = z.input<typeof pairingCodeParams>;

/** Options of `channels.delete`. */
export const deleteChannelParams = z.object({
  /** true deletes the chats too; otherwise history is kept. */
  delete_chats: z.optional(z.boolean()),
});
/** Options of `channels.delete`. */
export type DeleteChannelParams = z.input<typeof deleteChannelParams>;

const optionalString = z.nullish(lenientString);

/**
 * A channel as the service reports it. Read tolerantly: only `channel_id` and `transport` must
 * be present; enumerations keep unknown values; the deprecated `state` and the undocumented
 * `tariff` (reinit) are kept; unknown fields are kept.
 */
export const channel = z.looseObject({
  channel_id: idString,
  transport: lenientEnum(TRANSPORTS),
  /** Deprecated: replaced by `status` and `reason`. */
  state: optionalString,
  status: z.nullish(lenientEnum(CHANNEL_STATUSES)),
  reason: z.nullish(lenientEnum(CHANNEL_REASONS)),
  phone: optionalString,
  username: optionalString,
  messenger_id: optionalString,
  name: optionalString,
  url: optionalString,
  tier: z.nullish(lenientEnum(TIERS)),
  /** Returned by reinit; not described in the spec's channel resource. */
  tariff: z.optional(z.unknown()),
});
/** A channel as the service reports it. */
export type Channel = z.output<typeof channel>;

/** One element of the create answer: for wapi also the `url` the user must open. */
export const createdChannel = z.looseObject({
  channel_id: idString,
  transport: lenientEnum(TRANSPORTS),
  url: optionalString,
});
/** One element of the create answer. */
export type CreatedChannel = z.output<typeof createdChannel>;

/** Answer of `channels.requestPairingCode`. */
export const pairingCode = z.looseObject({ pairing_code: lenientString, pairing_phone: optionalString });
/** Answer of `channels.requestPairingCode`. */
export type PairingCode = z.output<typeof pairingCode>;
