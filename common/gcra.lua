-- The rate limits' one script (the generic cell rate algorithm), for the API and login limits
-- (common/throttling.py) and the providers' (workers/services/provider_rates.py): one atomic
-- step, one round trip, Redis's clock.
--
-- KEYS[1]: the bucket. It holds the "theoretical arrival time" (TAT), in milliseconds: when it
-- would be empty again. KEYS[2] (mode 'reserve' only): this request's reservation.
-- ARGV[1]: milliseconds between two requests at the sustained rate (period / N).
-- ARGV[2]: the period in milliseconds (a burst of N fits in it).
-- ARGV[3]: the mode.
--   'take'    Returns 0 when a request may pass now, and counts it; else the milliseconds until
--             one may, counting nothing (the admin login takes before checking a password).
--   'give'    Uncounts one request taken before (a login whose password was right); returns 0.
-- ARGV[4] (optional, 'take' only): how many requests one that may pass counts for [1]; a
--   fan-out's runs are charged so (common/throttling.py): the bucket may then owe more than a
--   burst, and refuses until it has caught up.
--   'reserve' Always counted: a request over the limit gets the next free slot, remembered
--             under KEYS[2], and the milliseconds until it; when it comes back, it finds its
--             slot due (returns 0 and frees it) and takes nothing more.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local interval = tonumber(ARGV[1])
local period = tonumber(ARGV[2])
local mode = ARGV[3]
if mode == 'reserve' then
    local reserved = redis.call('GET', KEYS[2])
    if reserved then
        local left = tonumber(reserved) - now
        if left > 0 then return math.ceil(left) end
        redis.call('DEL', KEYS[2])
        return 0
    end
end
local tat = tonumber(redis.call('GET', KEYS[1]) or 0)
if mode == 'give' then
    tat = tat - interval
    if tat > now then
        redis.call('SET', KEYS[1], tostring(tat), 'PX', math.ceil(tat - now) + 1000)
    else
        redis.call('DEL', KEYS[1])
    end
    return 0
end
if tat < now then tat = now end
local new_tat = tat + interval
local wait = new_tat - period - now
if mode == 'take' then
    if wait > 0 then return math.ceil(wait) end
    new_tat = tat + interval * tonumber(ARGV[4] or 1)
    redis.call('SET', KEYS[1], tostring(new_tat), 'PX', math.ceil(new_tat - now) + 1000)
    return 0
end
redis.call('SET', KEYS[1], tostring(new_tat), 'PX', math.ceil(new_tat - now) + 1000)
if wait <= 0 then return 0 end
redis.call('SET', KEYS[2], tostring(now + wait), 'PX', math.ceil(wait) + 3600000)
return math.ceil(wait)
