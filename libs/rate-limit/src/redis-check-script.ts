/**
 * The one Lua script of the Redis store. For each request it carries, it decides every limit of
 * the request (and its quota) on Redis TIME, commits all of them or none, and meters the outcome.
 * One EVALSHA carries one request or a batch of them (redis-script-batch.ts): the requests are
 * decided one after another, in order, each exactly as if it had its own EVALSHA, and they share
 * one Redis TIME, one script invocation and one reply.
 *
 * Each algorithm below is a line-for-line copy of its TypeScript pure function (token-bucket.ts,
 * ...): the same double operations in the same order, so both produce identical bits. They are
 * inlined in the per-limit loop rather than written as Lua functions: a script's body runs on
 * every call, so each `local function` is a closure allocated per call. The few helpers (meter,
 * join, put, decide, the sliding log's entry reader) are created at most once per call, not per
 * request, and share the request being decided through the upvalues declared first.
 *
 * Server CPU is the budget here, so the script avoids what costs most in Redis' Lua: arguments
 * (each is a Lua string), `tonumber` (strtod, ~2k instructions each), patterns, `string.format`,
 * tables, and above all `redis.call`s. Numbers therefore travel and are stored as little-endian
 * IEEE-754 doubles read and written with the built-in `struct` library: exact for every value
 * (all are integer-valued doubles), and one C call per state.
 *
 * State layout (redis-key-layout.ts): one HASH per identity, `<prefix>{<identity>}`, holding a
 * field `<name>:<alg>` per limit (all algorithms but sliding_log), the field `quota`, and the
 * field `x`: the latest instant (store clock, ms) until which any field of the hash still
 * matters. The hash's TTL is pushed out to `x` only when a request moves `x`, so most requests
 * cost one HMGET and one HSET, and no PEXPIRE. A sliding log is a LIST of its own,
 * `<prefix>{<identity>}:<name>:sl`, of decimal strings `[sum, newest, t1, c1, t2, c2, …]`,
 * at most one entry per ms (a request at the newest entry's ms adds its cost to that entry).
 *
 * KEYS: the distinct keys of the call's requests, each once (redis-script-batch.ts): each limit's
 *       state key (its identity hash, or a sliding log's list) and each quota's identity hash.
 *       Requests name their keys by index into KEYS.
 * ARGV: one binary string, the requests one after another (one ARGV, not one per request: fewer
 *       arguments for the client to write and Redis to parse, and one Lua string instead of one
 *       per request). Each request: '<dddddddd' its own length in bytes (this header included),
 *       cost, limit count n (negative: record one outcome only, -1 invalid, -2 valid,
 *       -3 rateLimited, -4 quotaExceeded), nowMs (-1: Redis TIME), TTL padding ms, quota limit
 *       (0: no quota), quota reset day (0: daily, 1..28: monthly), the quota key's index in KEYS
 *       (0: none); then per limit '<dddddI4c0' its key's index in KEYS, algorithm (1 token_bucket,
 *       2 leaky_bucket, 7 leaky_bucket shaping, 3 fixed_window, 4 sliding_log, 5 sliding_window,
 *       6 gcra), limit, windowMs, burst, field `<name>:<alg>`; then, when metering, '<I4c0I4c0'
 *       meter bucket prefix, member.
 * Returns: one reply per request, in order: a binary string of little-endian doubles
 *          (struct '<d…'): code (0 VALID, 1 RATE_LIMITED, 2 QUOTA_EXCEEDED), nowMs, [quota limit,
 *          quota remaining, quota resetAt: only when a quota is checked], then 5 per limit:
 *          allowed (0|1), remaining, resetMs, retryAfterMs (-1: never fits), delayMs; or the
 *          table {-1, error message} for a request that failed. One string, not a table of
 *          integers: Redis turns each element of a reply table into RESP on its own, and the
 *          table itself is one more allocation per request (docs/engine.md).
 */
