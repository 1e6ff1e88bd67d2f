import { randomUUID } from 'node:crypto';

/** A channel the stand-in holds. */
export interface StoredChannel {
  channel_id: string;
  transport: string;
  state: string;
  status: 'active' | 'init' | 'disabled';
  reason: string | null;
  phone: string;
  username: string;
  messenger_id: string;
  name: string;
  tier: string | null;
  url?: string;
}

/** A message the stand-in accepted. */
export interface StoredMessage {
  message_id: string;
  request_id: string;
  chat_id: string;
  channel_id: string;
  body: Record<string, unknown>;
}

/** Everything the stand-in remembers; tests may read it. */
export class StandInState {
  readonly channels = new Map<string, StoredChannel>();
  readonly messages = new Map<string, StoredMessage>();
  readonly subscriptions = new Map<string, { id: string; url: string; event: string }>();
  v3Settings: { webhooksUri: string | null; subscriptions: Record<string, boolean> } = {
    webhooksUri: null,
    subscriptions: {
      messagesAndStatuses: false,
      contactsAndDealsCreation: false,
      channelsUpdates: false,
      templateStatus: false,
    },
  };

  addChannel(transport: string): StoredChannel {
    const channel: StoredChannel = {
      channel_id: randomUUID(),
      transport,
      state: 'init',
      status: 'init',
      reason: transport === 'telegram' || transport === 'maxbot' ? null : 'qr',
      phone: '',
      username: '',
      messenger_id: '',
      name: `${transport} channel`,
      tier: transport === 'wapi' ? 'TIER_0' : null,
      ...(transport === 'wapi' && { url: 'https://business.example/connect' }),
    };
    this.channels.set(channel.channel_id, channel);
    return channel;
  }
}
