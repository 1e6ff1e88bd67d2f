--[[
  Claims a delivery's key for a lease unless it is claimed or done. The claim's value: `p<token>`
  while claimed, `d` when done without a reply, `d<json>` when done with the CRM reply.
  KEYS[1] the claim: <prefix>{<escaped key>}
  KEYS[2] the CRM reply kept across a release: <prefix>{<escaped key>}:reply
  ARGV[1] token naming this claim
  ARGV[2] lease (ms)
  Returns {'claimed', keptReply?} | {'processing'} | {'done', reply}
]]
local v = redis.call('GET', KEYS[1])
if not v then
  redis.call('SET', KEYS[1], 'p' .. ARGV[1], 'PX', ARGV[2])
  local kept = redis.call('GET', KEYS[2])
  if kept then return {'claimed', kept} end
  return {'claimed'}
end
if string.sub(v, 1, 1) == 'p' then return {'processing'} end
return {'done', string.sub(v, 2)}
