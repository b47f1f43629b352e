-- wrk script of infra/load/run.sh. LOAD names the request it sends:
--   send: blocking message/send with a fresh messageId per request (BLOCKING
--         may say false; RUN_ID keeps the ids of separate runs apart);
--   get:  tasks/get of one task (TASK_ID);
--   card: GET of the public agent card.
-- Counts the failed answers (a status other than 200 or, for JSON-RPC, an
-- HTTP 200 with an "error" member) so a run that only measured failures is
-- caught.
local threads = {}

function setup(thread)
  thread:set("tid", #threads + 1)
  table.insert(threads, thread)
end

local function post(payload)
  return wrk.format("POST", "/", {["Content-Type"] = "application/json"}, payload)
end

local builders = {
  send = function()
    n = n + 1
    return post(string.format(
      '{"jsonrpc":"2.0","id":%d,"method":"message/send","params":{"message":{"role":"user","messageId":"load-%s-%d-%d","parts":[{"kind":"text","text":"hello"}]},"configuration":{"blocking":%s}}}',
      n, os.getenv("RUN_ID") or "0", tid, n, blocking))
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
  blocking = os.getenv("BLOCKING") or "true"
  get_body = string.format('{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"%s"}}', os.getenv("TASK_ID") or "")
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
end
