-- wrk: GET /v1/entities/{id} for ids drawn at random from the file given after `--`, one a line.
-- How the requests are built and the rate counted: `steady.lua`, beside this file.
local here = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
dofile(here .. "steady.lua").install(function(id, host)
    return "GET /v1/entities/" .. id .. " HTTP/1.1\r\nHost: " .. host .. "\r\n\r\n"
end)
