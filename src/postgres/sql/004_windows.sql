-- Conversation windows (`new ConversationWindows({ store: store.windows })`): what a fleet heard
-- of each channel and chat, so that a send on any instance is judged by it. Times come from the
-- SDK's clock.

CREATE SCHEMA IF NOT EXISTS messaging_gateway;

-- Each channel's transport (wapi and instAPI have windows) and, for wapi, its tier.
CREATE TABLE IF NOT EXISTS messaging_gateway.window_channels (
  channel_id text PRIMARY KEY,
  transport text,
  tier text,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Each chat's last inbound message, and the last wapi conversation the channel started with it.
CREATE TABLE IF NOT EXISTS messaging_gateway.window_chats (
  channel_id text NOT NULL,
  chat_id text NOT NULL,
  last_inbound_at timestamptz,
  conversation_at timestamptz,
  PRIMARY KEY (channel_id, chat_id)
);
CREATE INDEX IF NOT EXISTS window_chats_conversation ON messaging_gateway.window_chats (channel_id, conversation_at) WHERE conversation_at IS NOT NULL;

-- When an instance first listened to inbound messages: a chat of which no message is known is
-- closed only once a whole window has passed since then. One row.
CREATE TABLE IF NOT EXISTS messaging_gateway.window_listening (
  id boolean PRIMARY KEY DEFAULT true CHECK (id),
  since timestamptz NOT NULL
);
