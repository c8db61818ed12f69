-- wrk: GET /v1/entities/{id} for ids drawn at random from the file given after `--`.
--
-- Every request is built once, in `init`, and `request` hands back one of them: building the
-- path for each request made a new Lua string each time, and with a million ids held, LuaJIT's
-- string table kept growing and rehashing, stalling this thread for 50-300 ms at a time. Those
-- stalls were the p99 of catalog and nginx alike (BENCHMARKS.md, "wrk's own stalls"). The
-- price is memory: about 165 bytes an id in each wrk thread (330 MB for 1,000,000 ids and two
-- threads, 3.3 GB at 10,000,000).
local count = 0
function setup(thread)
    count = count + 1
    thread:set("seed", count)
end

local requests = {}
function init(args)
    math.randomseed(seed or 1)
    for line in io.lines(args[1]) do
        requests[#requests + 1] = wrk.format("GET", "/v1/entities/" .. line)
    end
end

function request()
    return requests[math.random(#requests)]
end
