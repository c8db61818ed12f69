-- wrk: what `entities.lua` and `revalidate.lua` share. Each wrk thread sends requests drawn at
-- random from a file of them, and the run's rate is counted over the seconds every thread was
-- sending, printed by `done` as `Steady requests/sec:` (the line `benches/run` reads).
--
-- Why not wrk's own `Requests/sec`: wrk runs each thread's `init` in its main thread, one thread
-- after another, starting each thread as soon as its `init` returns, and starts its clock only
-- once every thread has started. Building a million requests took a thread's `init` about two
-- seconds, so the first thread ran alone that long uncounted by the clock but counted in the
-- requests, and `Requests/sec` came out 1.3-1.4x the rate the server saw (its own access log, second
-- by second; BENCHMARKS.md, "wrk's staggered start"). So nothing heavy runs in `init`: each thread
-- builds its requests in its own first `request` call, the threads building at once, and each
-- counts what it sends in every wall-clock second.
--
-- Requests are still built once, not one a call: a new string made for every request, with a
-- million ids held, stalled wrk's thread for 50-300 ms at a time (BENCHMARKS.md, "wrk's own
-- stalls"). The price is memory: about 165 bytes an id in each thread.
local steady = {}

-- `make(line, host)` turns one line of the file into one whole HTTP request.
function steady.install(make)
    local threads = {}
    local count = 0
    function setup(thread)
        count = count + 1
        thread:set("seed", count)
        threads[count] = thread
    end

    local file
    function init(args)
        file = args[1]
        math.randomseed(seed or 1)
    end

    local requests, n
    -- `request` calls before the list was built.
    local calls = 0
    local second, sent = 0, 0
    -- Read back by `done` through `thread:get`: requests sent in each whole second.
    sent_per_second = {}

    -- As `wrk.format` names the host (wrk fills these in after the script is loaded).
    local function host()
        return wrk.headers["Host"] or wrk.host
    end

    local function build()
        local host = host()
        requests, n = {}, 0
        for line in io.lines(file) do
            n = n + 1
            requests[n] = make(line, host)
        end
    end

    function request()
        if requests == nil then
            calls = calls + 1
            -- wrk calls the first thread's `request` once from its main thread, before starting
            -- any, to see how many requests one call gives: answer that call with one request
            -- made on the spot, so the main thread does not build the first thread's list.
            if calls == 1 then
                return make(io.lines(file)(), host())
            end
            build()
        end
        local now = os.time()
        if now ~= second then
            if sent > 0 then
                sent_per_second[second] = sent
            end
            second, sent = now, 0
        end
        sent = sent + 1
        return requests[math.random(n)]
    end

    function done(summary, latency, requests_stats)
        -- The seconds every thread sent through: after the last thread's first (partial) second
        -- and up to the first thread's last recorded one (a thread's last, partial second is
        -- never recorded).
        local from, to = nil, nil
        local per_thread = {}
        for i, thread in ipairs(threads) do
            local seconds = thread:get("sent_per_second")
            local first, last = nil, nil
            for s, _ in pairs(seconds) do
                if first == nil or s < first then first = s end
                if last == nil or s > last then last = s end
            end
            if first == nil then
                io.write("Steady requests/sec: none (a thread sent nothing in a whole second)\n")
                return
            end
            per_thread[i] = seconds
            if from == nil or first + 1 > from then from = first + 1 end
            if to == nil or last < to then to = last end
        end
        if to < from then
            io.write("Steady requests/sec: none (no second with every thread sending)\n")
            return
        end
        local total = 0
        for _, seconds in ipairs(per_thread) do
            for s = from, to do
                total = total + (seconds[s] or 0)
            end
        end
        local span = to - from + 1
        io.write(string.format("Steady requests/sec: %.2f over %d s\n", total / span, span))
    end
end

return steady
