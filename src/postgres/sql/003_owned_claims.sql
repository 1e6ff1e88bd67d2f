-- Owned claims of the inbox, and deliveries jsonb cannot hold. Every statement may run again.
CREATE SCHEMA IF NOT EXISTS messaging_gateway;

-- Who holds a delivery under way, and until when: a worker's claim sets both (a token of its own
-- and the end of its lease, timeoutMs plus a margin); its batch runs and finishes only the rows
-- it still holds, and a row whose lease ended may be claimed by another worker.
ALTER TABLE messaging_gateway.inbox ADD COLUMN IF NOT EXISTS locked_by text;
ALTER TABLE messaging_gateway.inbox ADD COLUMN IF NOT EXISTS locked_until timestamptz;

-- A delivery jsonb refuses (a text holding U+0000, or half of an emoji cut in two): kept as its
-- JSON text here, and webhook is null.
ALTER TABLE messaging_gateway.inbox ADD COLUMN IF NOT EXISTS webhook_text text;
ALTER TABLE messaging_gateway.inbox ALTER COLUMN webhook DROP NOT NULL;
