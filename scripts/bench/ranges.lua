-- wrk script: GET random byte ranges of one file, the same sequence for every peer.
--   wrk ... URL -- FILE_SIZE [RANGE_SIZE=65536] [SEED=1] [aligned|unaligned]
-- Each thread seeds its own generator with SEED and its number, so two runs with the same
-- arguments and thread count ask for the same ranges in the same order.
local count = 0

function setup(thread)
  count = count + 1
  thread:set("id", count)
end

function init(args)
  size = tonumber(args[1])
  len = tonumber(args[2] or 65536)
  aligned = (args[4] == "aligned")
  math.randomseed(tonumber(args[3] or 1) * 1000 + id)
end

function request()
  local start
  if aligned then
    start = math.random(0, math.floor(size / len) - 1) * len
  else
    start = math.random(0, size - len)
  end
  return wrk.format("GET", nil, { ["Range"] = "bytes=" .. start .. "-" .. (start + len - 1) })
end