export const CHECK_SCRIPT = `
local floor, ceil, call, sunpack, spack, fmt = math.floor, math.ceil, redis.call, struct.unpack, struct.pack, string.format
-- The call's one argument (every request), the read position, the end of the request being
-- decided (its first byte past it), its clock and TTL padding.
local args, pos, requestEnd, now, pad = ARGV[1], 0, 0, 0, 0
-- Redis TIME, read once per call (every request of the call decides at the same instant).
local redisNow = false
-- The identity hashes of the request being decided (see decide), and its sliding log's list key
-- and the elements read so far (LRANGE in pages).
local groups, nh = {false}, 0
local slKey, slEls, slFetched, slComplete, slEntry
local outcomes = {'invalid', 'valid', 'rateLimited', 'quotaExceeded'}
-- struct formats of the replies, by their number of doubles (a call's requests share a few).
local replyFormats = {}
-- Tables every request of the call reuses instead of building its own (Lua's allocator and
-- collector are a large part of Redis' work per decision): decide's per-limit slots and its reply
-- numbers, sized by constructors for two limits and a quota (Lua 5.1 grows a table by rehashing).
local callL = {false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false}
local callOut = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
-- The quota period last computed: its day, reset day, start and end (the calendar arithmetic
-- below runs once per call, not per request, when the requests share a day and a reset day).
local periodDay, periodReset, periodStart, periodEnd = false, false, 0, 0

-- Usage counts of the whole call, summed per bucket and field and written once at its end, so the
-- requests of one key in a batch cost one HINCRBY, not one each: meters[bucket] = {prefix, minute,
-- {field = count}}. Only requests decided without error reach meter().
local meters = {}
-- The bucket the previous request counted into: its prefix, its minute, its meters entry. The
-- requests of a call share Redis TIME, so they usually share it too (no string.format, no key).
local lastPrefix, lastMinute, lastBucket = false, false, false

-- Reads the meter target after the limit specs (pos has moved past them by then).
local function meter(outcome, by)
  by = by or 1
  if pos >= requestEnd then return end
  local prefix, member = sunpack('<I4c0I4c0', args, pos)
  local minuteMs = floor(now / 60000) * 60000
  local m = lastBucket
  if prefix ~= lastPrefix or minuteMs ~= lastMinute then
    local minute = fmt('%d', minuteMs)
    local bucket = prefix .. minute
    m = meters[bucket]
    if not m then
      m = {prefix, minute, {}}
      meters[bucket] = m
    end
    lastPrefix, lastMinute, lastBucket = prefix, minuteMs, m
  end
  local fields = m[3]
  local field = member .. '|' .. outcome
  fields[field] = (fields[field] or 0) + by
end

local function join(key, field)
  local g
  for h = 1, nh do
    if groups[h][1] == key then g = groups[h]; break end
  end
  if g == nil then
    nh = nh + 1
    g = groups[nh]
    if g then
      -- A table of an earlier request of this call, reset (its HSET argument table [6] is kept).
      g[1] = key; g[2] = 0; g[3] = false; g[4] = 0; g[5] = false; g[7] = 0; g[8] = false
    else
      g = {key, 0, false, 0, false, false, 0, false, false, false, false}
      groups[nh] = g
    end
  end
  local j = g[2] + 1
  g[2] = j
  g[8 + j] = field
  return g, j
end

-- Per identity hash: the changed fields in one HSET, and the TTL pushed out only when this
-- request moves the hash's deadline x further.
local function put(g, j, st, ttl)
  local raw = g[3][j]
  if ttl >= 1 then
    local deadline = now + ttl
    if deadline > g[4] then g[4] = deadline; g[5] = true end
    -- An unchanged state (e.g. a cost-0 read) needs no write.
    if st ~= raw then
      local s = g[6]
      if not s then s = {false, false, false, false, false, false}; g[6] = s end
      local ns = g[7]
      s[ns + 1] = g[8 + j]; s[ns + 2] = st
      g[7] = ns + 2
    end
  elseif raw then
    -- The new state equals no state (e.g. a cost-0 read of a full bucket): drop the field.
    local d = g[8]
    if not d then d = {}; g[8] = d end
    d[#d + 1] = g[8 + j]
  end
end

-- Decides the request at pos in args, whose header the caller has read, and returns its reply.
local function decide(cost, n, qLimit, qReset, qKey)
  if now < 0 then
    if not redisNow then
      local t = call('TIME')
      redisNow = tonumber(t[1]) * 1000 + floor(tonumber(t[2]) / 1000)
    end
    now = redisNow
  end
  if n < 0 then
    -- An outcome-only call (recordOutcome): the cost field carries how many decisions to count.
    meter(outcomes[-n], cost)
    return spack('<dd', 0, now)
  end
  nh = 0
  -- One flat table of 9 slots per limit: algorithm, limit, windowMs, burst, field, its hash's
  -- group (a sliding log: its list's key), the index of its field in the group, then (after
  -- deciding) the new state and its TTL.
  -- A group is one identity hash, read with one HMGET (usually one in all: each redis.call costs
  -- more server CPU than all the arithmetic around it), as an array (no hash part, no hashing):
  -- [1] key [2] field count m [3] HMGET values [4] deadline x [5] x moved [6] HSET args
  -- [7] their count [8] fields to delete [9 .. 8+m] fields.
  -- L is the call's one table (callL), reused by each request: its slots 1 .. 9n are written
  -- before they are read.
  local L = callL
  for i = 1, n do
    local o = (i - 1) * 9
    local k, alg, limit, w, burst, field
    k, alg, limit, w, burst, field, pos = sunpack('<dddddI4c0', args, pos)
    L[o + 1] = alg; L[o + 2] = limit; L[o + 3] = w; L[o + 4] = burst; L[o + 5] = field
    if alg ~= 4 then L[o + 6], L[o + 7] = join(KEYS[k], field) else L[o + 6] = KEYS[k] end
  end
  local qGroup, qIndex
  if qLimit > 0 then qGroup, qIndex = join(KEYS[qKey], 'quota') end
  for h = 1, nh do
    local g = groups[h]
    local m = g[2]
    g[9 + m] = 'x'
    local vals = call('HMGET', g[1], unpack(g, 9, 9 + m))
    g[3] = vals
    local x = vals[m + 1]
    if x then g[4] = sunpack('<d', x) end
  end

  local qOut = 0
  if qLimit > 0 then qOut = 3 end
  -- The call's one reply table (callOut), reused by each request: slots 3 .. outLen are written
  -- below before they are read, and only the first outLen are packed into the reply.
  local out = callOut
  out[2] = now
  local outLen = 2 + qOut + 5 * n
  local allowedAll = true
  for i = 1, n do
    local o = (i - 1) * 9
    local alg, limit, w, burst = L[o + 1], L[o + 2], L[o + 3], L[o + 4]
    local raw
    if alg ~= 4 then raw = L[o + 6][3][L[o + 7]] end
    -- retry -1: the cost never fits. st: the new state (false: none to store), ttl its lifetime.
    local ok, remaining, reset, retry, delay, st, ttl = 0, 0, 0, 0, 0, false, 0
    if alg == 1 then
      -- token_bucket (token-bucket.ts; the refill is bucketLevel in bucket-level.ts)
      local capacity = burst * w
      local t = now
      local tokens = capacity
      if raw then
        local s, last = sunpack('<dd', raw)
        if last > t then t = last end
        local moved = (t - last) * limit
        if moved >= capacity - s then tokens = capacity else tokens = s + moved end
      end
      local held = t - now
      local need = cost * w
      if tokens >= need then
        local left = tokens - need
        ok = 1
        remaining = floor(left / w)
        reset = held + ceil((capacity - left) / limit)
        st = spack('<dd', left, t)
        ttl = reset
      else
        remaining = floor(tokens / w)
        reset = held + ceil((capacity - tokens) / limit)
        if cost <= burst then retry = held + ceil((need - tokens) / limit) else retry = -1 end
      end
    elseif alg == 2 or alg == 7 then
      -- leaky_bucket (leaky-bucket.ts; the drain is bucketLevel in bucket-level.ts); 7: shaping
      local shaping = alg == 7
      local capacity = burst * w
      local t = now
      local level = 0
      if raw then
        local s, last = sunpack('<dd', raw)
        if last > t then t = last end
        local moved = (t - last) * limit
        if moved >= s then level = 0 else level = s - moved end
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
        if shaping then delay = execAt - now end
        ok = 1
        if delay <= 0 and nxt < capacity then remaining = floor((capacity - nxt) / w) end
        reset = execAt - now + ceil(nxt / limit)
        st = spack('<dd', nxt, execAt)
        ttl = reset
      else
        if not ((shaping and t > now) or level >= capacity) then remaining = floor((capacity - level) / w) end
        reset = t - now + ceil(level / limit)
        if neverFits then retry = -1 else retry = t + shift - maxDelay - now end
      end
    elseif alg == 3 then
      -- fixed_window (fixed-window.ts)
      local start = floor(now / w) * w
      local count = 0
      if raw then
        local s, c = sunpack('<dd', raw)
        if s >= start then start = s; count = c end
      end
      reset = start + w - now
      if count + cost <= limit then
        ok = 1
        remaining = limit - count - cost
        st = spack('<dd', start, count + cost)
        ttl = reset
      else
        remaining = limit - count
        if cost <= limit then retry = reset else retry = -1 end
      end
    elseif alg == 4 then
      -- sliding_log (sliding-log.ts): one LIST [sum, newest, ts1, cost1, ts2, cost2, ...], oldest
      -- entry first. Read 33 entries at once, more in pages of 64 only when the walk needs them.
      slKey = L[o + 6]
      slEls = call('LRANGE', slKey, 0, 65)
      slFetched = #slEls
      slComplete = slFetched < 66
      if not slEntry then
        slEntry = function(j)
          local e = 2 * j + 1
          if slEls[e] == nil and not slComplete then
            local more = call('LRANGE', slKey, slFetched, slFetched + 127)
            for k = 1, #more do slEls[slFetched + k] = more[k] end
            slFetched = slFetched + #more
            slComplete = #more < 128
          end
          local ts = slEls[e]
          if ts == nil then return nil end
          return tonumber(ts), tonumber(slEls[e + 1])
        end
      end
      local sum, t, newest = 0, now, 0
      local exists = slFetched > 0
      if exists then
        sum = tonumber(slEls[1])
        newest = tonumber(slEls[2])
        if newest > t then t = newest end
      end
      local cutoff = t - w
      local j = 1
      local live = false
      while true do
        local ts, c = slEntry(j)
        if ts == nil then break end
        if ts > cutoff then live = true; break end
        sum = sum - c
        j = j + 1
      end
      if sum + cost <= limit then
        ok = 1
        remaining = limit - sum - cost
        -- st: {list exists, entries dropped, sum, newest, mode (0 no entry, 1 append, 2 merge), cost of the newest entry}
        if cost == 0 then
          if live then reset = newest + w - now end
          st = {exists, j - 1, sum, newest, 0, 0}
        elseif live and newest == t then
          local newestCost
          if slComplete then newestCost = tonumber(slEls[slFetched]) else newestCost = tonumber(call('LINDEX', slKey, -1)) end
          reset = t + w - now
          st = {exists, j - 1, sum + cost, t, 2, newestCost + cost}
        else
          reset = t + w - now
          st = {exists, j - 1, sum + cost, t, 1, cost}
        end
        ttl = reset
      else
        if cost <= limit then
          local left = sum
          local k = j
          local ts, c
          while left + cost > limit do
            ts, c = slEntry(k)
            left = left - c
            k = k + 1
          end
          retry = ts + w - now
        else
          retry = -1
        end
        remaining = limit - sum
        if live then reset = newest + w - now end
      end
    elseif alg == 5 then
      -- sliding_window (sliding-window.ts)
      local start = floor(now / w) * w
      local current, previous = 0, 0
      if raw then
        local s, c, p = sunpack('<ddd', raw)
        if s >= start then
          start = s; current = c; previous = p
        elseif s == start - w then
          previous = c
        end
      end
      local t = now
      if start > t then t = start end
      local elapsed = t - start
      local weighted = current * w + previous * (w - elapsed)
      local room = limit * w - weighted
      if cost * w <= room then
        local nxt = current + cost
        if nxt > 0 then reset = start + 2 * w - now elseif previous > 0 then reset = start + w - now end
        ok = 1
        remaining = floor((room - cost * w) / w)
        st = spack('<ddd', start, nxt, previous)
        ttl = reset
      else
        if cost <= limit then
          local spare = (limit - cost) * w
          if current * w <= spare then
            retry = t - now + w - elapsed - floor((spare - current * w) / previous)
          else
            retry = t - now + 2 * w - elapsed - floor(spare / current)
          end
        else
          retry = -1
        end
        if room > 0 then remaining = floor(room / w) end
        if current > 0 then reset = start + 2 * w - now elseif previous > 0 then reset = start + w - now end
      end
    else
      -- gcra (gcra.ts)
      local capacity = burst * w
      local baseMs, baseRem = now, 0
      if raw then
        local a, r = sunpack('<dd', raw)
        if a > now or (a == now and r > 0) then baseMs = a; baseRem = r end
      end
      local debt = (baseMs - now) * limit + baseRem
      local need = cost * w
      if debt + need <= capacity then
        local total = baseRem + need
        local whole = floor(total / limit)
        local tatMs = baseMs + whole
        local tatRem = total - whole * limit
        reset = tatMs - now
        if tatRem > 0 then reset = reset + 1 end
        ok = 1
        remaining = floor((capacity - debt - need) / w)
        st = spack('<dd', tatMs, tatRem)
        ttl = reset
      else
        remaining = floor((capacity - debt) / w)
        reset = baseMs - now
        if baseRem > 0 then reset = reset + 1 end
        if cost <= burst then retry = ceil((debt + need - capacity) / limit) else retry = -1 end
      end
    end
    if ok == 0 then allowedAll = false end
    L[o + 8] = st
    L[o + 9] = ttl
    local r = 2 + qOut + (i - 1) * 5
    -- As decision.ts: remaining never below 0 (state written under looser params can exceed new ones).
    if remaining < 0 then remaining = 0 end
    -- Integer replies above 2^53 do not survive the client's parser; such durations are aeons anyway.
    if reset > 9007199254740991 then reset = 9007199254740991 end
    if retry > 9007199254740991 then retry = 9007199254740991 end
    if delay > 9007199254740991 then delay = 9007199254740991 end
    out[r + 1] = ok; out[r + 2] = remaining; out[r + 3] = reset; out[r + 4] = retry; out[r + 5] = delay
  end

  local code = 0
  if not allowedAll then code = 1 end

  -- Quota: limits first, so a rate-limited request never spends quota.
  local qState, qTtl
  if qLimit > 0 then
    local resetDay = qReset
    local day = floor(now / 86400000)
    local startMs, endMs
    if day == periodDay and qReset == periodReset then
      startMs, endMs = periodStart, periodEnd
    elseif qReset == 0 then
      startMs = day * 86400000
      endMs = startMs + 86400000
    else
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
      -- daysFromCivil for the period's start (y, m) and end (the month after), inline.
      local ends = {y, m, y, m + 1}
      if m == 12 then ends[3] = y + 1; ends[4] = 1 end
      for k = 1, 3, 2 do
        local yy, mm = ends[k], ends[k + 1]
        if mm <= 2 then yy = yy - 1 end
        local e = floor(yy / 400)
        local ye = yy - e * 400
        local mo = mm + 9
        if mm > 2 then mo = mm - 3 end
        local dy = floor((153 * mo + 2) / 5) + resetDay - 1
        ends[k] = (e * 146097 + (ye * 365 + floor(ye / 4) - floor(ye / 100) + dy) - 719468) * 86400000
      end
      startMs = ends[1]
      endMs = ends[3]
    end
    periodDay, periodReset, periodStart, periodEnd = day, qReset, startMs, endMs
    local used = 0
    local raw = qGroup[3][qIndex]
    if raw then
      local s, c = sunpack('<dd', raw)
      if s == startMs then used = c end
    end
    local remaining = qLimit - used
    if allowedAll then
      if used + cost <= qLimit then
        remaining = remaining - cost
        qState = spack('<dd', startMs, used + cost)
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
      local o = (i - 1) * 9
      local st, ttl = L[o + 8], L[o + 9]
      if L[o + 1] == 4 then
        -- The sliding log's list: trimming to the last dropped entry's pair leaves two slots to
        -- overwrite with the header [sum, newest].
        local key = L[o + 6]
        local exists, dropped, sum, t, mode, c = st[1], st[2], st[3], st[4], st[5], st[6]
        if mode == 0 then
          -- A cost-0 read adds nothing: drop what left the window, or the list once it is empty.
          if ttl < 1 then
            if exists then call('DEL', key) end
          elseif dropped > 0 then
            call('LTRIM', key, 2 * dropped, -1)
            call('LSET', key, 0, fmt('%d', sum))
            call('LSET', key, 1, fmt('%d', t))
          end
        else
          local sumText, tText = fmt('%d', sum), fmt('%d', t)
          if not exists then
            call('RPUSH', key, sumText, tText, tText, fmt('%d', c))
          else
            if dropped > 0 then
              call('LTRIM', key, 2 * dropped, -1)
              call('LSET', key, 1, tText)
            elseif mode == 1 then
              call('LSET', key, 1, tText)
            end
            call('LSET', key, 0, sumText)
            if mode == 2 then call('LSET', key, -1, fmt('%d', c)) else call('RPUSH', key, tText, fmt('%d', c)) end
          end
          call('PEXPIRE', key, fmt('%d', ttl + pad))
        end
      else
        put(L[o + 6], L[o + 7], st, ttl)
      end
    end
    if qState then put(qGroup, qIndex, qState, qTtl) end
    for h = 1, nh do
      local g = groups[h]
      local key, s, ns = g[1], g[6], g[7]
      if g[5] then
        if not s then s = {false, false}; g[6] = s end
        s[ns + 1] = 'x'; s[ns + 2] = spack('<d', g[4])
        ns = ns + 2
      end
      if ns > 0 then call('HSET', key, unpack(s, 1, ns)) end
      if g[8] then call('HDEL', key, unpack(g[8])) end
      -- %d: Redis would print a large number as 1e+17, not an integer.
      if g[5] then call('PEXPIRE', key, fmt('%d', g[4] - now + pad)) end
    end
    meter('valid')
  else
    -- Nothing was charged, so limits that would have admitted report their uncharged room
    -- (a shaped one conservatively 0), exactly as memory-store.ts does.
    for i = 1, n do
      local r = 2 + qOut + (i - 1) * 5
      if out[r + 1] == 1 then
        if out[r + 5] > 0 then out[r + 2] = 0 else out[r + 2] = out[r + 2] + cost end
      end
    end
    if code == 1 then meter('rateLimited') else meter('quotaExceeded') end
  end
  local f = replyFormats[outLen]
  if not f then
    f = '<' .. string.rep('d', outLen)
    replyFormats[outLen] = f
  end
  return spack(f, unpack(out, 1, outLen))
end

-- The requests one after another; each header gives its length, so a request that fails midway
-- (say a key of the wrong type) answers {-1, message} and the next one is still read and decided:
-- a batch shares one EVALSHA, not one fate.
local replies = {}
local start, total, r = 1, #args, 0
while start <= total do
  local len, cost, n, qLimit, qReset, qKey
  len, cost, n, now, pad, qLimit, qReset, qKey, pos = sunpack('<dddddddd', args, start)
  -- A length that does not move past the header would loop forever: the whole call fails instead.
  if not (len >= 64) then return redis.error_reply('ERR check script: bad request length ' .. tostring(len)) end
  requestEnd = start + len
  r = r + 1
  local ok, reply = pcall(decide, cost, n, qLimit, qReset, qKey)
  if ok then
    replies[r] = reply
  else
    if type(reply) == 'table' then reply = reply.err end
    replies[r] = {-1, tostring(reply)}
  end
  start = requestEnd
end
for bucket, m in pairs(meters) do
  for field, by in pairs(m[3]) do
    -- The first count of a field is the only write that can create the bucket: set TTL and index then.
    if call('HINCRBY', bucket, field, by) == by then
      call('PEXPIRE', bucket, 172800000)
      call('ZADD', m[1] .. 'buckets', m[2], m[2])
      call('PEXPIRE', m[1] .. 'buckets', 172800000)
    end
  end
end
return replies
`;
