"""A Foxglove WebSocket client (subprotocol foxglove.sdk.v1): subscribes to TOPIC on a running
simcore and prints, as one JSON object, the server's name, the advertised channels, the
first COUNT messages of TOPIC (decoded with rosbags from the advertised ros2msg schema) and
the server times received.

    foxglove_client.py URL TOPIC COUNT
"""

import asyncio
import json
import struct
import sys

import websockets
from rosbags.typesys import Stores, get_typestore, get_types_from_msg


def plain(v):
    """A deserialised message as plain JSON values."""
    if hasattr(v, "__dataclass_fields__"):
        return {k: plain(getattr(v, k)) for k in v.__dataclass_fields__ if k != "__msgtype__"}
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    if hasattr(v, "tolist"):
        return v.tolist()
    return v


async def main(url, topic, count):
    out = {"channels": [], "messages": [], "times": []}
    async with websockets.connect(url, subprotocols=["foxglove.sdk.v1"], max_size=None) as ws:
        out["subprotocol"] = ws.subprotocol
        channel = None
        store = None
        while len(out["messages"]) < count:
            frame = await asyncio.wait_for(ws.recv(), timeout=30)
            if isinstance(frame, str):
                msg = json.loads(frame)
                if msg["op"] == "serverInfo":
                    out["server"] = msg["name"]
                elif msg["op"] == "advertise":
                    for c in msg["channels"]:
                        out["channels"].append(c["topic"])
                        if c["topic"] == topic and channel is None:
                            channel = c
                            store = get_typestore(Stores.EMPTY)
                            store.register(get_types_from_msg(c["schema"], c["schemaName"]))
                            await ws.send(json.dumps({
                                "op": "subscribe",
                                "subscriptions": [{"id": 1, "channelId": c["id"]}],
                            }))
                continue
            if frame[0] == 0x01:  # message data: subscription id, log time, payload
                sub, log_time = struct.unpack_from("<IQ", frame, 1)
                value = store.deserialize_cdr(frame[13:], channel["schemaName"])
                out["messages"].append({"subscription": sub, "log_time": log_time,
                                        "value": plain(value)})
            elif frame[0] == 0x02:  # time
                out["times"].append(struct.unpack_from("<Q", frame, 1)[0])
    print(json.dumps(out))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3])))
