--[[
  Starts a wapi conversation of the channel with a chat, unless one started within a
  conversation's length, or the channel started `cap` within it. One script: instances starting
  conversations at once never pass the cap together.
  KEYS[1] the channel's wapi conversations, a sorted set (member: chat id, score: when it started, ms): <prefix>{<channel id>}:started
  ARGV[1] chat id
  ARGV[2] now (ms)
  ARGV[3] a conversation's length (ms)
  ARGV[4] cap: conversations allowed within that length, or -1 for no limit
  Returns 'started', 'open' (the chat has one) or 'full' (the cap is reached)
]]
local now, length, cap = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - length)
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 'open' end
if cap >= 0 and redis.call('ZCARD', KEYS[1]) >= cap then return 'full' end
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('PEXPIRE', KEYS[1], length)
return 'started'
