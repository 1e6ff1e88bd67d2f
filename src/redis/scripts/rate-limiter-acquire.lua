--[[
  Takes up to `wanted` slots of the shared limit. A slot is taken at the start of a request with
  the lease as its score, and scored `answer + intervalMs` when the answer comes (release). Every
  arrival at the service happens between its start and its answer, so any window of `intervalMs`,
  whatever its phase, holds at most `requests` arrivals. A slot whose holder died frees when its
  lease ends.
  KEYS[1] the slot log, a sorted set (member: one request's slot, score: when it frees): <prefix>{<escaped key>}:slots
  KEYS[2] the shared hold after a 429: <prefix>{<escaped key>}:hold
  ARGV[1] requests
  ARGV[2] wanted
  ARGV[3] leaseMs
  ARGV[4] member prefix: the caller's slots are <prefix>:1..granted
  ARGV[5] intervalMs
  Returns {granted, waitMs}: when fewer than wanted, waitMs is the earliest time worth asking again
]]
-- @include now.lua
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
