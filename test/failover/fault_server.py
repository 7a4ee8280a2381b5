#!/usr/bin/env python3
"""A broken "Stratum 1" for the failover tests: answers every GET the same way.

    fault_server.py MODE PORT_FILE LOG_FILE

MODE
  500      HTTP 500 Internal Server Error (a failing origin or a broken CGI)
  captive  HTTP 200, Content-Type text/html, "<html>login</html>" for every
           URL (a captive portal or a misconfigured web server)

It listens on a free port of 127.0.0.1, writes the port to PORT_FILE once it
accepts connections, and appends one line per request to LOG_FILE:
    <status> <path> "<Pragma header or ->"
Keep-alive (HTTP/1.1 with Content-Length) as a real server does, so the
client's connection reuse is exercised too. Runs until SIGTERM.
"""
import http.server
import os
import signal
import sys
import threading

BODIES = {
    "500": (500, "text/html", b"<html><body>Internal Server Error</body></html>\n"),
    "captive": (200, "text/html", b"<html>login</html>\n"),
}


def make_handler(mode, log_file):
    status, content_type, body = BODIES[mode]
    lock = threading.Lock()

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self):
            with lock, open(log_file, "a") as log:
                pragma = self.headers.get("Pragma") or "-"
                log.write('%d %s "%s"\n' % (status, self.path, pragma))
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass  # the request log above is the one the tests read

    return Handler


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in BODIES:
        sys.exit("usage: fault_server.py {%s} PORT_FILE LOG_FILE" % "|".join(BODIES))
    mode, port_file, log_file = sys.argv[1:]
    open(log_file, "a").close()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), make_handler(mode, log_file))
    server.daemon_threads = True
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    tmp = port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % server.server_address[1])
    os.rename(tmp, port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
