import type { Webhook } from '../../webhooks/decode/parse.js';

/** What the flow learns of its channel, from a webhook or from `channels.get`. */
export type ChannelSignal =
  | { type: 'qr'; qr: string }
  | { type: 'status'; status: string; reason: string | null };

// spec: Channel state (API v3) → the v2 status and reason the flow reads.
const V3_STATES: Record<string, [string, string | null]> = {
  active: ['active', null],
  qr: ['init', 'qr'],
  openElsewhere: ['disabled', 'openelsewhere'],
  notEnoughMoney: ['disabled', 'not_enough_money'],
  unauthorized: ['disabled', 'unauthorized'],
  phoneUnavailable: ['disabled', 'phoneunavailable'],
  disabled: ['disabled', null],
};

/** The signals a decoded delivery carries, as `[channelId, signal]` pairs. */
export function signalsOf(webhook: Webhook): [string, ChannelSignal][] {
  const out: [string, ChannelSignal][] = [];
  if (webhook.api === 'v2') {
    if (webhook.event === 'channel.qr_update') {
      for (const item of webhook.data) out.push([item.channel_id, { type: 'qr', qr: item.qr_code }]);
    } else if (webhook.event === 'channel.status_update') {
      for (const item of webhook.data) {
        out.push([item.channel_id, { type: 'status', status: item.status, reason: item.reason ?? null }]);
      }
    }
  } else if (webhook.type === 'channelsUpdates') {
    for (const item of webhook.channelsUpdates) {
      if (item.qr) out.push([item.channelId, { type: 'qr', qr: item.qr }]);
      else if (item.qridle !== undefined && item.qridle !== null && item.state !== 'active') {
        out.push([item.channelId, { type: 'status', status: 'disabled', reason: 'qridle' }]);
      } else if (typeof item.state === 'string' && V3_STATES[item.state]) {
        const [status, reason] = V3_STATES[item.state] as [string, string | null];
        out.push([item.channelId, { type: 'status', status, reason }]);
      }
    }
  }
  return out;
}
