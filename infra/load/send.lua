-- wrk script: blocking message/send with a fresh messageId per request.
-- Counts JSON-RPC errors (HTTP 200 with an "error" member) so a run that
-- only measured failures is caught.
local threads = {}

function setup(thread)
  thread:set("tid", #threads + 1)
  table.insert(threads, thread)
end

function init(args)
  n = 0
  errors = 0
  blocking = os.getenv("BLOCKING") or "true"
end

function request()
  n = n + 1
  local body = string.format(
    '{"jsonrpc":"2.0","id":%d,"method":"message/send","params":{"message":{"role":"user","messageId":"load-%s-%d-%d","parts":[{"kind":"text","text":"hello"}]},"configuration":{"blocking":%s}}}',
    n, os.getenv("RUN_ID") or "0", tid, n, blocking)
  return wrk.format("POST", "/", {["Content-Type"] = "application/json"}, body)
end

function response(status, headers, body)
  if status ~= 200 or string.find(body, '"error"', 1, true) then
    errors = errors + 1
  end
end

function done(summary, latency, requests)
  local e = 0
  for _, t in ipairs(threads) do e = e + t:get("errors") end
  io.write(string.format("LOAD requests=%d errors=%d\n", summary.requests, e))
end
