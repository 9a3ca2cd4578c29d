"""Foxglove clients that stop reading, over plain TCP sockets (no WebSocket library, so that
nothing reads on their behalf). Each client prints one line on stdout once it is in place,
then holds its connection without reading until it is killed.

    foxglove_stuck_client.py URL MODE

MODE:
- `subscribe`: completes the handshake (subprotocol foxglove.sdk.v1), subscribes to every
  channel advertised within two seconds, then never reads again;
- `silent`: opens the TCP connection and never sends a byte;
- `half`: sends half of the HTTP upgrade request and nothing more.
"""

import base64
import json
import os
import socket
import struct
import sys
import time
from urllib.parse import urlparse


def connect(url):
    u = urlparse(url)
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    # A small receive window, so that the server's send buffer fills soon.
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect((u.hostname, u.port))
    return s, u


def request(u):
    key = base64.b64encode(os.urandom(16)).decode()
    return (
        f"GET / HTTP/1.1\r\nHost: {u.hostname}:{u.port}\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
        "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: foxglove.sdk.v1\r\n\r\n"
    ).encode()


def read_exact(s, n):
    buf = b""
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            raise EOFError("connection closed")
        buf += chunk
    return buf


def read_frame(s):
    b0, b1 = read_exact(s, 2)
    n = b1 & 0x7F
    if n == 126:
        n = struct.unpack(">H", read_exact(s, 2))[0]
    elif n == 127:
        n = struct.unpack(">Q", read_exact(s, 8))[0]
    return b0 & 0x0F, read_exact(s, n)


def send_text(s, text):
    data = text.encode()
    mask = os.urandom(4)
    head = bytes([0x81])
    if len(data) < 126:
        head += bytes([0x80 | len(data)])
    elif len(data) < 65536:
        head += bytes([0x80 | 126]) + struct.pack(">H", len(data))
    else:
        head += bytes([0x80 | 127]) + struct.pack(">Q", len(data))
    s.sendall(head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))


def subscribe(url):
    s, u = connect(url)
    s.sendall(request(u))
    response = b""
    while b"\r\n\r\n" not in response:
        response += read_exact(s, 1)
    assert response.startswith(b"HTTP/1.1 101"), response
    channels = set()
    s.settimeout(0.2)
    deadline = time.monotonic() + 2
    while time.monotonic() < deadline:
        try:
            op, data = read_frame(s)
        except socket.timeout:
            continue
        if op == 1:
            msg = json.loads(data)
            if msg.get("op") == "advertise":
                ids = [c["id"] for c in msg["channels"]]
                channels.update(ids)
                send_text(s, json.dumps({
                    "op": "subscribe",
                    "subscriptions": [{"id": i, "channelId": i} for i in ids],
                }))
    s.settimeout(None)
    print(f"subscribed {len(channels)}", flush=True)
    return s


def main(url, mode):
    if mode == "subscribe":
        s = subscribe(url)
    elif mode == "silent":
        s, _ = connect(url)
        print("connected", flush=True)
    elif mode == "half":
        s, u = connect(url)
        r = request(u)
        s.sendall(r[: len(r) // 2])
        print("half sent", flush=True)
    else:
        raise SystemExit(f"unknown mode {mode}")
    while True:
        time.sleep(3600)
    s.close()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
