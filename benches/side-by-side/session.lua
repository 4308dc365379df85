-- Session creations: POSTs the body in the file named by the first
-- argument (the same bytes to the sandbox and to Prism). The headers are
-- the command line's (-H): wrk.format with a header table would send only
-- that table's.
local body

function init(args)
  local file = assert(io.open(args[1], "rb"))
  body = file:read("*a")
  file:close()
end

function request()
  return wrk.format("POST", "/pps/api/v1/session", nil, body)
end
