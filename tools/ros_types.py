#!/usr/bin/env python3
"""Writes sim-codec/src/catalog.rs: the name, RIHS01 hash and ros2msg definition of every
ROS 2 message type simcore writes, from rosbags' ROS 2 Jazzy store plus the simcore_msgs
package under ros/.

It also writes the RIHS01 hash of every ROS 2 service simcore serves (SERVICES): the
simulation_interfaces services, from their field lists below. A service's hash is that of the
struct {request_message, response_message, event_message} (`_Event` = {info:
service_msgs/ServiceEventInfo, request: Request[<=1], response: Response[<=1]}), with
ServiceEventInfo's `char[16] client_gid` as ROS's IDL has it, `uint8[16]` (rosbags keeps `char`,
which makes every service hash wrong); `--check` also recomputes std_srvs Trigger and SetBool
against their published hashes.

Run it after changing TYPES or a .msg file (needs `pip install rosbags==0.11.9`).

`ros_types.py --check CATALOG.json` reads a list of {"name", "hash", "definition"} (what
sim-core's `tests/ros_types.rs` dumps from the compiled catalogue), recomputes each entry with
rosbags and exits 1 listing every difference.
"""
import json
import sys
from pathlib import Path

from rosbags.typesys import Stores, get_types_from_msg, get_typestore

ROOT = Path(__file__).resolve().parent.parent

# (Rust constant, ROS type). The order is the order of the generated file.
TYPES = [
    ("EMPTY", "std_msgs/msg/Empty"),
    ("BOOL", "std_msgs/msg/Bool"),
    ("FLOAT64", "std_msgs/msg/Float64"),
    ("INT64", "std_msgs/msg/Int64"),
    ("STRING", "std_msgs/msg/String"),
    ("HEADER", "std_msgs/msg/Header"),
    ("VECTOR3_STAMPED", "geometry_msgs/msg/Vector3Stamped"),
    ("TWIST", "geometry_msgs/msg/Twist"),
    ("TWIST_STAMPED", "geometry_msgs/msg/TwistStamped"),
    ("POSE_STAMPED", "geometry_msgs/msg/PoseStamped"),
    ("TRANSFORM_STAMPED", "geometry_msgs/msg/TransformStamped"),
    ("WRENCH_STAMPED", "geometry_msgs/msg/WrenchStamped"),
    ("IMU", "sensor_msgs/msg/Imu"),
    ("LASER_SCAN", "sensor_msgs/msg/LaserScan"),
    ("POINT_CLOUD2", "sensor_msgs/msg/PointCloud2"),
    ("IMAGE", "sensor_msgs/msg/Image"),
    ("CAMERA_INFO", "sensor_msgs/msg/CameraInfo"),
    ("NAV_SAT_FIX", "sensor_msgs/msg/NavSatFix"),
    ("MAGNETIC_FIELD", "sensor_msgs/msg/MagneticField"),
    ("FLUID_PRESSURE", "sensor_msgs/msg/FluidPressure"),
    ("BATTERY_STATE", "sensor_msgs/msg/BatteryState"),
    ("JOINT_STATE", "sensor_msgs/msg/JointState"),
    ("ODOMETRY", "nav_msgs/msg/Odometry"),
    ("TF_MESSAGE", "tf2_msgs/msg/TFMessage"),
    ("CLOCK", "rosgraph_msgs/msg/Clock"),
    ("MARKER_ARRAY", "visualization_msgs/msg/MarkerArray"),
    ("ALTIMETER", "simcore_msgs/msg/Altimeter"),
    ("LOGICAL_CAMERA_IMAGE", "simcore_msgs/msg/LogicalCameraImage"),
    ("LOGICAL_CAMERA_FRUSTUM", "simcore_msgs/msg/LogicalCameraFrustum"),
    ("FIDUCIAL_ARRAY", "simcore_msgs/msg/FiducialArray"),
    ("CONTACTS", "simcore_msgs/msg/Contacts"),
    ("SENSOR_METRICS", "simcore_msgs/msg/SensorMetrics"),
    ("ENTITY_FACTORY", "simcore_msgs/msg/EntityFactory"),
]

