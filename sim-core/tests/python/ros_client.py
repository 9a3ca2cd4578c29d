"""An rmw_zenoh-style ROS 2 client written with eclipse-zenoh and rosbags only (no ROS, no
simcore code): it finds simcore through its liveliness tokens, checks keys, hashes and
attachments, and decodes messages.

    ros_client.py ENDPOINT topic TYPE COUNT    print COUNT messages of the first TYPE publisher
    ros_client.py ENDPOINT drive SECONDS X      publish Twist(linear.x = X) to the cmd_vel
                                                 subscription for SECONDS
    ros_client.py ENDPOINT router - -           a Zenoh router listening on ENDPOINT (as
                                                 rmw_zenohd), until stdin closes

One JSON object is printed on stdout; problems exit non-zero with a message on stderr.
"""

import json
import struct
import sys
import threading
import time

import zenoh
from rosbags.typesys import Stores, get_typestore

TS = get_typestore(Stores.ROS2_JAZZY)
TIMEOUT = 30.0


def fail(msg):
    print(msg, file=sys.stderr)
    sys.exit(1)


def dds_name(ros_type):
    pkg, kind, name = ros_type.split("/")
    return f"{pkg}::{kind}::dds_::{name}_"


def session(endpoint):
    conf = zenoh.Config()
    conf.insert_json5("mode", '"peer"')
    conf.insert_json5("connect/endpoints", json.dumps([endpoint]))
    conf.insert_json5("listen/endpoints", '["tcp/127.0.0.1:0"]')
    conf.insert_json5("scouting/multicast/enabled", "false")
    return zenoh.open(conf)


class Graph:
    """The ROS graph as rmw_zenoh builds it: the liveliness tokens under @ros2_lv."""

    def __init__(self, s):
        self.tokens = []
        self.cond = threading.Condition()
        self.sub = s.liveliness().declare_subscriber("@ros2_lv/0/**", self.on, history=True)

    def on(self, sample):
        if sample.kind == zenoh.SampleKind.PUT:
            with self.cond:
                self.tokens.append(str(sample.key_expr))
                self.cond.notify_all()

    def wait_for(self, pred):
        deadline = time.time() + TIMEOUT
        with self.cond:
            while True:
                for t in self.tokens:
                    parts = t.split("/")
                    if pred(parts):
                        return t, parts
                left = deadline - time.time()
                if left <= 0:
                    fail(f"no matching token; tokens seen: {self.tokens}")
                self.cond.wait(left)


def endpoint_token(graph, kind, ros_type):
    # @ros2_lv/<domain>/<zid>/<nid>/<eid>/<kind>/<enclave>/<ns>/<node>/<topic>/<type>/<hash>/<qos>
    token, parts = graph.wait_for(
        lambda p: len(p) == 13 and p[5] == kind and p[10] == dds_name(ros_type)
    )
    zid, nid = parts[2], parts[3]
    node = f"@ros2_lv/0/{zid}/{nid}/{nid}/NN/%/%/simcore"
    graph.wait_for(lambda p: "/".join(p) == node)
    expected = TS.hash_rihs01(ros_type)
    if parts[11] != expected:
        fail(f"token hash {parts[11]} is not rosbags' {expected}")
    topic = parts[9].replace("%", "/")
    return token, topic, parts[11], parts[12]


def plain(v):
    """A rosbags message as JSON-able data."""
    if hasattr(v, "__dataclass_fields__"):
        return {k: plain(getattr(v, k)) for k in v.__dataclass_fields__ if k != "__msgtype__"}
    if hasattr(v, "tolist"):
        return plain(v.tolist())
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    if isinstance(v, float) and v != v:
        return "nan"
    if isinstance(v, float) and v in (float("inf"), float("-inf")):
        return "inf" if v > 0 else "-inf"
    return v


def topic(endpoint, ros_type, count):
    s = session(endpoint)
    graph = Graph(s)
    token, name, hash_, qos = endpoint_token(graph, "MP", ros_type)
    key = f"0/{name.strip('/')}/{dds_name(ros_type)}/{hash_}"
    got = []
    cond = threading.Condition()

    def on(sample):
        with cond:
            if len(got) < count:
                att = sample.attachment.to_bytes() if sample.attachment is not None else None
                got.append((str(sample.key_expr), sample.payload.to_bytes(), att))
                cond.notify_all()

    sub = s.declare_subscriber(key, on)
    deadline = time.time() + TIMEOUT
    with cond:
        while len(got) < count:
            left = deadline - time.time()
            if left <= 0:
                fail(f"{len(got)} of {count} messages on {key}")
            cond.wait(left)
    messages = []
    for k, payload, att in got:
        if k != key:
            fail(f"sample on {k}, subscribed {key}")
        if att is None or len(att) != 33 or att[16] != 16:
            fail(f"attachment {att!r} is not rmw_zenoh's")
        seq, stamp_ns = struct.unpack("<qq", att[:16])
        msg = TS.deserialize_cdr(payload, ros_type)
        if bytes(TS.serialize_cdr(msg, ros_type)) != payload:
            fail("rosbags re-serialises the message to other bytes")
        messages.append(
            {"seq": seq, "source_ns": stamp_ns, "gid": att[17:].hex(), "header": payload[:4].hex(),
             "message": plain(msg)}
        )
    sub.undeclare()
    s.close()
    print(json.dumps({"token": token, "topic": name, "key": key, "qos": qos, "messages": messages}))


def drive(endpoint, seconds, x):
    ros_type = "geometry_msgs/msg/Twist"
    s = session(endpoint)
    graph = Graph(s)
    token, name, hash_, _ = endpoint_token(graph, "MS", ros_type)
    key = f"0/{name.strip('/')}/{dds_name(ros_type)}/{hash_}"
    pub = s.declare_publisher(key)
    Vector3 = TS.types["geometry_msgs/msg/Vector3"]
    Twist = TS.types[ros_type]
    payload = bytes(TS.serialize_cdr(
        Twist(linear=Vector3(x=x, y=0.0, z=0.0), angular=Vector3(x=0.0, y=0.0, z=0.0)), ros_type
    ))
    gid = bytes(range(16))
    sent = 0
    end = time.time() + seconds
    while time.time() < end:
        sent += 1
        att = struct.pack("<qqB", sent, time.time_ns(), 16) + gid
        pub.put(payload, attachment=att)
        # Garbage on the same key must be dropped by simcore with a warning, not stop it.
        pub.put(b"\x00\x01\x00\x00garbage", attachment=att)
        time.sleep(0.05)
    pub.undeclare()
    s.close()
    print(json.dumps({"token": token, "topic": name, "key": key, "sent": sent}))


def router(endpoint):
    conf = zenoh.Config()
    conf.insert_json5("mode", '"router"')
    conf.insert_json5("listen/endpoints", json.dumps([endpoint]))
    conf.insert_json5("scouting/multicast/enabled", "false")
    s = zenoh.open(conf)
    print("ready", flush=True)
    sys.stdin.read()
    s.close()


def main():
    if len(sys.argv) != 5:
        fail(__doc__)
    endpoint, mode = sys.argv[1], sys.argv[2]
    if mode == "topic":
        topic(endpoint, sys.argv[3], int(sys.argv[4]))
    elif mode == "router":
        router(endpoint)
    elif mode == "drive":
        drive(endpoint, float(sys.argv[3]), float(sys.argv[4]))
    else:
        fail(__doc__)


if __name__ == "__main__":
    main()
