-- wrk: GET one path with a Range of LENGTH bytes at a random offset of a file of SIZE bytes.
-- Arguments after `--`: PATH SIZE LENGTH (benches/uploads.sh passes /objects/<sha256> or the
-- same file's path on nginx).
local count = 0
function setup(thread)
    count = count + 1
    thread:set("seed", count)
end

local path, size, length
function init(args)
    math.randomseed(seed or 1)
    path = args[1]
    size = tonumber(args[2])
    length = tonumber(args[3])
end

function request()
    local start = math.random(0, size - length)
    return wrk.format("GET", path, { ["Range"] = "bytes=" .. start .. "-" .. (start + length - 1) })
end
