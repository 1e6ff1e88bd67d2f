--[[
  Records that the customer of a chat wrote at a time, unless a later message of the chat is
  known, and forgets the channel's chats whose last message is older than the longest window.
  KEYS[1] the channel's chats' last inbound messages, a sorted set (member: chat id, score: ms): <prefix>{<channel id>}:inbound
  ARGV[1] chat id
  ARGV[2] when the customer wrote (ms)
  ARGV[3] cut-off: chats whose last message is at or before it are forgotten (ms)
  ARGV[4] how long the set lives after its last write (ms)
  Returns 1 when recorded, 0 when a later message was known
]]
local at = tonumber(ARGV[2])
if at <= tonumber(redis.call('ZSCORE', KEYS[1], ARGV[1]) or '-1') then return 0 end
redis.call('ZADD', KEYS[1], at, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
