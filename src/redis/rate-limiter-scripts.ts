import { script } from './connection.js';

// Every script reads Redis's own clock (TIME), so processes whose clocks differ still agree.
// replicate_commands is needed for TIME before Redis 5 and is a no-op after.
const NOW = `
if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`;

/**
 * KEYS: the slot log (a sorted set: member = one request's slot, score = when the slot frees),
 * the shared hold. ARGV: requests, wanted, leaseMs, member prefix, intervalMs.
 * A slot is taken at the start of a request with the lease as its score, and scored
 * `answer + intervalMs` when the answer comes (the release script). Every arrival at the service
 * happens between its start and its answer, so any window of `intervalMs`, whatever its phase,
 * holds at most `requests` arrivals: they all hold a slot at the window's last instant. A slot
 * whose holder died frees when its lease ends.
 * Returns { granted, waitMs }: members `prefix:1..granted` are the caller's; when fewer than
 * wanted were granted, `waitMs` is the earliest time worth asking again.
 */
export const acquireScript = script(
  'rate limiter acquire',
  `${NOW}
local hold = tonumber(redis.call('GET', KEYS[2]) or '0')
if hold > now then return {0, hold - now} end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local requests, wanted, lease = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local interval = tonumber(ARGV[5])
local granted = math.max(0, math.min(wanted, requests - redis.call('ZCARD', KEYS[1])))
for i = 1, granted do redis.call('ZADD', KEYS[1], now + lease, ARGV[4] .. ':' .. i) end
if granted > 0 then redis.call('PEXPIRE', KEYS[1], lease + interval) end
if granted == wanted then return {granted, 0} end
-- A slot still in flight frees no sooner than one interval from now; a finished one at its score.
local wait = interval
local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
if first[2] then wait = math.min(wait, tonumber(first[2]) - now) end
return {granted, math.max(1, wait)}
`,
);

/** KEYS: the slot log. ARGV: intervalMs, key TTL, members answered: each now frees one interval from now. */
export const releaseScript = script(
  'rate limiter release',
  `${NOW}
local frees = now + tonumber(ARGV[1])
for i = 3, #ARGV do redis.call('ZADD', KEYS[1], frees, ARGV[i]) end
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]))
return 1
`,
);

/** KEYS: the shared hold. ARGV: ms. Holds every start of every process until now + ms (never shortens a hold). */
export const pauseScript = script(
  'rate limiter pause',
  `${NOW}
local ms = tonumber(ARGV[1])
local hold = tonumber(redis.call('GET', KEYS[1]) or '0')
if now + ms > hold then redis.call('SET', KEYS[1], now + ms, 'PX', ms) end
return 1
`,
);

/**
 * KEYS: the slot log. ARGV: member prefix, count. Takes back the slots of an acquire whose answer
 * never arrived: a client that queues commands while it reconnects runs that acquire late, and
 * this, sent after it on the same connection, runs after it.
 */
export const cancelScript = script(
  'rate limiter cancel',
  `for i = 1, tonumber(ARGV[2]) do redis.call('ZREM', KEYS[1], ARGV[1] .. ':' .. i) end
return 1
`,
);
