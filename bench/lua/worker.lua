-- One worker per wrk thread (run with -t N -c N): claim the next task, complete it, again.
-- QD_KEYS holds one API key per worker, comma-separated; QD_QUEUE the queue's path.
local threads = {}
local counter = 0

function setup(thread)
  counter = counter + 1
  local keys = {}
  for key in string.gmatch(os.getenv("QD_KEYS") or "", "[^,]+") do table.insert(keys, key) end
  thread:set("key", keys[((counter - 1) % #keys) + 1])
  thread:set("queue", os.getenv("QD_QUEUE"))
  table.insert(threads, thread)
end

function init(args)
  task = nil
  completed, claimed, empty, failed = 0, 0, 0, 0
  auth = "Token " .. key
end

function request()
  if task then
    return wrk.format("POST", queue .. "/tasks/" .. task .. "/complete",
      {["Authorization"] = auth, ["Content-Type"] = "application/json"}, '{"data": {"category": "red"}}')
  end
  return wrk.format("POST", queue .. "/tasks/next", {["Authorization"] = auth}, "")
end

function response(status, headers, body)
  if task then
    if status == 200 then completed = completed + 1 else failed = failed + 1 end
    task = nil
  elseif status == 200 then
    claimed = claimed + 1
    task = string.match(body, '"id":(%d+)')
  elseif status == 204 then
    empty = empty + 1
  else
    failed = failed + 1
  end
end

function done(summary, latency, requests)
  local totals = {completed = 0, claimed = 0, empty = 0, failed = 0}
  for _, thread in ipairs(threads) do
    for name, _ in pairs(totals) do totals[name] = totals[name] + (thread:get(name) or 0) end
  end
  io.write(string.format("WORKER completed=%d claimed=%d empty=%d failed=%d\n",
    totals.completed, totals.claimed, totals.empty, totals.failed))
end
