import { randomUUID } from 'node:crypto';
import { FakeWindows } from './windows.js';

/** A channel the fake gateway holds, with the fields of the spec's Channel resource. */
export interface FakeChannel {
  channel_id: string;
  transport: string;
  /** Deprecated by the spec; kept in step with `status`. */
  state: string;
  status: 'active' | 'init' | 'disabled';
  reason: string | null;
  phone: string;
  username: string;
  messenger_id: string;
  name: string;
  tier: string | null;
  url?: string;
  /** The 2FA password set by `simulate.scan`. Not part of the API answer. */
  password?: string;
  /**
   * The QR last shown, as a `data:image/png;base64,` URL; undefined before the first QR (a
   * pairing code is refused then) and after a reinit. Not part of the API answer.
   */
  qr?: string | undefined;
}

/** Timers of the channels' QRs, by channel id: cleared on a scan, a reset and close. */
export class ChannelTimers {
  readonly #timers = new Map<string, ReturnType<typeof setTimeout>[]>();

  schedule(channelId: string, timers: ReturnType<typeof setTimeout>[]): void {
    this.clear(channelId);
    this.#timers.set(channelId, timers);
  }

  clear(channelId?: string): void {
    for (const [id, timers] of this.#timers) {
      if (channelId !== undefined && id !== channelId) continue;
      for (const timer of timers) clearTimeout(timer);
      this.#timers.delete(id);
    }
  }
}

/** A message the fake gateway accepted; `body` is the send request as it came. */
export interface FakeMessage {
  message_id: string;
  request_id: string;
  chat_id: string;
  channel_id: string;
  /** The last status it reached. */
  status: string;
  /** The reason of a `failed` status; null otherwise. */
  reason?: string | null;
  /** When the fake accepted it (ms since the epoch). */
  sentAt?: number;
  /**
   * Why the service fails it, decided when it was accepted: outside the chat's conversation
   * window, or a wapi conversation past the tier (see windows.ts); null or absent otherwise.
   */
  failsWith?: string | null;
  body: Record<string, unknown>;
}

/** A message a contact wrote (`simulate.inbound`), as the inbox page shows it. */
export interface ReceivedMessage {
  message_id: string;
  channel_id: string;
  chat_id: string;
  chat_type: string;
  text: string;
  /** When the customer wrote (`simulate.inbound`'s timestamp, ms since the epoch). */
  receivedAt: number;
}

/** A v2 webhook subscription. */
export interface FakeSubscription {
  id: string;
  url: string;
  event: string;
}

/** The v3 switches (spec: Webhook subscription settings (API v3)). */
export interface FakeV3Settings {
  webhooksUri: string | null;
  subscriptions: {
    messagesAndStatuses: boolean;
    contactsAndDealsCreation: boolean;
    channelsUpdates: boolean;
    templateStatus: boolean;
  };
}

const initialV3 = (): FakeV3Settings => ({
  webhooksUri: null,
  subscriptions: {
    messagesAndStatuses: false,
    contactsAndDealsCreation: false,
    channelsUpdates: false,
    templateStatus: false,
  },
});

/** Sets `key` in `map`, dropping the oldest entries past `max`. */
export function setBounded<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  map.set(key, value);
  while (map.size > max) map.delete(map.keys().next().value as K);
}

/** A channel the fake holds from the start, active (option `channels` of createFakeGateway). */
export interface SeededChannel {
  channel_id: string;
  /** @default 'whatsapp' */
  transport?: string;
  /** @default '<transport> channel' */
  name?: string;
}

/** Everything the fake gateway remembers between requests. */
export class FakeState {
  readonly channels = new Map<string, FakeChannel>();
  readonly messages = new Map<string, FakeMessage>();
  readonly subscriptions = new Map<string, FakeSubscription>();
  /** Messages from contacts, by message_id (the inbox page's chats show them). */
  readonly received = new Map<string, ReceivedMessage>();
  /** The chats' conversation windows and the wapi conversations started. */
  readonly windows: FakeWindows;
  v3Settings: FakeV3Settings = initialV3();
  readonly timers = new ChannelTimers();
  /** Called after anything here changed (the inbox page listens); set by the inbox. */
  onChange: () => void = () => {};

  constructor(
    readonly maxRecords: number,
    readonly seeds: readonly SeededChannel[] = [],
  ) {
    this.windows = new FakeWindows(maxRecords);
    this.#seed();
  }

  #seed(): void {
    for (const { channel_id, transport = 'whatsapp', name } of this.seeds) {
      const channel = this.addChannel(transport, channel_id);
      Object.assign(channel, { status: 'active', state: 'active', reason: null, ...(name && { name }) });
    }
  }

  /** Tells the listener that something changed. */
  changed(): void {
    this.onChange();
  }

  /** Forgets everything but the seeded channels, which start afresh. */
  reset(): void {
    this.channels.clear();
    this.messages.clear();
    this.subscriptions.clear();
    this.received.clear();
    this.windows.clear();
    this.timers.clear();
    this.v3Settings = initialV3();
    this.#seed();
    this.changed();
  }

  /** A new channel in `init`, waiting for its QR (or active at once for bot tokens). */
  addChannel(transport: string, channelId: string = randomUUID()): FakeChannel {
    const bot = transport === 'telegram' || transport === 'maxbot';
    const channel: FakeChannel = {
      channel_id: channelId,
      transport,
      // spec: telegram, maxbot — a valid bot token is all that is needed: usable at once
      state: bot ? 'active' : 'init',
      status: bot ? 'active' : 'init',
      reason: bot || transport === 'wapi' ? null : 'qr',
      phone: '',
      username: '',
      messenger_id: '',
      name: `${transport} channel`,
      tier: transport === 'wapi' ? 'TIER_0' : null,
      ...(transport === 'wapi' && { url: 'https://business.example/connect' }),
    };
    setBounded(this.channels, channel.channel_id, channel, this.maxRecords);
    return channel;
  }

  /** Stores an accepted message. */
  addMessage(message: FakeMessage): void {
    setBounded(this.messages, message.message_id, message, this.maxRecords);
  }

  /** Stores a message from a contact. */
  addReceived(message: ReceivedMessage): void {
    setBounded(this.received, message.message_id, message, this.maxRecords);
  }

  /** The message a send's `request_id` named, if the fake still holds it. */
  messageByRequest(requestId: string): FakeMessage | undefined {
    for (const message of this.messages.values()) if (message.request_id === requestId) return message;
    return undefined;
  }
}
