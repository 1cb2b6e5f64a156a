/**
 * The one Lua script of the Redis store. It decides every limit of a request (and its quota)
 * on Redis TIME, commits all of them or none, and meters the outcome, in one EVALSHA.
 *
 * Each algorithm below is a line-for-line copy of its TypeScript pure function (token-bucket.ts,
 * ...): the same double operations in the same order, so both produce identical bits. Every
 * stored quantity is an integer-valued double below 2^63 (at most burst × windowMs ≈ 2.7e18), so
 * %d writes it exactly (Lua's tostring would round to 14 digits) and costs a quarter of %.17g.
 *
 * KEYS: one state key per limit, then the quota key when a quota is checked.
 * ARGV: [1] nowMs or '' (Redis TIME) [2] cost [3] limit count [4] TTL padding ms
 *       [5] quota limit or '' [6] quota period 'd'|'m' [7] quota reset day
 *       [8] meter bucket prefix or '' [9] meter member [10] mode: 'c' check, 'i' record invalid
 *       then 5 per limit: algorithm code (1 token_bucket, 2 leaky_bucket, 3 fixed_window,
 *       4 sliding_log, 5 sliding_window, 6 gcra), limit, windowMs, burst, shaping (0|1)
 * Returns: {code (0 VALID, 1 RATE_LIMITED, 2 QUOTA_EXCEEDED), nowMs, quota limit (-1: none),
 *          quota remaining, quota resetAt, then 5 per limit: allowed (0|1), remaining, resetMs,
 *          retryAfterMs (-1: never fits), delayMs}
 */
