--[[
  The entry of a request.
  KEYS[1] the request's hash: <prefix>r:{<request id>}
  Returns the entry (JSON), or false when nothing is stored
]]
-- @include delivery-entry.lua
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
return entry(KEYS[1])
