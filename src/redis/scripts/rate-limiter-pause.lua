--[[
  Holds every start of every process until now + ms (after a 429); never shortens a hold.
  KEYS[1] the shared hold: <prefix>{<escaped key>}:hold
  ARGV[1] ms
  Returns 1
]]
-- @include now.lua
local ms = tonumber(ARGV[1])
local hold = tonumber(redis.call('GET', KEYS[1]) or '0')
if now + ms > hold then redis.call('SET', KEYS[1], now + ms, 'PX', ms) end
return 1
