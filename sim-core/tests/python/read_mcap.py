"""Reads a simcore MCAP recording with two independent readers and prints what the Rust test
checks, as one JSON object.

    read_mcap.py FILE [TOPIC...]

- `mcap` + `mcap_ros2.decoder` (Foxglove's Python reader): header, statistics, metadata,
  channels; every message decoded (CDR channels by their ros2msg schema, JSON channels as
  JSON); the messages of each TOPIC; every `/scene` message; and, for each message of each
  TOPIC, the world pose of its header's frame_id resolved through `/tf` and `/tf_static`.
- `rosbags.highlevel.AnyReader` (what rosbag2 users have): every CDR message deserialised,
  counted per topic.
"""

import json
import sys
from pathlib import Path

from mcap.reader import make_reader
from mcap_ros2.decoder import DecoderFactory
from rosbags.highlevel import AnyReader


def plain(v):
    """A decoded ROS message as plain JSON values."""
    if isinstance(v, (bytes, bytearray)):
        return list(v)
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    if hasattr(v, "__slots__"):
        return {k: plain(getattr(v, k)) for k in v.__slots__}
    if isinstance(v, float) and v != v:
        return "nan"
    if v in (float("inf"), float("-inf")):
        return "inf" if v > 0 else "-inf"
    return v


def qmul(a, b):
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return (aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw,
            aw * bw - ax * bx - ay * by - az * bz)


def rotate(q, v):
    x, y, z, _ = qmul(qmul(q, (v[0], v[1], v[2], 0.0)), (-q[0], -q[1], -q[2], q[3]))
    return (x, y, z)


def compose(parent, child):
    """Pose `child` (in the frame of `parent`'s child) in `parent`'s frame."""
    (pp, pq), (cp, cq) = parent, child
    r = rotate(pq, cp)
    return ((pp[0] + r[0], pp[1] + r[1], pp[2] + r[2]), qmul(pq, cq))


def resolve(frame, tree):
    """The world pose of `frame` through `tree` (child -> (parent, pose)); None if the chain
    does not reach `world`."""
    pose = ((0.0, 0.0, 0.0), (0.0, 0.0, 0.0, 1.0))
    for _ in range(64):
        if frame == "world":
            return {"position": pose[0], "orientation": pose[1]}
        if frame not in tree:
            return None
        parent, p = tree[frame]
        pose = compose(p, pose)
        frame = parent
    return None


def mcap_side(path, topics):
    out = {"channels": [], "decoded": {}, "messages": {t: [] for t in topics}, "scene": [],
           "world_poses": {t: [] for t in topics}}
    with open(path, "rb") as f:
        reader = make_reader(f, decoder_factories=[DecoderFactory()])
        header = reader.get_header()
        summary = reader.get_summary()
        out["header"] = {"profile": header.profile, "library": header.library}
        st = summary.statistics
        out["statistics"] = {
            "message_count": st.message_count,
            "per_topic": {summary.channels[c].topic: n for c, n in st.channel_message_counts.items()},
        }
        for c in summary.channels.values():
            s = summary.schemas.get(c.schema_id)
            out["channels"].append({
                "topic": c.topic, "encoding": c.message_encoding, "metadata": dict(c.metadata),
                "schema": s.name if s else None, "schema_encoding": s.encoding if s else None,
            })
        out["metadata"] = {m.name: dict(m.metadata) for m in reader.iter_metadata()}
        tree = {}
        for schema, channel, message in reader.iter_messages(log_time_order=True):
            if channel.message_encoding == "cdr":
                value = plain(DecoderFactory().decoder_for("cdr", schema)(message.data))
            else:
                value = json.loads(message.data)
            topic = channel.topic
            out["decoded"][topic] = out["decoded"].get(topic, 0) + 1
            if topic in ("/tf", "/tf_static"):
                for t in value["transforms"]:
                    tr = t["transform"]
                    p = (tr["translation"]["x"], tr["translation"]["y"], tr["translation"]["z"])
                    r = tr["rotation"]
                    tree[t["child_frame_id"]] = (t["header"]["frame_id"], (p, (r["x"], r["y"], r["z"], r["w"])))
            elif topic == "/scene":
                out["scene"].append({"log_time": message.log_time, "markers": value["markers"]})
            if topic in out["messages"]:
                out["messages"][topic].append(
                    {"value": value, "log_time": message.log_time, "sequence": message.sequence})
                frame = value.get("header", {}).get("frame_id") if isinstance(value, dict) else None
                out["world_poses"][topic].append(resolve(frame, tree) if frame else None)
    return out


def rosbags_side(path):
    counts = {}
    with AnyReader([Path(path)]) as reader:
        cdr = [c for c in reader.connections if c.ext.serialization_format == "cdr"]
        for connection, _, raw in reader.messages(connections=cdr):
            reader.deserialize(raw, connection.msgtype)
            counts[connection.topic] = counts.get(connection.topic, 0) + 1
    return counts


def main():
    path, topics = sys.argv[1], sys.argv[2:]
    result = mcap_side(path, topics)
    result["rosbags"] = rosbags_side(path)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
