-- The entry of a request's hash, as JSON: r request id, m message id, b best status, f failed.
local function entry(rk)
  local h = redis.call('HMGET', rk, 'r', 'm', 'b', 'f')
  return cjson.encode({ r = h[1], m = h[2] or nil, b = h[3] or nil, f = h[4] or nil })
end
