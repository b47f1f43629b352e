-- wrk script of infra/load/run.sh and `make bench-peers`. LOAD names the
-- request it sends:
--   send: blocking message/send with a fresh messageId per request (BLOCKING
--         may say false; RUN_ID keeps the ids of separate runs apart);
--   get:  tasks/get of one task (TASK_ID);
--   card: GET of the public agent card.
-- A2A_VERSION=1.0 sends the A2A 1.0 JSON-RPC methods (SendMessage, GetTask)
-- with the A2A-Version header; unset, the A2A 0.3 ones.
-- Counts the failed answers (a status other than 200 or, for JSON-RPC, an
-- HTTP 200 with an "error" member) so a run that only measured failures is
-- caught, and prints the latency's median and 99th percentile.
local threads = {}

function setup(thread)
  thread:set("tid", #threads + 1)
  table.insert(threads, thread)
end

local function post(payload)
  return wrk.format("POST", "/", headers, payload)
end

-- The JSON-RPC bodies of each version: send's takes the request id, the
-- messageId and the blocking flag; get's is fixed.
local bodies = {
  ["0.3"] = {
    send = '{"jsonrpc":"2.0","id":%d,"method":"message/send","params":{"message":{"role":"user","messageId":"%s","parts":[{"kind":"text","text":"hello"}]},"configuration":{"blocking":%s}}}',
    get = '{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"%s"}}',
  },
  ["1.0"] = {
    send = '{"jsonrpc":"2.0","id":%d,"method":"SendMessage","params":{"message":{"role":"ROLE_USER","messageId":"%s","parts":[{"text":"hello"}]},"configuration":{"returnImmediately":%s}}}',
    get = '{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"%s"}}',
  },
}

local builders = {
  send = function()
    n = n + 1
    local id = string.format("load-%s-%d-%d", os.getenv("RUN_ID") or "0", tid, n)
    return post(string.format(wirebodies.send, n, id, blockflag))
  end,
  get = function() return post(get_body) end,
  card = function() return wrk.format("GET", "/.well-known/agent-card.json") end,
}

function init(args)
  n = 0
  errors = 0
  kind = os.getenv("LOAD") or "send"
  build = builders[kind]
  if build == nil then error("LOAD is send, get or card, not " .. kind) end
  local version = os.getenv("A2A_VERSION") or "0.3"
  wirebodies = bodies[version]
  if wirebodies == nil then error("A2A_VERSION is 0.3 or 1.0, not " .. version) end
  headers = {["Content-Type"] = "application/json"}
  local blocking = os.getenv("BLOCKING") or "true"
  blockflag = blocking
  if version == "1.0" then
    headers["A2A-Version"] = "1.0"
    blockflag = (blocking == "true") and "false" or "true" -- returnImmediately
  end
  get_body = string.format(wirebodies.get, os.getenv("TASK_ID") or "")
end

-- wrk decides from the functions a script defines when it loads whether
-- requests are built per call, so request is defined here, not in init.
function request() return build() end

function response(status, headers, body)
  if status ~= 200 or (kind ~= "card" and string.find(body, '"error"', 1, true)) then
    errors = errors + 1
  end
end

function done(summary, latency, requests)
  local e = 0
  for _, t in ipairs(threads) do e = e + t:get("errors") end
  io.write(string.format("LOAD requests=%d errors=%d\n", summary.requests, e))
  io.write(string.format("LATENCY p50_us=%d p99_us=%d\n", latency:percentile(50), latency:percentile(99)))
end
