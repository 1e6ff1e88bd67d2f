--[[
  Takes back the slots of an acquire whose answer never arrived: a client that queues commands
  while it reconnects runs that acquire late, and this, sent after it on the same connection,
  runs after it.
  KEYS[1] the slot log: <prefix>{<escaped key>}:slots
  ARGV[1] member prefix of that acquire
  ARGV[2] how many it asked for
  Returns 1
]]
for i = 1, tonumber(ARGV[2]) do redis.call('ZREM', KEYS[1], ARGV[1] .. ':' .. i) end
return 1
