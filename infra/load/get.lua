-- wrk script: tasks/get of one task (TASK_ID).
local threads = {}

function setup(thread) table.insert(threads, thread) end

function init(args)
  errors = 0
  body = string.format('{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"%s"}}', os.getenv("TASK_ID"))
end

function request()
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
