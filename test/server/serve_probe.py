#!/usr/bin/env python3
"""Hostile HTTP clients for test/server/serve_hardening_test.sh.

Each subcommand probes one limit of `cvmfs_server serve` on 127.0.0.1:PORT,
prints what it measured (one `key=value` per line) and exits 0 when the
server behaved as required, 1 (with a reason on stderr) when it did not.

  flood PORT PATH CONNECTIONS TRICKLE HEADER_TIMEOUT
      From 127.0.0.1 open CONNECTIONS connections and keep TRICKLE of those
      the server kept sending one header byte every 0.5 s (the rest stay
      silent). Meanwhile a client from 127.0.0.2 must get PATH (200) within
      2 s, and every trickling connection must be closed by the server within
      HEADER_TIMEOUT + 2 s although it never stops sending.
  upload PORT PATH METHOD
      METHOD with "Content-Length: 200 MB", of which 1 MB is sent: the 405
      (with Allow: GET, HEAD) must come within 2 s and the server must close
      the connection without waiting for the rest.
  raw PORT REQUEST_TARGET
      GET REQUEST_TARGET (e.g. absolute-form); prints status= and body_sha256=.
"""

import hashlib
import resource
import select
import socket
import sys
import time


def connect(port, source="127.0.0.1"):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind((source, 0))
    s.settimeout(5)
    s.connect(("127.0.0.1", port))
    return s


def readable(s, timeout):
    """poll(2), not select(2): the flood uses descriptors beyond 1024."""
    p = select.poll()
    p.register(s, select.POLLIN)
    return bool(p.poll(max(0, timeout) * 1000))


def read_response(s, timeout):
    """(status, headers dict, body, closed): until the server closes or the
    body announced by Content-Length is complete, at most `timeout` s."""
    data = b""
    deadline = time.monotonic() + timeout
    closed = False
    while time.monotonic() < deadline:
        if not readable(s, deadline - time.monotonic()):
            break
        try:
            chunk = s.recv(65536)
        except ConnectionResetError:
            closed = True
            break
        if not chunk:
            closed = True
            break
        data += chunk
        head, sep, body = data.partition(b"\r\n\r\n")
        if sep:
            for line in head.split(b"\r\n")[1:]:
                if line.lower().startswith(b"content-length:"):
                    if len(body) >= int(line.split(b":")[1]):
                        deadline = min(deadline, time.monotonic() + 0.5)
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1]) if lines[0].startswith("HTTP/") else 0
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return status, headers, body, closed


def still_open(s):
    """False once the server has closed (or reset) the connection."""
    if not readable(s, 0):
        return True
    try:
        return s.recv(4096, socket.MSG_DONTWAIT) != b""
    except BlockingIOError:
        return True
    except OSError:
        return False


def fail(reason):
    print(reason, file=sys.stderr)
    sys.exit(1)


def flood(port, path, connections, trickle, header_timeout):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = min(hard, connections + 100)
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    socks = []
    for _ in range(connections):
        try:
            socks.append(connect(port))
        except OSError as e:
            fail("connection %d from 127.0.0.1 failed: %s" % (len(socks), e))
    start = time.monotonic()
    request = b"GET " + path.encode() + b" HTTP/1.1\r\nHost: x\r\nX-Slow: "
    time.sleep(0.3)  # the server closes what is over its limits
    kept = [s for s in socks if still_open(s)]
    print("connections_opened=%d" % len(socks))
    print("connections_kept=%d" % len(kept))
    slow = kept[:trickle]
    if len(slow) < trickle:
        fail("only %d connections kept, wanted %d to trickle" %
             (len(kept), trickle))
    sent = 0
    closed_at = {}
    other_checked = False
    while len(closed_at) < len(slow):
        elapsed = time.monotonic() - start
        if elapsed > header_timeout + 2:
            fail("%d trickling connections still open after %.1f s" %
                 (len(slow) - len(closed_at), elapsed))
        for i, s in enumerate(slow):
            if i in closed_at:
                continue
            byte = request[sent:sent + 1] if sent < len(request) else b"a"
            try:
                s.send(byte)
                if not still_open(s):
                    closed_at[i] = elapsed
            except OSError:
                closed_at[i] = elapsed
        sent += 1
        if not other_checked:
            other_checked = True
            t0 = time.monotonic()
            other = connect(port, "127.0.0.2")
            other.sendall(b"GET " + path.encode() +
                          b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            status, _, _, _ = read_response(other, 2)
            other.close()
            took = time.monotonic() - t0
            print("other_address_status=%d" % status)
            print("other_address_seconds=%.2f" % took)
            if status != 200 or took > 2:
                fail("client from 127.0.0.2 got %d after %.2f s" % (status, took))
        time.sleep(0.5)
    print("bytes_trickled=%d" % sent)
    print("trickling_closed_after_max=%.1f" % max(closed_at.values()))
    for s in socks:
        s.close()


def upload(port, path, method):
    s = connect(port)
    length = 200 * 1024 * 1024
    s.sendall(("%s %s HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n" %
               (method, path, length)).encode())
    t0 = time.monotonic()
    try:
        s.sendall(b"x" * (1024 * 1024))
    except OSError:
        pass  # the server may already have answered and closed
    status, headers, _, closed = read_response(s, 2)
    took = time.monotonic() - t0
    print("status=%d" % status)
    print("seconds=%.2f" % took)
    print("allow=%s" % headers.get("allow", ""))
    if status != 405 or headers.get("allow") != "GET, HEAD":
        fail("%s answered %d (allow %r)" % (method, status, headers.get("allow")))
    if not closed:
        s.settimeout(2)
        try:
            closed = s.recv(1) == b""
        except socket.timeout:
            closed = False
        except OSError:
            closed = True
    if not closed:
        fail("the connection stayed open after the 405")


def raw(port, target):
    s = connect(port)
    s.sendall(("GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" %
               target).encode())
    status, _, body, _ = read_response(s, 5)
    print("status=%d" % status)
    print("body_sha256=%s" % hashlib.sha256(body).hexdigest())


def main(argv):
    cmd, port = argv[1], int(argv[2])
    if cmd == "flood":
        flood(port, argv[3], int(argv[4]), int(argv[5]), float(argv[6]))
    elif cmd == "upload":
        upload(port, argv[3], argv[4])
    elif cmd == "raw":
        raw(port, argv[3])
    else:
        fail("unknown command " + cmd)


if __name__ == "__main__":
    main(sys.argv)
