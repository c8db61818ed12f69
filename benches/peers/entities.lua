-- wrk: GET /v1/entities/{id} for ids drawn at random from the file given after `--`.
local count = 0
function setup(thread)
    count = count + 1
    thread:set("seed", count)
end

local ids = {}
function init(args)
    math.randomseed(seed or 1)
    for line in io.lines(args[1]) do
        ids[#ids + 1] = line
    end
end

function request()
    return wrk.format("GET", "/v1/entities/" .. ids[math.random(#ids)])
end
