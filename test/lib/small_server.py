#!/usr/bin/env python3
"""A small, constrained web server: python's own http.server as a site might
run it, to see how a client treats a server with little room.

    small_server.py DIRECTORY PORT_FILE [BACKLOG]

Serves DIRECTORY on a free port of 127.0.0.1 (written to PORT_FILE once it
accepts connections) with HTTP/1.0, so every request is a connection of its
own, one thread per connection, and a listen backlog of BACKLOG (5, the
default of socketserver and of `python3 -m http.server`): connections
beyond it that arrive before the server accepts them are dropped by the
kernel, and the client's SYN is retransmitted after a second. No logging.
Runs until SIGTERM.
"""
import functools
import http.server
import os
import signal
import sys


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit("usage: small_server.py DIRECTORY PORT_FILE [BACKLOG]")
    directory, port_file = sys.argv[1], sys.argv[2]
    backlog = int(sys.argv[3]) if len(sys.argv) == 4 else 5
    if not os.path.isdir(directory):
        sys.exit(f"small_server.py: {directory} is not a directory")

    class Handler(http.server.SimpleHTTPRequestHandler):
        protocol_version = "HTTP/1.0"

        def log_message(self, *args):
            pass

    class Server(http.server.ThreadingHTTPServer):
        request_queue_size = backlog
        daemon_threads = True

    server = Server(("127.0.0.1", 0),
                    functools.partial(Handler, directory=directory))
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    tmp = port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write(f"{server.server_address[1]}\n")
    os.rename(tmp, port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
