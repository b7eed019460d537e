-- wrk script of the MCP serving benchmark: every request is one `tools/call`, and every answer
-- is checked (status 200, a JSON-RPC result that is not a tool error, and the tool's answer in
-- it). A failed check counts as an error in the summary (and the first few are printed).
--
-- Environment: MCP_TOOL (`add` or `echo`), MCP_ECHO_BYTES (the echo's length, default 10240),
-- MCP_SESSION (a session id from `initialize`, for stateful servers; empty for stateless),
-- MCP_PROTOCOL (the MCP-Protocol-Version header, default 2025-06-18).
local tool = os.getenv("MCP_TOOL") or "add"
local echo_bytes = tonumber(os.getenv("MCP_ECHO_BYTES") or "10240")
local session = os.getenv("MCP_SESSION") or ""
local protocol = os.getenv("MCP_PROTOCOL") or "2025-06-18"

local arguments, expected
if tool == "echo" then
  -- Letters only, so that the text reads back byte for byte in JSON.
  local text = string.rep("abcdefghijklmnopqrstuvwxyz", math.ceil(echo_bytes / 26)):sub(1, echo_bytes)
  arguments = '{"text":"' .. text .. '"}'
  expected = '"' .. text .. '"'
else
  arguments = '{"a":2,"b":3}'
  expected = '"text":"5"'
end

wrk.method = "POST"
-- Each request has an id of its own: JSON-RPC forbids reusing an id while it is in flight in a
-- session, and rmcp ends a request's cancellation token when it answers "its" id, so 64
-- connections all sending id 1 in one session cancelled each other's calls (a server that
-- watches the token, as phi-agent's does, answered "cancelled"; one that ignores it did not).
local body_head = '{"jsonrpc":"2.0","id":'
local body_tail = ',"method":"tools/call","params":{"name":"' .. tool .. '","arguments":' ..
  arguments .. '}}'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["MCP-Protocol-Version"] = protocol
if session ~= "" then
  wrk.headers["Mcp-Session-Id"] = session
end

local threads = {}

local thread_count = 0

function setup(thread)
  table.insert(threads, thread)
  -- Each thread numbers its requests from a base of its own (set here, in the main state).
  thread_count = thread_count + 1
  thread:set("id_base", thread_count * 1000000000)
end

function init(args)
  bad = 0
  printed = 0
  sent = 0
end

function request()
  sent = sent + 1
  return wrk.format(nil, nil, nil, body_head .. (id_base + sent) .. body_tail)
end

function response(status, headers, body)
  local ok = status == 200
    and body:find('"result"', 1, true) ~= nil
    and body:find('"isError":true', 1, true) == nil
    and body:find(expected, 1, true) ~= nil
  if not ok then
    bad = bad + 1
    if printed < 3 then
      printed = printed + 1
      io.stderr:write(string.format("bad answer (status %d): %s\n", status, body:sub(1, 300)))
    end
  end
end

function done(summary, latency, requests)
  local failed = 0
  for _, thread in ipairs(threads) do
    failed = failed + (thread:get("bad") or 0)
  end
  local errors = summary.errors
  -- A non-200 status is a bad answer already (checked above), so `errors.status` is not added.
  local transport = errors.connect + errors.read + errors.write + errors.timeout
  -- One line the benchmark script reads: requests, seconds, p50 and p99 in microseconds, errors.
  io.write(string.format("RESULT requests=%d seconds=%.3f p50_us=%d p99_us=%d bad_answers=%d transport_errors=%d\n",
    summary.requests, summary.duration / 1e6, latency:percentile(50), latency:percentile(99),
    failed, transport))
end
