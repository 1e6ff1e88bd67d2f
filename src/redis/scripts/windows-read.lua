--[[
  What a conversation-windows store knows of one chat and its channel, in one step.
  KEYS[1] the channel's transport and tier, a hash: <prefix>{<channel id>}:channel
  KEYS[2] the channel's chats' last inbound messages, a sorted set (member: chat id, score: ms): <prefix>{<channel id>}:inbound
  KEYS[3] the channel's wapi conversations, a sorted set (member: chat id, score: when it started, ms): <prefix>{<channel id>}:started
  ARGV[1] chat id
  Returns {transport, tier, last inbound message (ms), conversation start (ms)}, each false when not known
]]
local channel = redis.call('HMGET', KEYS[1], 'transport', 'tier')
return { channel[1], channel[2], redis.call('ZSCORE', KEYS[2], ARGV[1]), redis.call('ZSCORE', KEYS[3], ARGV[1]) }
