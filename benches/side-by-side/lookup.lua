-- Transaction status lookups of random stored ids (12-00000000000000000
-- upwards), as `run` stores them. Argument: how many are stored.
-- The bearer token comes with `-H`, the same for the sandbox and Prism.
local count

function init(args)
  count = tonumber(args[1])
  math.randomseed(os.time() + tonumber(tostring({}):match("0x(%x+)") or "0", 16) % 1000)
end

function request()
  local id = math.random(0, count - 1)
  return wrk.format("GET", string.format("/transaction/status/v2/transactions/12-%017d", id))
end
