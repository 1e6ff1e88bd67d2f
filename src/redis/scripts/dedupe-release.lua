--[[
  Deletes the claim only while it is this one: a release that reached Redis late never forgets a
  claim someone else made since. A kept reply stays.
  KEYS[1] the claim: <prefix>{<escaped key>}
  ARGV[1] token of the claim
  Returns 1 when deleted, 0 otherwise
]]
if redis.call('GET', KEYS[1]) == 'p' .. ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
