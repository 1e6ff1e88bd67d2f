--[[
  Keeps the CRM reply across a release, unless the key is done already.
  KEYS[1] the claim: <prefix>{<escaped key>}
  KEYS[2] the kept CRM reply: <prefix>{<escaped key>}:reply
  ARGV[1] reply (JSON)
  ARGV[2] ttl (ms)
  Returns 1 when kept, 0 when the key is done
]]
local v = redis.call('GET', KEYS[1])
if v and string.sub(v, 1, 1) == 'd' then return 0 end
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
return 1