# The simulation_interfaces messages and services simcore uses (ros-simulation/
# simulation_interfaces 1.0 to 2.1, fields unchanged unless said), without comments or constants.
SIMULATION_MSGS = {
    "simulation_interfaces/msg/Result": "uint8 result\nstring error_message\n",
    "simulation_interfaces/msg/Resource": "string uri\nstring resource_string\n",
    "simulation_interfaces/msg/SimulationState": "uint8 state\n",
    "simulation_interfaces/msg/SimulatorFeatures": (
        "uint16[] features\nstring[] spawn_formats\nstring custom_info\n"
    ),
    "simulation_interfaces/msg/EntityCategory": "uint8 category\n",
    "simulation_interfaces/msg/TagsFilter": "string[] tags\nuint8 filter_mode\n",
    "simulation_interfaces/msg/Bounds": "uint8 type\ngeometry_msgs/Vector3[] points\n",
    "simulation_interfaces/msg/EntityFilters": (
        "string filter\nsimulation_interfaces/EntityCategory[] categories\n"
        "simulation_interfaces/TagsFilter tags\nsimulation_interfaces/Bounds bounds\n"
    ),
    "simulation_interfaces/msg/EntityState": (
        "std_msgs/Header header\ngeometry_msgs/Pose pose\ngeometry_msgs/Twist twist\n"
        "geometry_msgs/Accel acceleration\n"
    ),
}
SIMULATION_SRVS = {
    "simulation_interfaces/srv/GetSimulatorFeatures": (
        "---\nsimulation_interfaces/SimulatorFeatures features\n"
    ),
    "simulation_interfaces/srv/GetSimulationState": (
        "---\nsimulation_interfaces/SimulationState state\nsimulation_interfaces/Result result\n"
    ),
    "simulation_interfaces/srv/SetSimulationState": (
        "simulation_interfaces/SimulationState state\n---\nsimulation_interfaces/Result result\n"
    ),
    "simulation_interfaces/srv/StepSimulation": (
        "uint64 steps\n---\nsimulation_interfaces/Result result\n"
    ),
    # As released for Jazzy and Kilted (1.x; SIMULATION_SRVS_2 has the 2.x form).
    "simulation_interfaces/srv/SpawnEntity": (
        "string name\nbool allow_renaming\nstring uri\nstring resource_string\n"
        "string entity_namespace\ngeometry_msgs/PoseStamped initial_pose\n---\n"
        "simulation_interfaces/Result result\nstring entity_name\n"
    ),
    "simulation_interfaces/srv/DeleteEntity": (
        "string entity\n---\nsimulation_interfaces/Result result\n"
    ),
    "simulation_interfaces/srv/GetEntities": (
        "simulation_interfaces/EntityFilters filters\n---\n"
        "simulation_interfaces/Result result\nstring[] entities\n"
    ),
    "simulation_interfaces/srv/GetEntityState": (
        "string entity\n---\n"
        "simulation_interfaces/Result result\nsimulation_interfaces/EntityState state\n"
    ),
    # As released for Jazzy and Kilted (1.x; SIMULATION_SRVS_2 has the 2.x form).
    "simulation_interfaces/srv/SetEntityState": (
        "string entity\nsimulation_interfaces/EntityState state\n---\n"
        "simulation_interfaces/Result result\n"
    ),
    "simulation_interfaces/srv/ResetSimulation": (
        "uint8 scope\n---\nsimulation_interfaces/Result result\n"
    ),
}

# The services whose types 2.x (Rolling) changed, as 2.1 has them: SpawnEntity takes a Resource
# (uri and resource_string, the same bytes as 1.x's two fields) since 2.0, and SetEntityState
# gains set_pose, set_twist and set_acceleration in 2.1. Every other service above is the same.
SIMULATION_SRVS_2 = {
    "simulation_interfaces/srv/SpawnEntity": (
        "string name\nbool allow_renaming\nsimulation_interfaces/Resource entity_resource\n"
        "string entity_namespace\ngeometry_msgs/PoseStamped initial_pose\n---\n"
        "simulation_interfaces/Result result\nstring entity_name\n"
    ),
    "simulation_interfaces/srv/SetEntityState": (
        "string entity\nsimulation_interfaces/EntityState state\nbool set_pose\nbool set_twist\n"
        "bool set_acceleration\n---\nsimulation_interfaces/Result result\n"
    ),
}

