-- wrk: GET /v1/entities/{id} with the item's own ETag in If-None-Match, for lines `id<TAB>etag`
-- drawn at random from the file given after `--`; every answer should be 304.
--
-- Requests are built once, in `init`, as `entities.lua`'s are (a string made per request
-- stalls wrk's thread).
local count = 0
function setup(thread)
    count = count + 1
    thread:set("seed", count)
end

local requests = {}
function init(args)
    math.randomseed(seed or 1)
    for line in io.lines(args[1]) do
        local id, etag = line:match("^(%S+)\t(.+)$")
        requests[#requests + 1] = wrk.format("GET", "/v1/entities/" .. id, { ["If-None-Match"] = etag })
    end
end

function request()
    return requests[math.random(#requests)]
end
