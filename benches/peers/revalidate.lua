-- wrk: GET /v1/entities/{id} with the item's own ETag in If-None-Match, for lines `id<TAB>etag`
-- drawn at random from the file given after `--`; every answer should be 304.
local count = 0
function setup(thread)
    count = count + 1
    thread:set("seed", count)
end

local items = {}
function init(args)
    math.randomseed(seed or 1)
    for line in io.lines(args[1]) do
        local id, etag = line:match("^(%S+)\t(.+)$")
        items[#items + 1] = { "/v1/entities/" .. id, { ["If-None-Match"] = etag } }
    end
end

function request()
    local item = items[math.random(#items)]
    return wrk.format("GET", item[1], item[2])
end
