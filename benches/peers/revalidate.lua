-- wrk: GET /v1/entities/{id} with the item's own ETag in If-None-Match, for lines `id<TAB>etag`
-- drawn at random from the file given after `--`; every answer should be 304.
-- How the requests are built and the rate counted: `steady.lua`, beside this file.
local here = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
dofile(here .. "steady.lua").install(function(line, host)
    local id, etag = line:match("^(%S+)\t(.+)$")
    return "GET /v1/entities/" .. id .. " HTTP/1.1\r\nHost: " .. host .. "\r\nIf-None-Match: "
        .. etag .. "\r\n\r\n"
end)
