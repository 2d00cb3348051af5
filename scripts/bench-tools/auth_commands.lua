-- wrk script of scripts/bench (n): POSTs search/text commands round-robin over the sessions in VMHOST_IDS
-- (comma-separated), and prints the request count, the non-200 answers and the latency p99 in µs.
local ids = {}
for id in string.gmatch(os.getenv("VMHOST_IDS"), "[^,]+") do ids[#ids + 1] = id end
local n = 0
local bad = 0

init = function(args)
  wrk.headers["Content-Type"] = "application/json"
end

request = function()
  n = n + 1
  local id = ids[(n % #ids) + 1]
  return wrk.format("POST", "/v1/sessions/" .. id .. "/search/text", nil, '{"text":"kittens ' .. (n % 1000) .. '"}')
end

response = function(status, headers, body)
  if status ~= 200 then bad = bad + 1 end
end

done = function(summary, latency, requests)
  io.write(string.format("requests: %d\nnon200: %d\np99_us: %d\n", summary.requests, bad, latency:percentile(99)))
end
