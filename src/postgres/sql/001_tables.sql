-- The tables of messaging-gateway-sdk/postgres, in the schema messaging_gateway (postgresStore's
-- `schema` option renames it). Idempotent: every statement may run again. Run by store.migrate()
-- and `messaging-gateway postgres migrate`; shipped as plain SQL for other migration tools, which
-- run each file as it is (`messaging-gateway postgres sql --schema NAME` prints them for another
-- schema).

CREATE SCHEMA IF NOT EXISTS messaging_gateway;

-- Idempotency keys of deliveries. state: 'claimed' (held until lease_until), 'kept' (released,
-- the CRM reply kept for the service's retry), 'done' (processed; reply is what a repeat gets).
CREATE TABLE IF NOT EXISTS messaging_gateway.dedupe (
  key text PRIMARY KEY,
  state text NOT NULL,
  token text,
  reply jsonb,
  lease_until timestamptz,
  expires_at timestamptz NOT NULL
);

-- Deliveries stored before their 200, for workers to process. state: 'pending', 'done', 'dead'.
-- chat orders the deliveries of one chat; key is the delivery's idempotency key.
CREATE TABLE IF NOT EXISTS messaging_gateway.inbox (
  id bigserial PRIMARY KEY,
  key text UNIQUE,
  chat text,
  webhook jsonb NOT NULL,
  url text NOT NULL DEFAULT '',
  state text NOT NULL DEFAULT 'pending',
  attempts integer NOT NULL DEFAULT 0,
  run_at timestamptz NOT NULL DEFAULT now(),
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  done_at timestamptz
);
CREATE INDEX IF NOT EXISTS inbox_pending ON messaging_gateway.inbox (id) WHERE state = 'pending';
CREATE INDEX IF NOT EXISTS inbox_chat_pending ON messaging_gateway.inbox (chat, id) WHERE state = 'pending';

-- Delivery statuses of sent messages: the furthest (rank: accepted 0 < sent 1 < delivered 2 <
-- read 3) and the failed one, kept apart.
CREATE TABLE IF NOT EXISTS messaging_gateway.statuses (
  request_id text PRIMARY KEY,
  message_id text,
  rank integer NOT NULL DEFAULT -1,
  best jsonb,
  failed jsonb,
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS statuses_message ON messaging_gateway.statuses (message_id);

-- Sends promised in the user's transactions. status: 'pending', 'sending' (until lease_until),
-- 'unknown', then the message's own: 'accepted', 'sent', 'delivered', 'read', 'failed'.
CREATE TABLE IF NOT EXISTS messaging_gateway.outbox (
  id bigserial PRIMARY KEY,
  params jsonb NOT NULL,
  status text NOT NULL DEFAULT 'pending',
  request_id text,
  reason text,
  lease_until timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  sent_at timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS outbox_pending ON messaging_gateway.outbox (id) WHERE status = 'pending';
CREATE INDEX IF NOT EXISTS outbox_sending ON messaging_gateway.outbox (lease_until) WHERE status = 'sending';
CREATE INDEX IF NOT EXISTS outbox_request ON messaging_gateway.outbox (request_id);
