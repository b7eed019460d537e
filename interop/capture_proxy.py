"""A loopback HTTP proxy that records every exchange between our adapters and a fake
server (fakellm, or fake_apis.py for the Responses API and Gemini).

Each POST is forwarded unchanged to the upstream server; the request body, status and response
body are appended as one JSON line to the capture file, so that validate.py checks exactly the
bytes that went over the wire. A streamed answer (`text/event-stream`) is recorded as its list of
server-sent events (`response_events`: each event's name and its data, parsed when JSON), and
as the text it came as (`response_sse`), and passed on as it came.

Usage: capture_proxy.py LISTEN_PORT UPSTREAM_URL CAPTURE_FILE
"""

import json
import sys
import threading
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LISTEN_PORT = int(sys.argv[1])
UPSTREAM = sys.argv[2].rstrip("/")
CAPTURE = sys.argv[3]
LOCK = threading.Lock()
# Headers that must not be recorded: they carry the (fake) keys.
SECRET_HEADERS = {"authorization", "x-api-key", "x-goog-api-key"}


def sse_events(text):
    """The events of a server-sent event stream: `{"event": name or None, "data": ...}` each,
    the data parsed as JSON when it is JSON (OpenAI's closing `[DONE]` stays text)."""
    events = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        name, data = None, []
        for line in block.split("\n"):
            if line.startswith("event:"):
                name = line[len("event:"):].strip()
            elif line.startswith("data:"):
                data.append(line[len("data:"):].removeprefix(" "))
        if not data:
            continue
        joined = "\n".join(data)
        try:
            parsed = json.loads(joined)
        except ValueError:
            parsed = joined
        events.append({"event": name, "data": parsed})
    return events


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):  # noqa: N802 (the stdlib's naming)
        length = int(self.headers.get("content-length", "0"))
        body = self.rfile.read(length)
        forward = urllib.request.Request(UPSTREAM + self.path, data=body, method="POST")
        for name, value in self.headers.items():
            if name.lower() not in {"host", "content-length", "connection"}:
                forward.add_header(name, value)
        content_type = "application/json"
        try:
            with urllib.request.urlopen(forward, timeout=30) as upstream:
                status, payload = upstream.status, upstream.read()
                content_type = upstream.headers.get("content-type", content_type)
        except urllib.error.HTTPError as error:
            status, payload = error.code, error.read()
        streamed = content_type.startswith("text/event-stream")
        record = {
            "path": self.path,
            "headers": sorted(n.lower() for n in self.headers.keys()),
            "secret_headers_present": sorted(
                n.lower() for n in self.headers.keys() if n.lower() in SECRET_HEADERS
            ),
            "request": json.loads(body),
            "status": status,
        }
        if streamed:
            record["response_events"] = sse_events(payload.decode("utf-8"))
            # The bytes as sent, for the SDKs' own stream accumulators (accumulate.py).
            record["response_sse"] = payload.decode("utf-8")
        else:
            record["response"] = json.loads(payload)
        with LOCK, open(CAPTURE, "a", encoding="utf-8") as out:
            out.write(json.dumps(record) + "\n")
        self.send_response(status)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args):
        pass


ThreadingHTTPServer(("127.0.0.1", LISTEN_PORT), Handler).serve_forever()
