"""Three Foxglove clients (subprotocol foxglove.sdk.v1) subscribe, one after the other, to the
first channel whose topic contains TOPIC on a running simcore; then the first one leaves.
Prints one JSON object: for each client, the status messages it got and how many messages
of the channel it received before and after the first client left.

    foxglove_clients_budget.py URL TOPIC

The second and third clients subscribe once the first has received a message (the server
then knows the channel's message size), the third once the second has had a status message
(or 30 s); the first leaves once each of the others has had two
seconds since subscribing; the others read on until the second has had three messages, or
30 s.
"""

import asyncio
import json
import sys
import time

import websockets


class Client:
    def __init__(self, ws, topic):
        self.ws = ws
        self.topic = topic
        self.statuses = []
        self.before = 0
        self.after = 0
        self.first_left = False
        self.channel = None

    async def subscribe(self):
        deadline = time.monotonic() + 30
        while self.channel is None and time.monotonic() < deadline:
            await self.read(time.monotonic() + 0.1)
        await self.ws.send(json.dumps({
            "op": "subscribe",
            "subscriptions": [{"id": 1, "channelId": self.channel["id"]}],
        }))

    async def read(self, until):
        """Reads frames until the monotonic time `until`."""
        while time.monotonic() < until:
            try:
                frame = await asyncio.wait_for(self.ws.recv(), timeout=until - time.monotonic())
            except asyncio.TimeoutError:
                return
            if isinstance(frame, str):
                msg = json.loads(frame)
                if msg["op"] == "status":
                    self.statuses.append(msg)
                elif msg["op"] == "advertise" and self.channel is None:
                    for c in msg["channels"]:
                        if self.topic in c["topic"] and self.channel is None:
                            self.channel = c
            elif frame[0] == 0x01:
                if self.first_left:
                    self.after += 1
                else:
                    self.before += 1

    def report(self):
        return {"statuses": self.statuses, "before": self.before, "after": self.after,
                "topic": self.channel["topic"]}


async def main(url, topic):
    connect = lambda: websockets.connect(url, subprotocols=["foxglove.sdk.v1"], max_size=None)
    async with connect() as w0, connect() as w1, connect() as w2:
        clients = [Client(w, topic) for w in (w0, w1, w2)]
        await clients[0].subscribe()
        deadline = time.monotonic() + 60
        while clients[0].before == 0 and time.monotonic() < deadline:
            await clients[0].read(time.monotonic() + 0.1)
        # One after the other: each is answered (refused, here) before the next subscribes,
        # so that the server sees them subscribe in this order.
        for c in clients[1:]:
            await c.subscribe()
            deadline = time.monotonic() + 30
            while not c.statuses and time.monotonic() < deadline:
                await asyncio.gather(*(d.read(time.monotonic() + 0.1) for d in clients))
        until = time.monotonic() + 2
        await asyncio.gather(*(c.read(until) for c in clients))
        first = clients[0].report()
        await w0.close()
        for c in clients[1:]:
            c.first_left = True
        # Until the second has had three messages (or 30 s): the first's connection closes
        # once the server has sent what it had queued for it.
        deadline = time.monotonic() + 30
        while clients[1].after < 3 and time.monotonic() < deadline:
            until = time.monotonic() + 0.1
            await asyncio.gather(*(c.read(until) for c in clients[1:]))
        print(json.dumps([first] + [c.report() for c in clients[1:]]))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
