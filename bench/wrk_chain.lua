-- wrk script: chains Lineup's single-use tokens.
-- Each connection starts with one pre-authenticated token (a line of the tokens file). Every answer's
-- "token" goes into this thread's pool and the next request takes one from it, so at most one request
-- holds a token. An answer without a token (a failure before the token check) loses one: the next
-- request then authenticates again, and is counted as such, never as a measured call.
-- Latency percentiles are wrk's own histogram (with its correction for coordinated omission).
-- Arguments after `--`: tokens_file body_file path auth_body_file tokens_per_thread

local threads = {}
local counter = 0

function setup(thread)
  thread:set("id", counter)
  counter = counter + 1
  table.insert(threads, thread)
end

local function read(file_name)
  local file = assert(io.open(file_name, "rb"))
  local text = file:read("*a")
  file:close()
  return text
end

function init(args)
  local tokens = {}
  for token in read(args[1]):gmatch("[^\n]+") do
    table.insert(tokens, token)
  end
  call_body = read(args[2])
  call_path = args[3]
  auth_body = read(args[4])
  local per_thread = tonumber(args[5])
  pool = {}
  for index = id * per_thread + 1, (id + 1) * per_thread do
    table.insert(pool, tokens[index])
  end
  ok, failed, reauth = 0, 0, 0
end

local verified = false

function request()
  -- wrk calls request() once in thread 0 to check the script before the run and never sends that one:
  -- it must not take a token.
  if id == 0 and not verified then
    verified = true
    return wrk.format("POST", call_path, {["Content-Type"] = "application/json", ["token"] = "check"}, call_body)
  end
  local token = table.remove(pool)
  if token == nil then
    reauth = reauth + 1
    return wrk.format("POST", "/authenticate", {["Content-Type"] = "application/json"}, auth_body)
  end
  return wrk.format("POST", call_path, {["Content-Type"] = "application/json", ["token"] = token}, call_body)
end

function response(status, headers, body)
  local token = body:match('"token"%s*:%s*"([^"]+)"')
  if token then
    table.insert(pool, token)
  end
  if body:match('"msg":%s*"Successfully Authenticate"') then
    return -- a re-authentication, not a measured call
  end
  if body:match('"msg_code"%s*:%s*"RESTAPI000"') then
    ok = ok + 1
  else
    failed = failed + 1
  end
end

function done(summary, latency, requests)
  local ok_total, failed_total, reauth_total = 0, 0, 0
  for _, thread in ipairs(threads) do
    ok_total = ok_total + thread:get("ok")
    failed_total = failed_total + thread:get("failed")
    reauth_total = reauth_total + thread:get("reauth")
  end
  local e = summary.errors
  io.write(string.format(
    'BENCH_RESULT {"requests":%.0f,"duration_us":%.0f,"p50_us":%.0f,"p99_us":%.0f,"max_us":%.0f,'
      .. '"ok":%.0f,"failed":%.0f,"reauth":%.0f,"socket_errors":%.0f,"timeouts":%.0f}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), latency.max,
    ok_total, failed_total, reauth_total, e.connect + e.read + e.write + e.status, e.timeout))
end
