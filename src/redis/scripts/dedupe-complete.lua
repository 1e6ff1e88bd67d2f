--[[
  Marks the key done while it holds this claim, or nothing: a holder whose lease ran out never
  overwrites the claim, or the stored reply, of the attempt that took over.
  KEYS[1] the claim: <prefix>{<escaped key>}
  KEYS[2] the kept CRM reply: <prefix>{<escaped key>}:reply
  ARGV[1] token of the claim
  ARGV[2] value: 'd' or 'd<reply json>'
  ARGV[3] ttl (ms)
  Returns 1 when marked, 0 when another claim holds the key
]]
local v = redis.call('GET', KEYS[1])
if v and v ~= 'p' .. ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
redis.call('DEL', KEYS[2])
return 1
