-- Pay later offers of random stored transactions (see lookup.lua).
local count

function init(args)
  count = tonumber(args[1])
  math.randomseed(os.time() + tonumber(tostring({}):match("0x(%x+)") or "0", 16) % 1000)
end

function request()
  local id = math.random(0, count - 1)
  return wrk.format("GET", string.format("/order/paylater/v1/12-%017d/offers", id))
end
