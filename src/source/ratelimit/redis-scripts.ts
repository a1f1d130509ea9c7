/**
 * The fixed-window model of `fixed-window.ts`, in Lua, so that each operation is one atomic script
 * run against Redis's own clock (`TIME`): every replica sees the same time and the same bucket.
 * Hash fields: we = window end ms, rem = tokens left, lim = learned limit, bu = blocked until ms,
 * wms = window length ms. Keep these rules in step with `fixed-window.ts`; the contract suite
 * (test/integration/ratelimit) runs both.
 */
const PRELUDE = `
-- A clock given as the script's last argument (tests stepping time) replaces Redis's.
local function now_ms(given)
  if given then return tonumber(given) end
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function load(key, wms)
  local v = redis.call('HMGET', key, 'we', 'rem', 'lim', 'bu', 'wms')
  return { we = tonumber(v[1]) or 0, rem = tonumber(v[2]) or 0, lim = tonumber(v[3]),
           bu = tonumber(v[4]) or 0, wms = wms or tonumber(v[5]) or 0 }
end
local function guard_for(wms, max_guard)
  return math.max(0, math.min(max_guard, math.floor(wms / 10)))
end
local function advance(s, limit, now, guard)
  if now < s.we + guard then return end
  local skipped = math.floor((now - guard - s.we) / s.wms) + 1
  s.we = s.we + skipped * s.wms
  s.rem = s.lim or limit
end
-- Keep in step with clampState: no stored block or window end outlives the wait cap.
local function clamp(s, now, maxwait)
  s.bu = math.min(s.bu, now + maxwait)
  s.we = math.min(s.we, now + math.max(maxwait, 2 * s.wms))
end
local function save(key, s, now)
  -- One HSET (every take runs this): the learned limit goes with the rest when there is one.
  if s.lim then
    redis.call('HSET', key, 'we', string.format('%d', s.we), 'rem', string.format('%d', s.rem),
      'bu', string.format('%d', s.bu), 'wms', string.format('%d', s.wms), 'lim', string.format('%d', s.lim))
  else
    redis.call('HSET', key, 'we', string.format('%d', s.we), 'rem', string.format('%d', s.rem),
      'bu', string.format('%d', s.bu), 'wms', string.format('%d', s.wms))
  end
  -- Idle keys go once their window and block are over: a fresh state then means the same (full window).
  redis.call('PEXPIRE', key, math.max(s.we, s.bu) - now + s.wms + 1000)
end
`;

/**
 * KEYS[1] bucket; ARGV limit, windowMs, maxGuardMs, maxWaitMs, count, [now] → { tokens granted (up to
 * count, 0 when none), waitMs } and, when granted, the bucket after the take: window end, tokens
 * left, learned limit (-1 when none), and the milliseconds left to spend them (on Redis's clock,
 * so a worker whose clock differs still spends them in their window).
 */
export const TAKE_LUA = `${PRELUDE}
local now = now_ms(ARGV[6])
local limit, wms = tonumber(ARGV[1]), tonumber(ARGV[2])
local guard = guard_for(wms, tonumber(ARGV[3]))
local s = load(KEYS[1], wms)
clamp(s, now, tonumber(ARGV[4]))
if s.bu > now then
  save(KEYS[1], s, now)
  return { 0, s.bu - now }
end
advance(s, limit, now, guard)
if s.rem <= 0 or now >= s.we - guard then
  save(KEYS[1], s, now)
  return { 0, s.we + guard - now }
end
local got = math.min(math.max(1, tonumber(ARGV[5]) or 1), s.rem)
s.rem = s.rem - got
save(KEYS[1], s, now)
return { got, 0, s.we, s.rem, s.lim or -1, s.we - guard - now }
`;

/**
 * KEYS[1] bucket; ARGV limit, windowMs, maxGuardMs, info.limit, info.remaining, info.resetAtMs,
 * maxWaitMs, [now] → the bucket after it: window end, tokens left, learned limit (-1 when none), blocked
 * until (0 when not blocked now).
 */
export const OBSERVE_LUA = `${PRELUDE}
local now = now_ms(ARGV[8])
local limit, wms = tonumber(ARGV[1]), tonumber(ARGV[2])
local guard = guard_for(wms, tonumber(ARGV[3]))
local info_limit, info_remaining, info_reset = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local s = load(KEYS[1], wms)
if info_limit > 0 then s.lim = info_limit end
advance(s, limit, now, guard)
if now < info_reset + guard then
  local tolerance = wms / 2
  if info_reset > s.we + tolerance then
    s.we = info_reset
    s.rem = math.max(0, info_remaining)
  elseif info_reset >= s.we - tolerance then
    s.we = info_reset
    s.rem = math.max(0, math.min(s.rem, info_remaining))
  end
end
clamp(s, now, tonumber(ARGV[7]))
save(KEYS[1], s, now)
return { s.we, s.rem, s.lim or -1, s.bu > now and s.bu or 0 }
`;

/** KEYS[1] bucket; ARGV untilMs, maxGuardMs, maxWaitMs, [now]. */
export const BLOCK_LUA = `${PRELUDE}
local now = now_ms(ARGV[4])
local s = load(KEYS[1], nil)
if s.we > 0 and s.wms > 0 then advance(s, 0, now, guard_for(s.wms, tonumber(ARGV[2]))) end
s.rem = 0
s.bu = math.max(s.bu, tonumber(ARGV[1]))
if s.wms == 0 then s.wms = 1000 end
clamp(s, now, tonumber(ARGV[3]))
save(KEYS[1], s, now)
return 1
`;

/** KEYS[1] bucket; ARGV limit, windowMs, maxGuardMs, maxWaitMs, [now] → { limit, remaining, resetAtMs, blockedUntilMs, now }. */
export const INSPECT_LUA = `${PRELUDE}
local now = now_ms(ARGV[5])
local limit, wms = tonumber(ARGV[1]), tonumber(ARGV[2])
local s = load(KEYS[1], wms)
clamp(s, now, tonumber(ARGV[4]))
advance(s, limit, now, guard_for(wms, tonumber(ARGV[3])))
return { s.lim or limit, s.rem, s.we, s.bu, now }
`;
