--[[
  Gives back a conversation whose send never reached the service, unless another start of the
  same chat took its place.
  KEYS[1] the channel's wapi conversations, a sorted set (member: chat id, score: when it started, ms): <prefix>{<channel id>}:started
  ARGV[1] chat id
  ARGV[2] when the conversation given back started (ms)
  Returns 1 when given back, 0 otherwise
]]
if tonumber(redis.call('ZSCORE', KEYS[1], ARGV[1]) or '-1') ~= tonumber(ARGV[2]) then return 0 end
return redis.call('ZREM', KEYS[1], ARGV[1])
