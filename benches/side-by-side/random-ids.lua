-- GETs of random stored transactions (ids 12-00000000000000000 upwards, as
-- `run` stores them). Arguments: how many are stored, and the path with
-- `%s` where the id goes. The bearer token comes with `-H`, the same for
-- the sandbox and Prism.
local count
local path

function init(args)
  count = tonumber(args[1])
  path = args[2]
  math.randomseed(os.time() + tonumber(tostring({}):match("0x(%x+)") or "0", 16) % 1000)
end

function request()
  local id = string.format("12-%017d", math.random(0, count - 1))
  return wrk.format("GET", string.format(path, id))
end
