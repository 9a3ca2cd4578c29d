"""An rmw_zenoh-style ROS 2 client written with eclipse-zenoh and rosbags only (no ROS, no
simcore code): it finds simcore through its liveliness tokens, checks keys, hashes and
attachments, and decodes messages.

    ros_client.py ENDPOINT topic TYPE COUNT    print COUNT messages of the first TYPE publisher
                                                 (TYPE@NAME: of the one on topic NAME)
    ros_client.py ENDPOINT drive SECONDS X      publish Twist(linear.x = X) to the cmd_vel
                                                 subscription for SECONDS
    ros_client.py ENDPOINT entities IMU SDF     with the pioneer world paused: GetEntities and
                                                 its filters, Get/SetEntityState, spawning
                                                 SDF, ResetSimulation's scopes, and the IMU's
                                                 messages of 100 steps before and after a reset
    ros_client.py ENDPOINT latched WAIT -       join WAIT seconds after /tf_static's token and
                                                 read it as a TRANSIENT_LOCAL subscriber (and
                                                 as a plain one, which gets nothing)
    ros_client.py ENDPOINT subscriptions WAIT - the MS tokens of simcore's node after WAIT
                                                 seconds (topic, type, hash checked)
    ros_client.py ENDPOINT stepped N -          with the world paused: the Imu and LaserScan
                                                 bytes of StepSimulation(N), then quit
    ros_client.py ENDPOINT router - -           a Zenoh router listening on ENDPOINT (as
                                                 rmw_zenohd), until stdin closes
    ros_client.py ENDPOINT spawn SDF_FILE -       spawn the model of SDF_FILE twice (by text),
                                                 a broken one, and delete by name
    ros_client.py ENDPOINT rolling SDF_FILE -     with the pioneer world paused, as a client of
                                                 simulation_interfaces 2.x: SpawnEntity with a
                                                 Resource, SetEntityState's set_* flags, then
                                                 quit the run
    ros_client.py ENDPOINT lockstep TOPIC N     with the world paused: listen to /clock and the
                                                 Imu TOPIC, call StepSimulation(N) twice and
                                                 count what came before each reply, then the
                                                 state services, then quit the run
    ros_client.py ENDPOINT quit_stepping - -     with the world paused: StepSimulation of 10^15
                                                 steps from one client, SetSimulationState
                                                 QUITTING from another while they are taken
    ros_client.py ENDPOINT tf_stepped N -       with the world paused: listen to /tf, call
                                                 StepSimulation(N) twice and give the
                                                 transforms of the messages sent before each
                                                 reply, then quit the run
    ros_client.py ENDPOINT malformed SRV N      send N malformed requests to the service SRV
                                                 (empty, cut, garbage, a string longer than
                                                 the request), many in flight; count the
                                                 error replies
    ros_client.py LISTEN tf_listen - -          listen on LISTEN (simcore connects), subscribe
                                                 to /tf, print "ready", collect until stdin
                                                 closes, then give every message's transforms

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


def endpoint_token(graph, kind, ros_type, name=None):
    # @ros2_lv/<domain>/<zid>/<nid>/<eid>/<kind>/<enclave>/<ns>/<node>/<topic>/<type>/<hash>/<qos>
    token, parts = graph.wait_for(
        lambda p: len(p) == 13 and p[5] == kind and p[10] == dds_name(ros_type)
        and (name is None or p[9] == name.replace("/", "%"))
    )
    zid, nid = parts[2], parts[3]
    # The node that owns the endpoint announces itself too (simcore's, or a live tool's).
    node = f"@ros2_lv/0/{zid}/{nid}/{nid}/NN/%/%/{parts[8]}"
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
    ros_type, _, wanted = ros_type.partition("@")
    s = session(endpoint)
    graph = Graph(s)
    token, name, hash_, qos = endpoint_token(graph, "MP", ros_type, wanted or None)
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


# simulation_interfaces (ros-simulation/simulation_interfaces), the fields of the types used.
SIM_MSGS = {
    "simulation_interfaces/msg/Result": "uint8 result\nstring error_message\n",
    "simulation_interfaces/msg/Resource": "string uri\nstring resource_string\n",
    "simulation_interfaces/msg/SimulationState": "uint8 state\n",
    "simulation_interfaces/msg/SimulatorFeatures":
        "uint16[] features\nstring[] spawn_formats\nstring custom_info\n",
    "simulation_interfaces/msg/EntityCategory": "uint8 category\n",
    "simulation_interfaces/msg/TagsFilter": "string[] tags\nuint8 filter_mode\n",
    "simulation_interfaces/msg/Bounds": "uint8 type\ngeometry_msgs/Vector3[] points\n",
    "simulation_interfaces/msg/EntityFilters":
        "string filter\nsimulation_interfaces/EntityCategory[] categories\n"
        "simulation_interfaces/TagsFilter tags\nsimulation_interfaces/Bounds bounds\n",
    "simulation_interfaces/msg/EntityState":
        "std_msgs/Header header\ngeometry_msgs/Pose pose\ngeometry_msgs/Twist twist\n"
        "geometry_msgs/Accel acceleration\n",
}
SIM_SRVS = {
    "GetSimulatorFeatures": ("", "simulation_interfaces/SimulatorFeatures features\n"),
    "GetSimulationState": (
        "", "simulation_interfaces/SimulationState state\nsimulation_interfaces/Result result\n"),
    "SetSimulationState": (
        "simulation_interfaces/SimulationState state\n", "simulation_interfaces/Result result\n"),
    "StepSimulation": ("uint64 steps\n", "simulation_interfaces/Result result\n"),
    # Jazzy and Kilted's (1.x) SpawnEntity.
    "SpawnEntity": (
        "string name\nbool allow_renaming\nstring uri\nstring resource_string\n"
        "string entity_namespace\ngeometry_msgs/PoseStamped initial_pose\n",
        "simulation_interfaces/Result result\nstring entity_name\n"),
    "DeleteEntity": ("string entity\n", "simulation_interfaces/Result result\n"),
    "GetEntities": ("simulation_interfaces/EntityFilters filters\n",
                    "simulation_interfaces/Result result\nstring[] entities\n"),
    "GetEntityState": ("string entity\n", "simulation_interfaces/Result result\n"
                       "simulation_interfaces/EntityState state\n"),
    # Jazzy and Kilted's (1.x) SetEntityState.
    "SetEntityState": ("string entity\nsimulation_interfaces/EntityState state\n",
                       "simulation_interfaces/Result result\n"),
    "ResetSimulation": ("uint8 scope\n", "simulation_interfaces/Result result\n"),
}
# What 2.x (Rolling; the package's 2.1) changed: SpawnEntity takes a Resource, SetEntityState
# says which parts to set.
SIM_SRVS_2 = {
    **SIM_SRVS,
    "SpawnEntity": (
        "string name\nbool allow_renaming\nsimulation_interfaces/Resource entity_resource\n"
        "string entity_namespace\ngeometry_msgs/PoseStamped initial_pose\n",
        "simulation_interfaces/Result result\nstring entity_name\n"),
    "SetEntityState": ("string entity\nsimulation_interfaces/EntityState state\nbool set_pose\n"
                       "bool set_twist\nbool set_acceleration\n",
                       "simulation_interfaces/Result result\n"),
}


def service_store(srvs=SIM_SRVS):
    """A typestore with the simulation_interfaces services `srvs`, hashed as ROS does
    (REP-2016: a service is {request_message, response_message, event_message};
    ServiceEventInfo's client_gid is uint8[16] in ROS's IDL, char[16] in rosbags' store)."""
    from rosbags.typesys import get_types_from_msg
    from rosbags.typesys.base import Nodetype

    ts = get_typestore(Stores.ROS2_JAZZY)
    types = {}
    for name, text in SIM_MSGS.items():
        types.update(get_types_from_msg(text, name))
    ts.register(types)
    consts, fields = ts.fielddefs["service_msgs/msg/ServiceEventInfo"]
    ts.fielddefs["service_msgs/msg/ServiceEventInfo"] = (consts, [
        (n, (Nodetype.ARRAY, ((Nodetype.BASE, ("uint8", 0)), 16)) if n == "client_gid" else t)
        for n, t in fields])
    for srv, (req, resp) in srvs.items():
        base = f"simulation_interfaces/srv/{srv}"
        parts = {
            "_Request": req,
            "_Response": resp,
            "_Event": f"service_msgs/ServiceEventInfo info\n{base}_Request[<=1] request\n"
                      f"{base}_Response[<=1] response\n",
            "": f"{base}_Request request_message\n{base}_Response response_message\n"
                f"{base}_Event event_message\n",
        }
        found = {}
        for suffix, text in parts.items():
            found.update(get_types_from_msg(text, base + suffix))
        rename = lambda v: (v.replace("/srv/msg/", "/srv/") if isinstance(v, str) else
                            type(v)(rename(x) for x in v) if isinstance(v, (list, tuple)) else v)
        ts.register({rename(k): rename(v) for k, v in found.items()})
    return ts


class Services:
    """simcore's simulation_interfaces servers, found through their SS tokens (those of the
    types `srvs` defines: a service may have a token per form of its type)."""

    def __init__(self, s, graph, srvs=SIM_SRVS):
        self.s, self.graph, self.ts, self.seq = s, graph, service_store(srvs), 0
        self.gid = bytes(range(100, 116))

    def state(self, value):
        return self.ts.types["simulation_interfaces/msg/SimulationState"](state=value)

    def call(self, srv, **fields):
        base = f"simulation_interfaces/srv/{srv}"
        dds = f"simulation_interfaces::srv::dds_::{srv}_"
        want = self.ts.hash_rihs01(base)
        _, parts = self.graph.wait_for(
            lambda p: len(p) == 13 and p[5] == "SS" and p[10] == dds and p[11] == want)
        key = f"0/{parts[9].replace('%', '/').strip('/')}/{dds}/{parts[11]}"
        req = self.ts.types[base + "_Request"](**fields) if fields else \
            self.ts.types[base + "_Request"](structure_needs_at_least_one_member=0)
        self.seq += 1
        att = struct.pack("<qqB", self.seq, time.time_ns(), 16) + self.gid
        payload = bytes(self.ts.serialize_cdr(req, base + "_Request"))
        replies = list(self.s.get(key, payload=payload, attachment=att,
                                  target=zenoh.QueryTarget.ALL_COMPLETE, timeout=TIMEOUT))
        if len(replies) != 1 or replies[0].ok is None:
            fail(f"{srv}: replies {[(r.ok, r.err) for r in replies]}")
        sample = replies[0].ok
        ratt = sample.attachment.to_bytes()
        if len(ratt) != 33 or struct.unpack("<q", ratt[:8])[0] != self.seq or ratt[17:] != self.gid:
            fail(f"{srv}: reply attachment {ratt!r} does not carry the request's sequence and GID")
        # simcore's wall-clock time of the reply, to compare with its samples' source times.
        self.replied_at = struct.unpack("<q", ratt[8:16])[0]
        return plain(self.ts.deserialize_cdr(sample.payload.to_bytes(), base + "_Response"))


def lockstep(endpoint, imu_topic, n):
    s = session(endpoint)
    graph = Graph(s)
    counts = {"clock": [], "imu": []}
    lock = threading.Lock()

    def on(name, ros_type, stamp):
        def cb(sample):
            msg = TS.deserialize_cdr(sample.payload.to_bytes(), ros_type)
            t = stamp(msg)
            sent = struct.unpack("<q", sample.attachment.to_bytes()[8:16])[0]
            with lock:
                counts[name].append((t.sec * 1_000_000_000 + t.nanosec, sent))
        return cb

    subs = [
        s.declare_subscriber(f"0/clock/{dds_name('rosgraph_msgs/msg/Clock')}/"
                             f"{TS.hash_rihs01('rosgraph_msgs/msg/Clock')}",
                             on("clock", "rosgraph_msgs/msg/Clock", lambda m: m.clock)),
        s.declare_subscriber(f"0/{imu_topic.strip('/')}/{dds_name('sensor_msgs/msg/Imu')}/"
                             f"{TS.hash_rihs01('sensor_msgs/msg/Imu')}",
                             on("imu", "sensor_msgs/msg/Imu", lambda m: m.header.stamp)),
    ]
    services = Services(s, graph)
    out = {"features": services.call("GetSimulatorFeatures")}
    out["state"] = services.call("GetSimulationState")
    time.sleep(1.0)  # the subscriptions reach simcore
    steps = []
    for _ in range(2):
        reply = services.call("StepSimulation", steps=n)
        # What simcore sent before its reply (by the source times of its attachments: this
        # client's callbacks may run after the reply is returned here).
        time.sleep(0.3)
        before = lambda name: [t for t, sent in counts[name] if sent <= services.replied_at]
        with lock:
            steps.append({"reply": reply, "clock": before("clock"), "imu": before("imu")})
    out["steps"] = steps
    time.sleep(0.5)
    with lock:
        out["later"] = {"clock": len(counts["clock"]), "imu": len(counts["imu"])}
    out["play"] = services.call("SetSimulationState", state=services.state(1))
    out["play_again"] = services.call("SetSimulationState", state=services.state(1))
    out["step_playing"] = services.call("StepSimulation", steps=1)
    out["state_playing"] = services.call("GetSimulationState")
    out["pause"] = services.call("SetSimulationState", state=services.state(2))
    out["quit"] = services.call("SetSimulationState", state=services.state(3))
    for sub in subs:
        sub.undeclare()
    s.close()
    print(json.dumps(out))


def quit_stepping(endpoint):
    """With the world paused, one client asks for more steps than anyone waits for; another
    quits the run while they are taken. Both replies are printed."""
    s = session(endpoint)
    graph = Graph(s)
    services = Services(s, graph)
    other = Services(s, graph)
    other.gid = bytes(range(120, 136))
    out = {"state": services.call("GetSimulationState")}
    huge = {}
    t = threading.Thread(
        target=lambda: huge.update(reply=other.call("StepSimulation", steps=10**15)))
    t.start()
    time.sleep(0.5)
    out["quit"] = services.call("SetSimulationState", state=services.state(3))
    t.join(timeout=60)
    out["huge_step"] = huge.get("reply")
    s.close()
    print(json.dumps(out))


TF = "tf2_msgs/msg/TFMessage"
TF_KEY = f"0/tf/{dds_name(TF)}/{TS.hash_rihs01(TF)}"


def tf_rows(payload):
    """A TFMessage's transforms as [stamp_ns, parent, child, x, y, z, qx, qy, qz, qw]."""
    msg = TS.deserialize_cdr(payload, TF)
    if bytes(TS.serialize_cdr(msg, TF)) != payload:
        fail("rosbags re-serialises the TFMessage to other bytes")
    rows = []
    for t in msg.transforms:
        s, tr, r = t.header.stamp, t.transform.translation, t.transform.rotation
        rows.append([s.sec * 1_000_000_000 + s.nanosec, t.header.frame_id, t.child_frame_id,
                     tr.x, tr.y, tr.z, r.x, r.y, r.z, r.w])
    return rows


def tf_stepped(endpoint, n):
    s = session(endpoint)
    graph = Graph(s)
    endpoint_token(graph, "MP", TF, "/tf")
    got = []
    lock = threading.Lock()

    def on(sample):
        att = sample.attachment.to_bytes()
        seq, sent = struct.unpack("<qq", att[:16])
        with lock:
            got.append((seq, sent, sample.payload.to_bytes()))

    sub = s.declare_subscriber(TF_KEY, on)
    services = Services(s, graph)
    time.sleep(1.0)  # the subscription reaches simcore
    steps = []
    taken = 0
    for _ in range(2):
        reply = services.call("StepSimulation", steps=n)
        time.sleep(0.3)  # callbacks may run after the reply is returned here
        with lock:
            before = [g for g in got if g[1] <= services.replied_at]
        messages = [{"seq": seq, "transforms": tf_rows(p)} for seq, _, p in before[taken:]]
        taken = len(before)
        steps.append({"reply": reply, "messages": messages})
    services.call("SetSimulationState", state=services.state(3))
    sub.undeclare()
    s.close()
    print(json.dumps({"steps": steps}))


def listening(mode, endpoint):
    """A session in `mode` ("peer", "router") listening on `endpoint`."""
    conf = zenoh.Config()
    conf.insert_json5("mode", json.dumps(mode))
    conf.insert_json5("listen/endpoints", json.dumps([endpoint]))
    conf.insert_json5("scouting/multicast/enabled", "false")
    return zenoh.open(conf)


def tf_listen(listen):
    s = listening("peer", listen)
    got = []
    lock = threading.Lock()

    def on(sample):
        seq = struct.unpack("<q", sample.attachment.to_bytes()[:8])[0]
        with lock:
            got.append((seq, sample.payload.to_bytes()))

    sub = s.declare_subscriber(TF_KEY, on)
    print("ready", flush=True)
    sys.stdin.read()
    sub.undeclare()
    out = []
    with lock:
        for seq, p in got:
            rows = tf_rows(p)
            # Each step's stamp once, in the order the message holds them.
            stamps = [r[0] for i, r in enumerate(rows) if i == 0 or rows[i - 1][0] != r[0]]
            out.append({"seq": seq, "stamps": stamps, "transforms": len(rows)})
    s.close()
    print(json.dumps({"messages": out}))


def pose_stamped(ts, x, y, z):
    """A PoseStamped in the world frame, unrotated, stamped 0."""
    T = ts.types
    return T["geometry_msgs/msg/PoseStamped"](
        header=T["std_msgs/msg/Header"](
            stamp=T["builtin_interfaces/msg/Time"](sec=0, nanosec=0), frame_id="world"),
        pose=T["geometry_msgs/msg/Pose"](
            position=T["geometry_msgs/msg/Point"](x=x, y=y, z=z),
            orientation=T["geometry_msgs/msg/Quaternion"](x=0.0, y=0.0, z=0.0, w=1.0)))


def entity_state(ts, x, y, z, qw=1.0, vx=0.0, wz=0.0, frame="", ax=0.0):
    """An EntityState: position, quaternion (0, 0, 0, qw), linear x and angular z velocity,
    linear x acceleration."""
    T = ts.types
    vec = lambda x, y, z: T["geometry_msgs/msg/Vector3"](x=x, y=y, z=z)  # noqa: E731
    return T["simulation_interfaces/msg/EntityState"](
        header=T["std_msgs/msg/Header"](
            stamp=T["builtin_interfaces/msg/Time"](sec=0, nanosec=0), frame_id=frame),
        pose=T["geometry_msgs/msg/Pose"](
            position=T["geometry_msgs/msg/Point"](x=x, y=y, z=z),
            orientation=T["geometry_msgs/msg/Quaternion"](x=0.0, y=0.0, z=0.0, w=qw)),
        twist=T["geometry_msgs/msg/Twist"](linear=vec(vx, 0.0, 0.0), angular=vec(0.0, 0.0, wz)),
        acceleration=T["geometry_msgs/msg/Accel"](linear=vec(ax, 0.0, 0.0),
                                                  angular=vec(0.0, 0.0, 0.0)))


def spawn(endpoint, sdf_file):
    s = session(endpoint)
    services = Services(s, Graph(s))
    pose = pose_stamped(services.ts, 2.0, 1.0, 0.5)
    sdf = open(sdf_file).read()

    def request(name, text, rename):
        return services.call("SpawnEntity", name=name, allow_renaming=rename, uri="",
                             resource_string=text, entity_namespace="", initial_pose=pose)

    out = {"features": services.call("GetSimulatorFeatures")}
    out["first"] = request("box_a", sdf, False)
    out["clash"] = request("box_a", sdf, False)
    out["renamed"] = request("box_a", sdf, True)
    out["broken"] = request("box_b", "<sdf version='1.9'><model name='x'><link name='l'>", False)
    out["delete"] = services.call("DeleteEntity", entity="box_a")
    out["delete_again"] = services.call("DeleteEntity", entity="box_a")
    s.close()
    print(json.dumps(out))


def rolling(endpoint, sdf_file):
    """As a client built with simulation_interfaces 2.x: spawns SDF_FILE from a Resource's
    resource_string, lists the models, and sets the pioneer's state part by part (a 1.x call
    first gives it a twist)."""
    s = session(endpoint)
    graph = Graph(s)
    old, new = Services(s, graph), Services(s, graph, SIM_SRVS_2)
    T = new.ts.types

    state = lambda ts, *a, **kw: entity_state(ts, *a, frame="world", **kw)  # noqa: E731

    def set_parts(st, pose, twist, acceleration=False):
        return new.call("SetEntityState", entity="pioneer", state=st, set_pose=pose,
                        set_twist=twist, set_acceleration=acceleration)

    get_state = lambda: new.call("GetEntityState", entity="pioneer")  # noqa: E731
    pose = pose_stamped(new.ts, 4.0, 4.0, 0.5)
    resource = T["simulation_interfaces/msg/Resource"](uri="",
                                                      resource_string=open(sdf_file).read())
    out = {"spawn": new.call("SpawnEntity", name="crate_r", allow_renaming=False,
                             entity_resource=resource, entity_namespace="", initial_pose=pose)}
    out["clash"] = new.call("SpawnEntity", name="crate_r", allow_renaming=False,
                            entity_resource=resource, entity_namespace="", initial_pose=pose)
    out["entities"] = new.call("GetEntities", filters=T["simulation_interfaces/msg/EntityFilters"](
        filter="", categories=[], tags=T["simulation_interfaces/msg/TagsFilter"](
            tags=[], filter_mode=0), bounds=T["simulation_interfaces/msg/Bounds"](
            type=0, points=[])))
    out["crate"] = new.call("GetEntityState", entity="crate_r")
    # 1.x: pose and twist.
    out["set_old"] = old.call("SetEntityState", entity="pioneer",
                              state=state(old.ts, 1.5, -2.0, 0.2, vx=0.25, wz=0.5))
    out["after_old"] = get_state()
    # 2.x, the pose alone: the twist asked for is not applied.
    out["set_pose"] = set_parts(state(new.ts, -1.0, 3.0, 0.2, vx=5.0), True, False)
    out["after_pose"] = get_state()
    # 2.x, the twist alone: a pose that is none is not looked at.
    out["set_twist"] = set_parts(state(new.ts, float("nan"), 0.0, 0.0, qw=0.0, vx=0.75),
                                 False, True)
    out["after_twist"] = get_state()
    # The acceleration is checked only when set_acceleration says so.
    out["set_accel_unset"] = set_parts(state(new.ts, 0.0, 0.0, 0.2, vx=0.75, ax=float("nan")),
                                       False, True, False)
    out["set_inf_accel"] = set_parts(state(new.ts, 0.0, 0.0, 0.2, vx=0.75, ax=float("inf")),
                                     False, True, True)
    # Refusals as for 1.x, of the parts asked for.
    out["set_nan_pose"] = set_parts(state(new.ts, float("nan"), 0.0, 0.0), True, False)
    out["set_inf_twist"] = set_parts(state(new.ts, 0.0, 0.0, 0.2, vx=float("inf")), True, True)
    out["set_static_moving"] = new.call(
        "SetEntityState", entity="beacon_1", state=state(new.ts, 3.0, 3.0, 0.5, vx=1.0),
        set_pose=True, set_twist=True, set_acceleration=False)
    out["set_static_pose"] = new.call(
        "SetEntityState", entity="beacon_1", state=state(new.ts, 3.0, 3.0, 0.5, vx=1.0),
        set_pose=True, set_twist=False, set_acceleration=False)
    out["after_refused"] = get_state()
    out["quit"] = new.call("SetSimulationState", state=new.state(3))
    s.close()
    print(json.dumps(out))


def entities(endpoint, imu_topic, sdf_file):
    """With the pioneer world paused: GetEntities and its filters, Get/SetEntityState and
    their refusals, ResetSimulation's scopes, and the IMU's messages of the first steps
    before and after a full reset."""
    s = session(endpoint)
    graph = Graph(s)
    services = Services(s, graph)
    ts = services.ts
    T = ts.types
    imu = []
    lock = threading.Lock()

    def on(sample):
        with lock:
            imu.append(sample.payload.to_bytes().hex())

    sub = s.declare_subscriber(f"0/{imu_topic.strip('/')}/{dds_name('sensor_msgs/msg/Imu')}/"
                               f"{TS.hash_rihs01('sensor_msgs/msg/Imu')}", on)
    vec = lambda x, y, z: T["geometry_msgs/msg/Vector3"](x=x, y=y, z=z)

    def filters(regex="", categories=(), tags=(), btype=0, points=()):
        return T["simulation_interfaces/msg/EntityFilters"](
            filter=regex,
            categories=[T["simulation_interfaces/msg/EntityCategory"](category=c)
                        for c in categories],
            tags=T["simulation_interfaces/msg/TagsFilter"](tags=list(tags), filter_mode=0),
            bounds=T["simulation_interfaces/msg/Bounds"](type=btype, points=list(points)))

    def get(**kw):
        return services.call("GetEntities", filters=filters(**kw))

    state = lambda *a, **kw: entity_state(ts, *a, **kw)  # noqa: E731

    def set_state(name, st):
        return services.call("SetEntityState", entity=name, state=st)

    def run_steps(n):
        time.sleep(0.3)
        with lock:
            imu.clear()
        services.call("StepSimulation", steps=n)
        time.sleep(0.5)
        with lock:
            return list(imu)

    def reset(scope):
        return services.call("ResetSimulation", scope=scope)

    out = {"features": services.call("GetSimulatorFeatures")}
    out["all"] = get()
    out["beacons_12"] = get(regex="^beacon_[12]$")
    out["bad_regex"] = get(regex="(unclosed")
    out["categories"] = get(categories=[1])
    out["tags"] = get(tags=["red"])
    out["hull"] = get(btype=2, points=[vec(0, 0, 0), vec(1, 0, 0), vec(0, 1, 0)])
    # A sphere of 0.5 m around the pioneer (at the origin), and a box on the ground plane
    # far from every other model.
    out["sphere"] = get(btype=3, points=[vec(0.0, 0.0, 0.1), vec(0.5, 0.0, 0.0)])
    out["box_far"] = get(btype=1, points=[vec(60, 60, 1), vec(50, 50, -1)])
    out["bad_sphere"] = get(btype=3, points=[vec(0, 0, 0)])
    time.sleep(0.5)  # the IMU subscription reaches simcore
    out["first_run"] = run_steps(100)
    out["pioneer"] = services.call("GetEntityState", entity="pioneer")
    out["missing"] = services.call("GetEntityState", entity="nobody")
    out["set"] = set_state("pioneer", state(1.5, -2.0, 0.2, vx=0.25, wz=0.5))
    out["after_set"] = services.call("GetEntityState", entity="pioneer")
    out["set_nan"] = set_state("pioneer", state(float("nan"), 0.0, 0.0))
    out["set_far"] = set_state("pioneer", state(2e6, 0.0, 0.0))
    out["set_zero_quat"] = set_state("pioneer", state(0.0, 0.0, 0.0, qw=0.0))
    out["set_inf_twist"] = set_state("pioneer", state(0.0, 0.0, 0.0, vx=float("inf")))
    out["set_frame"] = set_state("pioneer", state(0.0, 0.0, 0.0, frame="beacon_1"))
    out["set_static_moving"] = set_state("beacon_1", state(3.0, 3.0, 0.5, vx=1.0))
    out["set_static"] = set_state("beacon_1", state(3.0, 3.0, 0.5))
    out["set_missing"] = set_state("nobody", state(0.0, 0.0, 0.0))
    out["after_refused"] = services.call("GetEntityState", entity="pioneer")
    pose = pose_stamped(ts, 4.0, 4.0, 0.5)
    out["spawn"] = services.call("SpawnEntity", name="crate_x", allow_renaming=False, uri="",
                                 resource_string=open(sdf_file).read(), entity_namespace="",
                                 initial_pose=pose)
    out["with_spawned"] = get()
    out["reset_time"] = reset(1)
    out["reset_bad"] = reset(64)
    out["reset_spawned"] = reset(4)
    out["after_reset_spawned"] = get()
    out["pioneer_after_reset_spawned"] = services.call("GetEntityState", entity="pioneer")
    out["spawn_again"] = services.call("SpawnEntity", name="crate_y", allow_renaming=False,
                                       uri="", resource_string=open(sdf_file).read(),
                                       entity_namespace="", initial_pose=pose)
    out["reset_all"] = reset(0)
    out["after_reset_all"] = get()
    out["pioneer_after_reset"] = services.call("GetEntityState", entity="pioneer")
    out["second_run"] = run_steps(100)
    out["stop"] = services.call("SetSimulationState", state=services.state(0))
    out["state_stopped"] = services.call("GetSimulationState")
    out["third_run"] = run_steps(100)
    out["state_after_step"] = services.call("GetSimulationState")
    out["quit"] = services.call("SetSimulationState", state=services.state(3))
    sub.undeclare()
    s.close()
    print(json.dumps(out))


def latched(endpoint, wait):
    """Joins late: after the /tf_static token is seen, waits WAIT seconds, then listens to
    /tf_static with a plain subscriber and with a TRANSIENT_LOCAL one as rmw_zenoh declares
    it (an AdvancedSubscriber that detects late publishers and queries their cache)."""
    import zenoh.ext

    s = session(endpoint)
    graph = Graph(s)
    ros_type = "tf2_msgs/msg/TFMessage"
    token, parts = graph.wait_for(
        lambda p: len(p) == 13 and p[5] == "MP" and p[9] == "%tf_static"
    )
    if parts[10] != dds_name(ros_type) or parts[11] != TS.hash_rihs01(ros_type):
        fail(f"/tf_static token {token} is not of {ros_type}")
    key = f"0/tf_static/{dds_name(ros_type)}/{parts[11]}"
    time.sleep(float(wait))
    got = {"plain": [], "transient_local": []}
    lock = threading.Lock()

    def on(name):
        def cb(sample):
            with lock:
                got[name].append(sample.payload.to_bytes())
        return cb

    plain_sub = s.declare_subscriber(key, on("plain"))
    late = zenoh.ext.declare_advanced_subscriber(
        s, key, on("transient_local"),
        history=zenoh.ext.HistoryConfig(detect_late_publishers=True, max_samples=1),
        subscriber_detection=True)
    deadline = time.time() + TIMEOUT
    while time.time() < deadline:
        with lock:
            if got["transient_local"]:
                break
        time.sleep(0.05)
    time.sleep(1.0)
    with lock:
        out = {"token": token, "qos": parts[12],
               "plain": len(got["plain"]),
               "transient_local": [plain(TS.deserialize_cdr(b, ros_type))
                                   for b in got["transient_local"]]}
    late.undeclare()
    plain_sub.undeclare()
    s.close()
    print(json.dumps(out))


def subscriptions(endpoint, wait):
    """The MS (subscription) tokens simcore's node has after WAIT seconds: topic, type, and
    whether the hash is rosbags' for that type."""
    s = session(endpoint)
    graph = Graph(s)
    graph.wait_for(lambda p: len(p) == 13 and p[5] == "SS")
    time.sleep(float(wait))
    dds_to_type = {dds_name(t): t for t in TS.types if "/msg/" in t}
    out = []
    with graph.cond:
        tokens = list(graph.tokens)
    for t in tokens:
        p = t.split("/")
        if len(p) != 13 or p[5] != "MS":
            continue
        ros_type = dds_to_type.get(p[10])
        out.append({"topic": p[9].replace("%", "/"), "type": ros_type, "qos": p[12],
                    "hash_ok": ros_type is not None and TS.hash_rihs01(ros_type) == p[11]})
    s.close()
    print(json.dumps(sorted(out, key=lambda e: e["topic"])))


def stepped(endpoint, n):
    """With the world paused: the bytes of every Imu and LaserScan simcore publishes in
    StepSimulation(N), by topic, then quits the run."""
    s = session(endpoint)
    services = Services(s, Graph(s))
    got = {}
    lock = threading.Lock()

    def on(sample):
        with lock:
            got.setdefault(str(sample.key_expr), []).append(sample.payload.to_bytes().hex())

    subs = [s.declare_subscriber(f"0/**/{dds_name(t)}/{TS.hash_rihs01(t)}", on)
            for t in ("sensor_msgs/msg/Imu", "sensor_msgs/msg/LaserScan")]
    time.sleep(1.0)  # the subscriptions reach simcore
    services.call("StepSimulation", steps=int(n))
    time.sleep(0.5)
    services.call("SetSimulationState", state=services.state(3))
    for sub in subs:
        sub.undeclare()
    s.close()
    with lock:
        print(json.dumps(got))


def router(endpoint):
    s = listening("router", endpoint)
    print("ready", flush=True)
    sys.stdin.read()
    s.close()


def malformed(endpoint, srv, n):
    s = session(endpoint)
    graph = Graph(s)
    ts = service_store()
    base = f"simulation_interfaces/srv/{srv}"
    dds = f"simulation_interfaces::srv::dds_::{srv}_"
    want = ts.hash_rihs01(base)
    _, parts = graph.wait_for(
        lambda p: len(p) == 13 and p[5] == "SS" and p[10] == dds and p[11] == want)
    key = f"0/{parts[9].replace('%', '/').strip('/')}/{dds}/{parts[11]}"
    bodies = [
        b"",
        b"\x00\x01\x00",
        b"\xff" * 1024,
        # A CDR header, then a string length far past the end.
        b"\x00\x01\x00\x00" + struct.pack("<I", 0xFFFFFFF0) + b"abc",
    ]
    out = {"sent": 0, "errors": 0, "ok": 0}
    batch = 200
    for start in range(0, n, batch):
        pending = []
        for i in range(start, min(n, start + batch)):
            att = struct.pack("<qqB", i + 1, time.time_ns(), 16) + bytes(range(16))
            pending.append(s.get(key, payload=bodies[i % len(bodies)], attachment=att,
                                 target=zenoh.QueryTarget.ALL_COMPLETE, timeout=TIMEOUT))
            out["sent"] += 1
        for replies in pending:
            for r in replies:
                if r.ok is not None:
                    out["ok"] += 1
                else:
                    out["errors"] += 1
    print(json.dumps(out))
    s.close()


def main():
    if len(sys.argv) != 5:
        fail(__doc__)
    endpoint, mode = sys.argv[1], sys.argv[2]
    if mode == "topic":
        topic(endpoint, sys.argv[3], int(sys.argv[4]))
    elif mode == "spawn":
        spawn(endpoint, sys.argv[3])
    elif mode == "rolling":
        rolling(endpoint, sys.argv[3])
    elif mode == "lockstep":
        lockstep(endpoint, sys.argv[3], int(sys.argv[4]))
    elif mode == "entities":
        entities(endpoint, sys.argv[3], sys.argv[4])
    elif mode == "latched":
        latched(endpoint, sys.argv[3])
    elif mode == "subscriptions":
        subscriptions(endpoint, sys.argv[3])
    elif mode == "stepped":
        stepped(endpoint, sys.argv[3])
    elif mode == "tf_stepped":
        tf_stepped(endpoint, int(sys.argv[3]))
    elif mode == "tf_listen":
        tf_listen(endpoint)
    elif mode == "malformed":
        malformed(endpoint, sys.argv[3], int(sys.argv[4]))
    elif mode == "router":
        router(endpoint)
    elif mode == "quit_stepping":
        quit_stepping(endpoint)
    elif mode == "drive":
        drive(endpoint, float(sys.argv[3]), float(sys.argv[4]))
    else:
        fail(__doc__)


if __name__ == "__main__":
    main()
