-- wrk script: GET the public agent card.
local threads = {}

function setup(thread) table.insert(threads, thread) end

function init(args) errors = 0 end

function request() return wrk.format("GET", "/.well-known/agent-card.json") end

function response(status, headers, body)
  if status ~= 200 then errors = errors + 1 end
end

function done(summary, latency, requests)
  local e = 0
  for _, t in ipairs(threads) do e = e + t:get("errors") end
  io.write(string.format("LOAD requests=%d errors=%d\n", summary.requests, e))
end
