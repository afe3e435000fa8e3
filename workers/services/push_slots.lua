-- A Celery worker's push slots (workers/services/push_slots.py): one atomic step, Redis's clock.
--
-- KEYS[1]: the worker's slots, a sorted set of requests scored by when each has surely ended.
-- ARGV[1]: the most requests at once. ARGV[2]: this request's member. ARGV[3]: the milliseconds
-- it may hold its slot (its deadline and a margin; past it, the slot frees itself).
-- Returns 0 when a slot was taken, else the milliseconds until the first holder has ended.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[1]) then
    redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[2])
    redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]))
    return 0
end
local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return math.max(1, tonumber(first[2]) - now)
