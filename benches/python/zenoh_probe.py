"""The out-of-process Zenoh client of the transport benchmarks (eclipse-zenoh only).

    zenoh_probe.py sub LISTEN KEYEXPR...        listen on LISTEN, subscribe to each KEYEXPR,
                                                print "ready", collect until stdin closes,
                                                then print one JSON object: per sample key,
                                                the latencies (receive wall time minus the
                                                attachment's source time, ns), the header
                                                stamps (ns) and the payload size
    zenoh_probe.py count LISTEN KEYEXPR...      as sub, but each sample only counted (what a
                                                client that keeps up costs at the least);
                                                prints, per KEYEXPR, {"count": N}
    zenoh_probe.py pub CONNECT KEY:BYTES:HZ:N...  connect to CONNECT and put N payloads of
                                                BYTES bytes on KEY at HZ (one thread per key),
                                                each with an rmw_zenoh-style attachment whose
                                                source time is taken just before the put

Problems exit non-zero with a message on stderr.
"""

import json
import struct
import sys
import threading
import time

import zenoh


def session(listen=None, connect=None):
    conf = zenoh.Config()
    conf.insert_json5("mode", '"peer"')
    conf.insert_json5("scouting/multicast/enabled", "false")
    conf.insert_json5("listen/endpoints", json.dumps([listen or "tcp/127.0.0.1:0"]))
    if connect:
        conf.insert_json5("connect/endpoints", json.dumps([connect]))
    return zenoh.open(conf)


def sub(listen, keys):
    s = session(listen=listen)
    got = {}
    lock = threading.Lock()

    def on(sample):
        now = time.time_ns()
        att = sample.attachment.to_bytes() if sample.attachment is not None else b""
        payload = sample.payload.to_bytes()
        source = struct.unpack("<q", att[8:16])[0] if len(att) >= 16 else 0
        stamp = 0
        if len(payload) >= 12:
            sec, nsec = struct.unpack("<iI", payload[4:12])
            stamp = sec * 1_000_000_000 + nsec
        with lock:
            e = got.setdefault(str(sample.key_expr), {"lat_ns": [], "stamps_ns": [], "bytes": 0})
            e["lat_ns"].append(now - source)
            e["stamps_ns"].append(stamp)
            e["bytes"] = len(payload)

    subs = [s.declare_subscriber(k, on) for k in keys]
    print("ready", flush=True)
    sys.stdin.read()
    for x in subs:
        x.undeclare()
    with lock:
        print(json.dumps(got))
    s.close()


def count(listen, keys):
    s = session(listen=listen)
    counts = [0] * len(keys)

    def counter(i):
        def on(_sample):
            counts[i] += 1

        return on

    subs = [s.declare_subscriber(k, counter(i)) for i, k in enumerate(keys)]
    print("ready", flush=True)
    sys.stdin.read()
    for x in subs:
        x.undeclare()
    print(json.dumps({k: {"count": counts[i]} for i, k in enumerate(keys)}))
    s.close()


def pub(connect, specs):
    s = session(connect=connect)
    # Let the subscriber's declarations arrive before the first put.
    time.sleep(1.0)

    def run(key, size, hz, n):
        p = s.declare_publisher(key)
        payload = bytes(size)
        period = 1.0 / hz
        start = time.monotonic()
        for seq in range(1, n + 1):
            wait = start + seq * period - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            att = struct.pack("<qqB", seq, time.time_ns(), 16) + bytes(16)
            p.put(payload, attachment=att)
        p.undeclare()

    threads = []
    for spec in specs:
        key, size, hz, n = spec.rsplit(":", 3)
        t = threading.Thread(target=run, args=(key, int(size), float(hz), int(n)))
        t.start()
        threads.append(t)
    for t in threads:
        t.join()
    time.sleep(0.5)
    s.close()
    print("done", flush=True)


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("sub", "count", "pub"):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    if sys.argv[1] == "sub":
        sub(sys.argv[2], sys.argv[3:])
    elif sys.argv[1] == "count":
        count(sys.argv[2], sys.argv[3:])
    else:
        pub(sys.argv[2], sys.argv[3:])


if __name__ == "__main__":
    main()
