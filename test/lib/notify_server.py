#!/usr/bin/env python3
"""A notification server for the tests, speaking the protocol of CVMFS's
repository gateway (doc/notifications.md), until our gateway serves it.

    notify_server.py PORT [--timeout SECONDS]

Listens on 127.0.0.1:PORT under /api/v1:
  POST /api/v1/notifications/publish    body: an activity message (JSON);
       it is relayed as it is to the subscribers of its "repository";
       answer {"status":"ok"}
  GET  /api/v1/notifications/subscribe  body {"version":1,"repository":R};
       answer 200 text/event-stream, then "data: <message>\\n\\n" per
       message published for R, until --timeout seconds pass (then a plain
       {"status":"timeout"}, as the gateway does after 2 hours)
Nothing is verified here: the subscribers verify the manifest.
Prints "ready" on stdout once listening; one line per request on stderr.
"""
import argparse
import json
import queue
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PREFIX = "/api/v1/notifications/"
subscribers = {}  # repository -> set of queues
lock = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout_s = 7200.0

    def log_message(self, fmt, *args):
        sys.stderr.write("notify_server: " + (fmt % args) + "\n")

    def body(self):
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n > 0 else b""

    def reply_json(self, code, obj):
        data = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def request_json(self):
        try:
            return json.loads(self.body() or b"null")
        except ValueError:
            return None

    def do_POST(self):
        if self.path != PREFIX + "publish":
            return self.reply_json(404, {"status": "error", "reason": "no such endpoint"})
        raw = self.body()
        try:
            msg = json.loads(raw)
            repo = msg["repository"]
        except (ValueError, KeyError, TypeError):
            return self.reply_json(400, {"status": "error", "reason": "invalid request body"})
        with lock:
            queues = list(subscribers.get(repo, ()))
        for q in queues:
            q.put(raw.decode())
        self.reply_json(200, {"status": "ok"})

    def do_GET(self):
        if self.path != PREFIX + "subscribe":
            return self.reply_json(404, {"status": "error", "reason": "no such endpoint"})
        req = self.request_json()
        if not isinstance(req, dict) or not isinstance(req.get("repository"), str):
            return self.reply_json(400, {"status": "error", "reason": "invalid request body"})
        repo = req["repository"]
        q = queue.Queue()
        with lock:
            subscribers.setdefault(repo, set()).add(q)
        try:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.flush()
            while True:
                try:
                    msg = q.get(timeout=self.timeout_s)
                except queue.Empty:
                    self.wfile.write(b'{"status":"timeout"}')
                    break
                self.wfile.write(("data: " + msg + "\n\n").encode())
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass
        finally:
            with lock:
                subscribers[repo].discard(q)
            self.close_connection = True


def main():
    p = argparse.ArgumentParser()
    p.add_argument("port", type=int)
    p.add_argument("--timeout", type=float, default=7200.0)
    a = p.parse_args()
    Handler.timeout_s = a.timeout
    server = ThreadingHTTPServer(("127.0.0.1", a.port), Handler)
    server.daemon_threads = True
    print("ready", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
