-- Indexes for store.prune(): it deletes what is finished and older than a given age, in bounded
-- batches, each found through one of these without reading the whole table.
CREATE SCHEMA IF NOT EXISTS messaging_gateway;
CREATE INDEX IF NOT EXISTS inbox_done ON messaging_gateway.inbox (done_at) WHERE state = 'done';
CREATE INDEX IF NOT EXISTS dedupe_expires ON messaging_gateway.dedupe (expires_at);
CREATE INDEX IF NOT EXISTS statuses_updated ON messaging_gateway.statuses (updated_at);
CREATE INDEX IF NOT EXISTS outbox_final ON messaging_gateway.outbox (updated_at) WHERE status IN ('accepted', 'sent', 'delivered', 'read', 'failed');