# (Rust constant, ROS service, package major version): written after TYPES, in SERVICES.
SERVICES = [
    ("GET_SIMULATOR_FEATURES", "simulation_interfaces/srv/GetSimulatorFeatures", 1),
    ("GET_SIMULATION_STATE", "simulation_interfaces/srv/GetSimulationState", 1),
    ("SET_SIMULATION_STATE", "simulation_interfaces/srv/SetSimulationState", 1),
    ("STEP_SIMULATION", "simulation_interfaces/srv/StepSimulation", 1),
    ("SPAWN_ENTITY", "simulation_interfaces/srv/SpawnEntity", 1),
    ("DELETE_ENTITY", "simulation_interfaces/srv/DeleteEntity", 1),
    ("GET_ENTITIES", "simulation_interfaces/srv/GetEntities", 1),
    ("GET_ENTITY_STATE", "simulation_interfaces/srv/GetEntityState", 1),
    ("SET_ENTITY_STATE", "simulation_interfaces/srv/SetEntityState", 1),
    ("RESET_SIMULATION", "simulation_interfaces/srv/ResetSimulation", 1),
    ("SPAWN_ENTITY_V2", "simulation_interfaces/srv/SpawnEntity", 2),
    ("SET_ENTITY_STATE_V2", "simulation_interfaces/srv/SetEntityState", 2),
]

# Published service hashes the method is checked against (rmw_zenoh's and ROS's).
KNOWN_SERVICES = {
    "std_srvs/srv/Trigger": (
        "---\nbool success\nstring message\n",
        "RIHS01_eeff2cd6fa5ad9d27cdf4dec64818317839b62f212a91e6b5304b634b2062c5f",
    ),
    "std_srvs/srv/SetBool": (
        "bool data\n---\nbool success\nstring message\n",
        "RIHS01_abe9e4bb6b41b40e6789712c00ec8871923e089af3f667a79992a428cff2da0a",
    ),
}


def register_service(ts, name, text):
    """Registers `name` (pkg/srv/X) and its _Request, _Response and _Event types."""
    req, resp = text.split("---\n")
    types = {}
    types.update(get_types_from_msg(req, f"{name}_Request"))
    types.update(get_types_from_msg(resp, f"{name}_Response"))
    types.update(get_types_from_msg(
        f"service_msgs/ServiceEventInfo info\n{name}_Request[<=1] request\n"
        f"{name}_Response[<=1] response\n",
        f"{name}_Event",
    ))
    types.update(get_types_from_msg(
        f"{name}_Request request_message\n{name}_Response response_message\n"
        f"{name}_Event event_message\n",
        name,
    ))

    # rosbags files srv types under pkg/srv/msg/; their names are pkg/srv/.
    def fix(v):
        if isinstance(v, str):
            return v.replace("/srv/msg/", "/srv/")
        if isinstance(v, (list, tuple)):
            return type(v)(fix(x) for x in v)
        return v

    ts.register({fix(k): fix(v) for k, v in types.items()})


def char_gid_as_uint8(ts):
    """ServiceEventInfo.client_gid as ROS's IDL types it (uint8[16], not char[16])."""
    from rosbags.typesys.base import Nodetype

    name = "service_msgs/msg/ServiceEventInfo"
    consts, fields = ts.fielddefs[name]
    gid = (Nodetype.ARRAY, ((Nodetype.BASE, ("uint8", 0)), 16))
    ts.fielddefs[name] = (consts, [(n, gid if n == "client_gid" else t) for n, t in fields])


def service_definitions(version):
    """The simulation_interfaces service definitions of package major version 1 or 2."""
    return {**SIMULATION_SRVS, **SIMULATION_SRVS_2} if version == 2 else SIMULATION_SRVS


