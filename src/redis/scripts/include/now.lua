-- Redis's own clock (TIME), so processes whose clocks differ still agree. replicate_commands is
-- needed for TIME before Redis 5 and is a no-op after.
if redis.replicate_commands then redis.replicate_commands() end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
