"""A Foxglove WebSocket client (subprotocol foxglove.sdk.v1) that drives a paused simcore run
through the run-control services its server advertises, and prints, as one JSON object, the
server's capabilities, the services advertised and the reply to each call in order (`ok`: the
JSON reply, or `error`: the failure's message).

    foxglove_control.py URL
"""

import asyncio
import json
import struct
import sys

import websockets


class Client:
    def __init__(self, ws):
        self.ws = ws
        self.services = {}
        self.capabilities = []
        self.next_call = 1
        self.replies = {}

    async def handshake(self):
        while "/step_simulation" not in self.services:
            frame = await asyncio.wait_for(self.ws.recv(), timeout=30)
            if isinstance(frame, str):
                msg = json.loads(frame)
                if msg["op"] == "serverInfo":
                    self.capabilities = msg["capabilities"]
                elif msg["op"] == "advertiseServices":
                    for s in msg["services"]:
                        self.services[s["name"]] = s

    async def send(self, name, request):
        """Sends a call without waiting for its reply; returns its call id."""
        service = self.services[name]["id"]
        call = self.next_call
        self.next_call += 1
        payload = json.dumps(request).encode()
        encoding = b"json"
        frame = struct.pack("<BIII", 0x02, service, call, len(encoding)) + encoding + payload
        await self.ws.send(frame)
        return call

    async def reply(self, call):
        """The reply to `call`, keeping the others that arrive first."""
        while call not in self.replies:
            frame = await asyncio.wait_for(self.ws.recv(), timeout=60)
            if isinstance(frame, str):
                msg = json.loads(frame)
                if msg["op"] == "serviceCallFailure":
                    self.replies[msg["callId"]] = {"error": msg["message"]}
            elif frame[0] == 0x03:  # service call response
                _, got, n = struct.unpack_from("<III", frame, 1)
                self.replies[got] = {"ok": json.loads(frame[13 + n:])}
        return self.replies.pop(call)

    async def call(self, name, request):
        return await self.reply(await self.send(name, request))


async def main(url):
    out = {"replies": []}
    async with websockets.connect(url, subprotocols=["foxglove.sdk.v1"], max_size=None) as ws:
        c = Client(ws)
        await c.handshake()
        out["capabilities"] = c.capabilities
        out["services"] = sorted(c.services)
        out["request_schemas"] = {
            n: s.get("request", {}).get("schemaEncoding") for n, s in c.services.items()
        }

        async def call(name, request):
            out["replies"].append(await c.call(name, request))

        await call("/get_simulation_state", {})
        await call("/step_simulation", {"steps": 25})
        await call("/step_simulation", {"steps": -1})
        await call("/set_simulation_state", {"state": "playing"})
        await call("/step_simulation", {"steps": 1})
        await asyncio.sleep(0.3)
        await call("/set_simulation_state", {"state": "paused"})
        await asyncio.sleep(0.2)
        await call("/get_simulation_state", {})
        await call("/reset_simulation", {"scope": "all"})
        # More steps than anyone waits for: quitting still ends the run, and the step call
        # is refused.
        steps = await c.send("/step_simulation", {"steps": 10**15})
        await asyncio.sleep(0.2)
        await call("/set_simulation_state", {"state": "quitting"})
        out["replies"].append(await c.reply(steps))
    print(json.dumps(out))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