def store(version=1):
    """The Jazzy store with simcore_msgs and simulation_interfaces (services as `version`
    defines them: a store holds one definition per name)."""
    ts = get_typestore(Stores.ROS2_JAZZY)
    msgs = {}
    for f in sorted((ROOT / "ros/simcore_msgs/msg").glob("*.msg")):
        msgs.update(get_types_from_msg(f.read_text(), f"simcore_msgs/msg/{f.stem}"))
    for name, text in SIMULATION_MSGS.items():
        msgs.update(get_types_from_msg(text, name))
    ts.register(msgs)
    char_gid_as_uint8(ts)
    known = {k: v[0] for k, v in KNOWN_SERVICES.items()}
    for name, text in {**service_definitions(version), **known}.items():
        register_service(ts, name, text)
    return ts


def rust_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def main():
    ts = store()
    stores = {1: ts, 2: store(2)}
    out = [
        "//! Generated by `tools/ros_types.py` from rosbags' ROS 2 Jazzy store and",
        "//! `ros/simcore_msgs`: do not edit by hand.",
        "",
        "use super::RosType;",
        "",
    ]
    for const, name in TYPES:
        text, _ = ts.generate_msgdef(name, ros_version=2)
        out += [
            f"/// `{name}`.",
            f"pub const {const}: RosType = RosType {{",
            f"    name: {rust_str(name)},",
            f"    hash: {rust_str(ts.hash_rihs01(name))},",
            f"    definition: {rust_str(text)},",
            "};",
            "",
        ]
    out.append("/// Every type above, in order.")
    out.append("pub const ALL: &[&RosType] = &[")
    out += [f"    &{c}," for c, _ in TYPES]
    out.append("];")
    out.append("")
    for const, name, version in SERVICES:
        # The services 2.x changed say which form they are.
        form = f" as simulation_interfaces {version}.x has it" if name in SIMULATION_SRVS_2 else ""
        out += [
            f"/// The service `{name}`{form} (its definition: request fields, `---`, response "
            "fields).",
            f"pub const {const}: RosType = RosType {{",
            f"    name: {rust_str(name)},",
            f"    hash: {rust_str(stores[version].hash_rihs01(name))},",
            f"    definition: {rust_str(service_definitions(version)[name])},",
            "};",
            "",
        ]
    out.append("/// Every service above, in order.")
    out.append("pub const SERVICES: &[&RosType] = &[")
    out += [f"    &{c}," for c, _, _ in SERVICES]
    out.append("];")
    (ROOT / "sim-codec/src/catalog.rs").write_text("\n".join(out) + "\n")


def check(path):
    ts = store()
    stores = {1: ts, 2: store(2)}
    entries = json.loads(Path(path).read_text())
    bad = []
    for name, (_, published) in KNOWN_SERVICES.items():
        if ts.hash_rihs01(name) != published:
            bad.append(f"{name}: the service method gives {ts.hash_rihs01(name)}, not {published}")
    for e in entries:
        name = e["name"]
        if name in SIMULATION_SRVS:
            # The version whose definition it has (1.x when neither).
            version = next((v for v in (1, 2) if service_definitions(v)[name] == e["definition"]),
                           None)
            if version is None:
                bad.append(f"{name}: definition differs from 1.x's and 2.x's")
                version = 1
            want = stores[version].hash_rihs01(name)
            if e["hash"] != want:
                bad.append(f"{name} ({version}.x): hash {e['hash']} != {want}")
            continue
        if name not in ts.types:
            bad.append(f"{name}: not a type of the Jazzy store or ros/simcore_msgs")
            continue
        if e["hash"] != ts.hash_rihs01(name):
            bad.append(f"{name}: hash {e['hash']} != {ts.hash_rihs01(name)}")
        text, _ = ts.generate_msgdef(name, ros_version=2)
        if e["definition"] != text:
            bad.append(f"{name}: definition differs:\n{e['definition']!r}\n!=\n{text!r}")
    print(f"{len(entries)} entries checked, {len(bad)} differ")
    for b in bad:
        print(b)
    return 1 if bad or not entries else 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--check":
        sys.exit(check(sys.argv[2]))
    main()
