-- wrk script: GET a list of paths in turn (each thread starting at its own place).
--   wrk ... BASE_URL -- PATHS_LUA   (a Lua file that returns a table of paths)
local count = 0

function setup(thread)
  count = count + 1
  thread:set("id", count)
end

function init(args)
  paths = dofile(args[1])
  i = ((id - 1) * 97) % #paths
end

function request()
  i = i % #paths + 1
  return wrk.format("GET", paths[i])
end
