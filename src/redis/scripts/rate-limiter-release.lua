--[[
  The answers of requests came: each slot now frees one interval from now.
  KEYS[1] the slot log: <prefix>{<escaped key>}:slots
  ARGV[1] intervalMs
  ARGV[2] the log's ttl (ms)
  ARGV[3..] members answered
  Returns 1
]]
-- @include now.lua
local frees = now + tonumber(ARGV[1])
for i = 3, #ARGV do redis.call('ZADD', KEYS[1], frees, ARGV[i]) end
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]))
return 1
