--[[
  Records a status (statuses only move forward; failed is kept beside them) and publishes the
  entry. The message id's pointer (<prefix>m:{<message id>}) is set by its own command, in its
  own slot, before this runs.
  KEYS[1] the request's hash: <prefix>r:{<request id>} (r, m, k rank of the best, b best, f failed)
  ARGV[1] retainMs: the hash lives this long after the first status
  ARGV[2] rank of the status (-2 failed)
  ARGV[3] the update (JSON)
  ARGV[4] request id
  ARGV[5] message id or ''
  ARGV[6] channel to publish on
  Returns the entry (JSON)
]]
-- @include delivery-entry.lua
local rk = KEYS[1]
local retain, rank, update, rid, mid = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3], ARGV[4], ARGV[5]
local fresh = redis.call('EXISTS', rk) == 0
redis.call('HSET', rk, 'r', rid)
if fresh then redis.call('PEXPIRE', rk, retain) end
if mid ~= '' and not redis.call('HGET', rk, 'm') then redis.call('HSET', rk, 'm', mid) end
if rank == -2 then redis.call('HSET', rk, 'f', update)
elseif rank > tonumber(redis.call('HGET', rk, 'k') or '-1') then redis.call('HSET', rk, 'k', rank, 'b', update) end
local json = entry(rk)
redis.call('PUBLISH', ARGV[6], json)
return json