export const CHECK_SCRIPT = `
local floor, ceil, fmt, match, call = math.floor, math.ceil, string.format, string.match, redis.call
local now
if ARGV[1] ~= '' then
  now = tonumber(ARGV[1])
else
  local t = call('TIME')
  now = tonumber(t[1]) * 1000 + floor(tonumber(t[2]) / 1000)
end

local function meter(outcome)
  local prefix = ARGV[8]
  if prefix == '' then return end
  local minute = fmt('%d', floor(now / 60000) * 60000)
  local bucket = prefix .. minute
  -- The first count of a field is the only write that can create the bucket: set TTL and index then.
  if call('HINCRBY', bucket, ARGV[9] .. '|' .. outcome, 1) == 1 then
    call('PEXPIRE', bucket, 172800000)
    call('ZADD', prefix .. 'buckets', minute, minute)
    call('PEXPIRE', prefix .. 'buckets', 172800000)
  end
end

-- Each algorithm's function is defined inside the branch that uses it: the script body runs on
-- every call, and creating closures for algorithms a request does not use costs server CPU.
if ARGV[10] == 'i' then
  meter('invalid')
  return {0, now}
end

local function pair(raw)
  local a, b = match(raw, '^([^:]+):(.+)$')
  return tonumber(a), tonumber(b)
end

-- Numbers handed to redis.call go through %d: Redis would print a large one as 1e+17, not an integer.
local cost = tonumber(ARGV[2])
local n = tonumber(ARGV[3])
-- Every string state (all but sliding logs, which are lists) and the quota in one MGET: each
-- redis.call costs more server CPU than the arithmetic around it.
local pre = {}
do
  local names = {}
  for i = 1, n do
    if ARGV[10 + (i - 1) * 5 + 1] ~= '4' then names[#names + 1] = KEYS[i] end
  end
  if ARGV[5] ~= '' then names[#names + 1] = KEYS[n + 1] end
  if #names > 0 then
    local vals = call('MGET', unpack(names))
    for j = 1, #names do pre[names[j]] = vals[j] end
  end
end
local pad = tonumber(ARGV[4])
local out = {0, now, -1, 0, 0}
local states, ttls = {}, {}
local allowedAll = true
for i = 1, n do
  local b = 10 + (i - 1) * 5
  local alg, limit, w = tonumber(ARGV[b + 1]), tonumber(ARGV[b + 2]), tonumber(ARGV[b + 3])
  local key = KEYS[i]
  local ok, remaining, reset, retry, delay, st, ttl
  if alg == 1 then
    local function tokenBucket(key, limit, w, burst, cost)
      local capacity = burst * w
      local t = now
      local tokens = capacity
      local raw = pre[key]
      if raw then
        local s, last = pair(raw)
        if last > t then t = last end
        local refill = (t - last) * limit
        if refill >= capacity - s then tokens = capacity else tokens = s + refill end
      end
      local need = cost * w
      if tokens >= need then
        local left = tokens - need
        local reset = ceil((capacity - left) / limit)
        return 1, floor(left / w), reset, 0, 0, fmt('%d:%d', left, t), reset
      end
      local retry = -1
      if cost <= burst then retry = ceil((need - tokens) / limit) end
      return 0, floor(tokens / w), ceil((capacity - tokens) / limit), retry, 0
    end
    ok, remaining, reset, retry, delay, st, ttl = tokenBucket(key, limit, w, tonumber(ARGV[b + 4]), cost)
  elseif alg == 2 then
    local function leakyBucket(key, limit, w, burst, shaping, cost)
      local capacity = burst * w
      local t = now
      local level = 0
      local raw = pre[key]
      if raw then
        local s, last = pair(raw)
        if last > t then t = last end
        local drained = (t - last) * limit
        if drained >= s then level = 0 else level = s - drained end
      end
      local need = cost * w
      local over = level + need - capacity
      local neverFits = cost > burst
      local maxDelay = 0
      if shaping then maxDelay = floor(capacity / limit) end
      local shift = 0
      if over > 0 then shift = ceil(over / limit) end
      if not neverFits and (over <= 0 or (shaping and t - now + shift <= maxDelay)) then
        local execAt = t + shift
        local drained = shift * limit
        local nxt = need
        if drained < level then nxt = level - drained + need end
        local delay = 0
        if shaping then delay = execAt - now end
        local reset = execAt - now + ceil(nxt / limit)
        local remaining = 0
        if delay <= 0 and nxt < capacity then remaining = floor((capacity - nxt) / w) end
        return 1, remaining, reset, 0, delay, fmt('%d:%d', nxt, execAt), reset
      end
      local remaining = 0
      if not ((shaping and t > now) or level >= capacity) then remaining = floor((capacity - level) / w) end
      local retry = -1
      if not neverFits then retry = t + shift - maxDelay - now end
      return 0, remaining, t - now + ceil(level / limit), retry, 0
    end
    ok, remaining, reset, retry, delay, st, ttl = leakyBucket(key, limit, w, tonumber(ARGV[b + 4]), ARGV[b + 5] == '1', cost)
  elseif alg == 3 then
    local function fixedWindow(key, limit, w, cost)
      local start = floor(now / w) * w
      local count = 0
      local raw = pre[key]
      if raw then
        local s, c = pair(raw)
        if s >= start then start = s; count = c end
      end
      local reset = start + w - now
      if count + cost <= limit then
        return 1, limit - count - cost, reset, 0, 0, fmt('%d:%d', start, count + cost), reset
      end
      local retry = -1
      if cost <= limit then retry = reset end
      return 0, limit - count, reset, retry, 0
    end
    ok, remaining, reset, retry, delay, st, ttl = fixedWindow(key, limit, w, cost)
  elseif alg == 4 then
    -- Sliding log: one LIST [sum, newest, ts1, cost1, ts2, cost2, ...], oldest entry first.
    local function slidingLog(key, limit, w, cost)
      local els = call('LRANGE', key, 0, 65)
      local fetched = #els
      local complete = fetched < 66
      local function entryAt(j)
        local i = 2 * j + 1
        if els[i] == nil and not complete then
          local more = call('LRANGE', key, fetched, fetched + 127)
          for k = 1, #more do els[fetched + k] = more[k] end
          fetched = fetched + #more
          complete = #more < 128
        end
        local ts = els[i]
        if ts == nil then return nil end
        return tonumber(ts), tonumber(els[i + 1])
      end
      local sum, t, newest = 0, now, 0
      local exists = fetched > 0
      if exists then
        sum = tonumber(els[1])
        newest = tonumber(els[2])
        if newest > t then t = newest end
      end
      local cutoff = t - w
      local j = 1
      while true do
        local ts, c = entryAt(j)
        if ts == nil or ts > cutoff then break end
        sum = sum - c
        j = j + 1
      end
      if sum + cost <= limit then
        return 1, limit - sum - cost, w, 0, 0, {exists, j - 1, sum + cost, t, cost}, w
      end
      local retry = -1
      if cost <= limit then
        local left = sum
        local i = j
        local ts, c
        while left + cost > limit do
          ts, c = entryAt(i)
          left = left - c
          i = i + 1
        end
        retry = ts + w - t
      end
      local reset = 0
      if entryAt(j) ~= nil then reset = newest + w - t end
      return 0, limit - sum, reset, retry, 0
    end
    ok, remaining, reset, retry, delay, st, ttl = slidingLog(key, limit, w, cost)
  elseif alg == 5 then
    local function slidingWindow(key, limit, w, cost)
      local start = floor(now / w) * w
      local current, previous = 0, 0
      local raw = pre[key]
      if raw then
        local s, c, p = match(raw, '^([^:]+):([^:]+):(.+)$')
        s = tonumber(s)
        if s >= start then
          start = s; current = tonumber(c); previous = tonumber(p)
        elseif s == start - w then
          previous = tonumber(c)
        end
      end
      local t = now
      if start > t then t = start end
      local elapsed = t - start
      local weighted = current * w + previous * (w - elapsed)
      local room = limit * w - weighted
      if cost * w <= room then
        local nxt = current + cost
        local reset = 0
        if nxt > 0 then reset = start + 2 * w - t elseif previous > 0 then reset = start + w - t end
        return 1, floor((room - cost * w) / w), reset, 0, 0, fmt('%d:%d:%d', start, nxt, previous), reset
      end
      local retry = -1
      if cost <= limit then
        local spare = (limit - cost) * w
        if current * w <= spare then
          retry = w - elapsed - floor((spare - current * w) / previous)
        else
          retry = 2 * w - elapsed - floor(spare / current)
        end
      end
      local remaining = 0
      if room > 0 then remaining = floor(room / w) end
      local reset = 0
      if current > 0 then reset = start + 2 * w - t elseif previous > 0 then reset = start + w - t end
      return 0, remaining, reset, retry, 0
    end
    ok, remaining, reset, retry, delay, st, ttl = slidingWindow(key, limit, w, cost)
  else
    local function gcra(key, limit, w, burst, cost)
      local capacity = burst * w
      local baseMs, baseRem = now, 0
      local raw = pre[key]
      if raw then
        local a, r = pair(raw)
        if a > now or (a == now and r > 0) then baseMs = a; baseRem = r end
      end
      local debt = (baseMs - now) * limit + baseRem
      local need = cost * w
      if debt + need <= capacity then
        local total = baseRem + need
        local whole = floor(total / limit)
        local tatMs = baseMs + whole
        local tatRem = total - whole * limit
        local reset = tatMs - now
        if tatRem > 0 then reset = reset + 1 end
        return 1, floor((capacity - debt - need) / w), reset, 0, 0, fmt('%d:%d', tatMs, tatRem), reset
      end
      local retry = -1
      if cost <= burst then retry = ceil((debt + need - capacity) / limit) end
      local reset = baseMs - now
      if baseRem > 0 then reset = reset + 1 end
      return 0, floor((capacity - debt) / w), reset, retry, 0
    end
    ok, remaining, reset, retry, delay, st, ttl = gcra(key, limit, w, tonumber(ARGV[b + 4]), cost)
  end
  if ok == 0 then allowedAll = false end
  states[i] = st
  ttls[i] = ttl
  local o = 5 + (i - 1) * 5
  -- Integer replies above 2^53 do not survive the client's parser; such durations are aeons anyway.
  if reset > 9007199254740991 then reset = 9007199254740991 end
  if retry > 9007199254740991 then retry = 9007199254740991 end
  if delay > 9007199254740991 then delay = 9007199254740991 end
  out[o + 1] = ok; out[o + 2] = remaining; out[o + 3] = reset; out[o + 4] = retry; out[o + 5] = delay
end

local code = 0
if not allowedAll then code = 1 end

-- Quota: limits first, so a rate-limited request never spends quota.
local qKey, qState, qTtl
if ARGV[5] ~= '' then
  local qLimit = tonumber(ARGV[5])
  local day = floor(now / 86400000)
  local startMs, endMs
  if ARGV[6] == 'd' then
    startMs = day * 86400000
    endMs = startMs + 86400000
  else
    local resetDay = tonumber(ARGV[7])
    -- civilFromDays / daysFromCivil, as in quota-period.ts (H. Hinnant's algorithms).
    local z = day + 719468
    local era = floor(z / 146097)
    local doe = z - era * 146097
    local yoe = floor((doe - floor(doe / 1460) + floor(doe / 36524) - floor(doe / 146096)) / 365)
    local doy = doe - (365 * yoe + floor(yoe / 4) - floor(yoe / 100))
    local mp = floor((5 * doy + 2) / 153)
    local d = doy - floor((153 * mp + 2) / 5) + 1
    local m = mp + 3
    if mp >= 10 then m = mp - 9 end
    local y = yoe + era * 400
    if m <= 2 then y = y + 1 end
    if d < resetDay then
      m = m - 1
      if m == 0 then m = 12; y = y - 1 end
    end
    local function daysFromCivil(yy, mm, dd)
      if mm <= 2 then yy = yy - 1 end
      local e = floor(yy / 400)
      local ye = yy - e * 400
      local mo = mm + 9
      if mm > 2 then mo = mm - 3 end
      local dy = floor((153 * mo + 2) / 5) + dd - 1
      return e * 146097 + (ye * 365 + floor(ye / 4) - floor(ye / 100) + dy) - 719468
    end
    startMs = daysFromCivil(y, m, resetDay) * 86400000
    if m == 12 then endMs = daysFromCivil(y + 1, 1, resetDay) * 86400000
    else endMs = daysFromCivil(y, m + 1, resetDay) * 86400000 end
  end
  qKey = KEYS[n + 1]
  local used = 0
  local raw = pre[qKey]
  if raw then
    local s, c = pair(raw)
    if s == startMs then used = c end
  end
  local remaining = qLimit - used
  if allowedAll then
    if used + cost <= qLimit then
      remaining = remaining - cost
      qState = fmt('%d:%d', startMs, used + cost)
      qTtl = endMs - now
    else
      allowedAll = false
      code = 2
    end
  end
  if remaining < 0 then remaining = 0 end
  out[3] = qLimit; out[4] = remaining; out[5] = endMs
end
out[1] = code

if allowedAll then
  for i = 1, n do
    local st, ttl = states[i], ttls[i]
    if type(st) == 'table' then
      local function slidingLogWrite(key, st, ttl)
        local exists, dropped, sum, t, cost = st[1], st[2], st[3], st[4], st[5]
        local sumText, tText = fmt('%d', sum), fmt('%d', t)
        if not exists then
          call('RPUSH', key, sumText, tText, tText, fmt('%d', cost))
        else
          -- Trimming to the last dropped entry's pair leaves two slots to overwrite with the header.
          if dropped > 0 then call('LTRIM', key, 2 * dropped, -1) end
          call('LSET', key, 0, sumText)
          call('LSET', key, 1, tText)
          call('RPUSH', key, tText, fmt('%d', cost))
        end
        call('PEXPIRE', key, fmt('%d', ttl))
      end
      slidingLogWrite(KEYS[i], st, ttl + pad)
    elseif ttl >= 1 then
      call('SET', KEYS[i], st, 'PX', fmt('%d', ttl + pad))
    else
      -- The state already equals no state (e.g. a cost-0 read of a full bucket).
      call('DEL', KEYS[i])
    end
  end
  if qState then call('SET', qKey, qState, 'PX', fmt('%d', qTtl + pad)) end
  meter('valid')
else
  -- Nothing was charged, so limits that would have admitted report their uncharged room
  -- (a shaped one conservatively 0), exactly as memory-store.ts does.
  for i = 1, n do
    local o = 5 + (i - 1) * 5
    if out[o + 1] == 1 then
      if out[o + 5] > 0 then out[o + 2] = 0 else out[o + 2] = out[o + 2] + cost end
    end
  end
  if code == 1 then meter('rateLimited') else meter('quotaExceeded') end
end
return out
`;
