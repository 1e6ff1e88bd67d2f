import type { Deliverer, DeliveryRecord } from './deliveries.js';
import { qrPng } from './png.js';
import type { FakeChannel, FakeState } from './state.js';
import { v3ChannelState } from './v3-equivalents.js';

/** Transports that connect with a QR code (spec: create → follow-up by transport). */
export const QR_TRANSPORTS = new Set(['whatsapp', 'tgapi', 'viber', 'max']);

/** How the fake plays a channel's connection (options of createFakeGateway). */
export interface ChannelPlay {
  /** Scan each QR by itself one step after showing it; false waits for `simulate.scan`. */
  autoScan: boolean;
  /** How long a QR lives before the channel goes disabled / qridle (two refreshes come before). */
  qrLifetimeMs: number;
}

/** Sets a channel's status and delivers channel.status_update (and its v3 channelsUpdates twin). */
export async function setChannelStatus(
  d: Deliverer,
  channel: FakeChannel,
  status: FakeChannel['status'],
  reason: string | null,
): Promise<DeliveryRecord[]> {
  Object.assign(channel, { status, reason, state: status });
  const { channel_id } = channel;
  const state = v3ChannelState(status, reason);
  const v3 = state && {
    channelId: channel_id,
    state,
    // spec: channelsUpdates — tier for wapi channels only; qridle when the QR expired
    ...(channel.transport === 'wapi' && channel.tier && { tier: channel.tier }),
    ...(reason === 'qridle' && { qridle: 'qridle' }),
    timestamp: Date.now(),
  };
  const made = await Promise.all([
    d.v2('channel.status_update', [{ channel_id, status, reason }]),
    v3 ? d.send({ channelsUpdates: [v3] }) : [],
  ]);
  return made.flat();
}

/**
 * What the fake's QR code number `n` of a channel holds: `mgsdk-fake:<channelId>:<n>`. A test
 * decodes the picture it received (or the bin printed) and compares it with this.
 */
export function qrText(channelId: string, n: number): string {
  return `mgsdk-fake:${channelId}:${n}`;
}

/** Delivers a new QR of the channel (v2 channel.qr_update, v3 channelsUpdates state qr). */
async function deliverQr(d: Deliverer, channel: FakeChannel, n: number): Promise<void> {
  const { channel_id, transport } = channel;
  const png = qrPng(qrText(channel_id, n)).toString('base64');
  channel.qr = `data:image/png;base64,${png}`;
  const platform = transport === 'tgapi' ? 'telegram_api' : transport;
  const qr = { channel_id, qr_code: channel.qr, platform };
  const v3 = { channelId: channel_id, state: 'qr', qr: png, timestamp: Date.now() };
  await Promise.all([d.v2('channel.qr_update', [qr]), d.send({ channelsUpdates: [v3] })]);
}

/**
 * The life of a new (or reinitialised) channel: channel.create, then for QR transports a QR. With
 * autoScan the QR is scanned a step later and the channel goes active (wapi: the link is opened);
 * without it the QR is refreshed twice and expires to disabled / qridle after `qrLifetimeMs`,
 * unless `simulate.scan` comes first. Bots (telegram, maxbot) go active a step later.
 */
export async function channelLife(
  d: Deliverer,
  state: FakeState,
  channel: FakeChannel,
  play: ChannelPlay,
  created = true,
): Promise<void> {
  const epoch = d.epoch;
  const { channel_id, transport } = channel;
  if (created) await d.v2('channel.create', [{ channel_id, timestamp: Date.now() }]);
  const qrBased = QR_TRANSPORTS.has(transport);
  if (qrBased) {
    if (!(await d.step(epoch))) return;
    await deliverQr(d, channel, 0);
  }
  const bot = transport === 'telegram' || transport === 'maxbot';
  if (!play.autoScan && !bot) {
    if (qrBased) state.timers.schedule(channel_id, qrClock(d, state, channel, play.qrLifetimeMs));
    return; // waits for simulate.scan
  }
  if (!(await d.step(epoch))) return; // the client scans the code, or opens the wapi link
  if (!state.channels.has(channel_id)) return;
  await setChannelStatus(d, channel, 'active', null);
}

/** The refreshes and the expiry of a QR, as timers the fake clears on scan, reset and close. */
function qrClock(d: Deliverer, state: FakeState, channel: FakeChannel, lifetimeMs: number) {
  const waiting = () => state.channels.get(channel.channel_id) === channel && channel.reason === 'qr';
  const at = (ms: number, fn: () => Promise<unknown>) =>
    setTimeout(() => {
      if (waiting()) void d.track(fn());
    }, ms);
  return [
    at(lifetimeMs / 3, () => deliverQr(d, channel, 1)),
    at((2 * lifetimeMs) / 3, () => deliverQr(d, channel, 2)),
    at(lifetimeMs, () => setChannelStatus(d, channel, 'disabled', 'qridle')),
  ];
}
