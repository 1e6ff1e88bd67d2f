--[[
  The wapi conversations a channel started after a time, and its tier.
  KEYS[1] the channel's transport and tier, a hash: <prefix>{<channel id>}:channel
  KEYS[2] the channel's wapi conversations, a sorted set (member: chat id, score: when it started, ms): <prefix>{<channel id>}:started
  ARGV[1] since (ms): conversations started after it count
  Returns {count, tier or false}
]]
return { redis.call('ZCOUNT', KEYS[2], '(' .. ARGV[1], '+inf'), redis.call('HGET', KEYS[1], 'tier') }
