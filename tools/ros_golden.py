#!/usr/bin/env python3
"""Writes sim-codec/src/golden.tsv: the CDR bytes rosbags serialises for fixed sample
messages of every ROS 2 type simcore encodes or decodes (type, case name, hex; cases ending
in `-be` are big-endian). The unit tests of sim-core's `ros` module build the same messages
and compare byte for byte, and decode every line.

It also writes sim-zenoh/src/control_golden.tsv: the CDR of simulation_interfaces
requests and replies in both forms of the services 2.x changed (SpawnEntity, SetEntityState),
which the unit tests of the `control` module decode and encode.

Run it by hand after changing a case (needs `pip install rosbags==0.11.9`); the unit tests
only read the files. `ros_golden.py --check` writes nothing and exits 1 when the file is not
what rosbags serialises now (sim-core's `tests/ros_types.rs` runs it).
"""
import math
import struct
import sys
from pathlib import Path

from ros_types import ROOT, store

TS = store()
TS2 = store(2)
T = TS.types
INF = math.inf
NAN = math.nan


def msg(_type, **fields):
    return T[_type](**fields)


def np_array(values, dtype):
    import numpy

    return numpy.array(values, dtype=dtype)


def time(ns):
    return msg("builtin_interfaces/msg/Time", sec=ns // 1_000_000_000, nanosec=ns % 1_000_000_000)


def header(ns, frame):
    return msg("std_msgs/msg/Header", stamp=time(ns), frame_id=frame)


def vec(x, y, z):
    return msg("geometry_msgs/msg/Vector3", x=x, y=y, z=z)


def point(x, y, z):
    return msg("geometry_msgs/msg/Point", x=x, y=y, z=z)


def quat(x, y, z, w):
    return msg("geometry_msgs/msg/Quaternion", x=x, y=y, z=z, w=w)


def pose(p, q):
    return msg("geometry_msgs/msg/Pose", position=point(*p), orientation=quat(*q))


def twist(l, a):
    return msg("geometry_msgs/msg/Twist", linear=vec(*l), angular=vec(*a))


def transform_stamped(ns, frame, child, p, q):
    return msg(
        "geometry_msgs/msg/TransformStamped",
        header=header(ns, frame),
        child_frame_id=child,
        transform=msg("geometry_msgs/msg/Transform", translation=vec(*p), rotation=quat(*q)),
    )


def f32(x):
    """x rounded to float32, as the encoder stores it."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def lidar_points(ranges, intensities, count, rows, amin, astep, vmin, vstep):
    """x, y, z, intensity float32 and ring uint16 per point, in the sensor frame (the
    encoder's rule)."""
    data = bytearray()
    for j in range(rows):
        incl = vmin + j * vstep
        for i in range(count):
            az = amin + i * astep
            r = ranges[j * count + i]
            inten = intensities[j * count + i]
            x = r * math.cos(incl) * math.cos(az)
            y = r * math.cos(incl) * math.sin(az)
            z = r * math.sin(incl)
            data += struct.pack("<ffffH", x, y, z, inten, j)
    return data


def point_fields(names, datatype=7):
    return [
        msg("sensor_msgs/msg/PointField", name=n, offset=4 * i, datatype=datatype, count=1)
        for i, n in enumerate(names)
    ]


def camera_info(**fields):
    """A CameraInfo without binning and with a zero ROI, as the encoder writes them."""
    roi = msg(
        "sensor_msgs/msg/RegionOfInterest",
        x_offset=0,
        y_offset=0,
        height=0,
        width=0,
        do_rectify=False,
    )
    return msg("sensor_msgs/msg/CameraInfo", binning_x=0, binning_y=0, roi=roi, **fields)


STAMP = 12_500_000_000  # 12.5 s
# Header frames of 5 characters: 8 + 4 + 6 = 18 bytes, so the next float64 is padded.
FRAME = "odd_5"

SCAN_RANGES = [1.0, 2.5, INF, -INF, NAN, 0.5]
SCAN_INTENSITIES = [10.0, 20.0, 0.0, 0.0, 0.0, 5.0]


def cases():
    """(type, case, message) for little-endian; `-be` cases are added for a few."""
    c = []
    add = lambda t, name, m: c.append((t, name, m))  # noqa: E731

    add("std_msgs/msg/Empty", "empty", msg("std_msgs/msg/Empty"))
    add("std_msgs/msg/Bool", "true", msg("std_msgs/msg/Bool", data=True))
    add("std_msgs/msg/Float64", "pi", msg("std_msgs/msg/Float64", data=math.pi))
    add("std_msgs/msg/Float64", "nan", msg("std_msgs/msg/Float64", data=NAN))
    add("std_msgs/msg/Float64", "neg_inf", msg("std_msgs/msg/Float64", data=-INF))
    add("std_msgs/msg/Int64", "min", msg("std_msgs/msg/Int64", data=-(2**63)))
    add("std_msgs/msg/String", "empty", msg("std_msgs/msg/String", data=""))
    add("std_msgs/msg/String", "odd", msg("std_msgs/msg/String", data="héllo"))
    add(
        "geometry_msgs/msg/Vector3Stamped",
        "basic",
        msg("geometry_msgs/msg/Vector3Stamped", header=header(STAMP, FRAME), vector=vec(1, -2, INF)),
    )
    add("geometry_msgs/msg/Twist", "basic", twist((0.5, 0, 0), (0, 0, -0.25)))
    add(
        "geometry_msgs/msg/TwistStamped",
        "basic",
        msg(
            "geometry_msgs/msg/TwistStamped",
            header=header(STAMP, "base_link"),
            twist=twist((0.5, 0.1, 0), (0, 0, 0.3)),
        ),
    )
    add(
        "geometry_msgs/msg/PoseStamped",
        "basic",
        msg(
            "geometry_msgs/msg/PoseStamped",
            header=header(STAMP, "map"),
            pose=pose((1, 2, 3), (0, 0, 0.6, 0.8)),
        ),
    )
    for name, w in [("unnormalised", 2), ("zero_rotation", 0)]:
        add(
            "geometry_msgs/msg/PoseStamped",
            name,
            msg(
                "geometry_msgs/msg/PoseStamped",
                header=header(0, ""),
                pose=pose((0, 0, 0), (0, 0, 0, w)),
            ),
        )
    add(
        "geometry_msgs/msg/TransformStamped",
        "basic",
        transform_stamped(STAMP, FRAME, "robot::base", (1, 2, 3), (0, 0, 0.6, 0.8)),
    )
    add(
        "geometry_msgs/msg/WrenchStamped",
        "basic",
        msg(
            "geometry_msgs/msg/WrenchStamped",
            header=header(STAMP, FRAME),
            wrench=msg("geometry_msgs/msg/Wrench", force=vec(1, 2, 3), torque=vec(-1, 0, NAN)),
        ),
    )
    add(
        "tf2_msgs/msg/TFMessage",
        "two",
        msg(
            "tf2_msgs/msg/TFMessage",
            transforms=[
                transform_stamped(STAMP, "world", "a", (1, 0, 0), (0, 0, 0, 1)),
                transform_stamped(STAMP, "world", "bb::c", (0, 1, 0), (0, 0, 0.6, 0.8)),
            ],
        ),
    )
    add("tf2_msgs/msg/TFMessage", "empty", msg("tf2_msgs/msg/TFMessage", transforms=[]))

    cov = [float(i) for i in range(9)]
    add(
        "sensor_msgs/msg/Imu",
        "oriented",
        msg(
            "sensor_msgs/msg/Imu",
            header=header(STAMP, FRAME),
            orientation=quat(0, 0, 0.6, 0.8),
            orientation_covariance=np_array(cov, "float64"),
            angular_velocity=vec(0.1, 0.2, 0.3),
            angular_velocity_covariance=np_array([0.01] * 9, "float64"),
            linear_acceleration=vec(0, 0, 9.8),
            linear_acceleration_covariance=np_array([0.0] * 9, "float64"),
        ),
    )
    add(
        "sensor_msgs/msg/Imu",
        "no_orientation",
        msg(
            "sensor_msgs/msg/Imu",
            header=header(STAMP, "imu"),
            orientation=quat(0, 0, 0, 1),
            orientation_covariance=np_array([-1.0] + [0.0] * 8, "float64"),
            angular_velocity=vec(0, 0, 0),
            angular_velocity_covariance=np_array([0.0] * 9, "float64"),
            linear_acceleration=vec(0, 0, 9.8),
            linear_acceleration_covariance=np_array([0.0] * 9, "float64"),
        ),
    )
    add(
        "sensor_msgs/msg/LaserScan",
        "one_row",
        msg(
            "sensor_msgs/msg/LaserScan",
            header=header(STAMP, FRAME),
            angle_min=f32(-1.0),
            angle_max=f32(1.5),
            angle_increment=f32(0.5),
            time_increment=0.0,
            scan_time=0.0,
            range_min=f32(0.1),
            range_max=f32(10.0),
            ranges=np_array(SCAN_RANGES, "float32"),
            intensities=np_array(SCAN_INTENSITIES, "float32"),
        ),
    )
    add(
        "sensor_msgs/msg/LaserScan",
        "empty",
        msg(
            "sensor_msgs/msg/LaserScan",
            header=header(0, ""),
            angle_min=0.0,
            angle_max=0.0,
            angle_increment=0.0,
            time_increment=0.0,
            scan_time=0.1,
            range_min=0.0,
            range_max=0.0,
            ranges=np_array([], "float32"),
            intensities=np_array([], "float32"),
        ),
    )
    # A 3 x 2 scan: rows at -0.2 and 0.3 rad, columns at -1.0, -0.5, 0.0 rad.
    add(
        "sensor_msgs/msg/PointCloud2",
        "scan_rows",
        msg(
            "sensor_msgs/msg/PointCloud2",
            header=header(STAMP, FRAME),
            height=2,
            width=3,
            fields=point_fields(["x", "y", "z", "intensity"])
            + [msg("sensor_msgs/msg/PointField", name="ring", offset=16, datatype=4, count=1)],
            is_bigendian=False,
            point_step=18,
            row_step=54,
            data=np_array(
                lidar_points(SCAN_RANGES, SCAN_INTENSITIES, 3, 2, -1.0, 0.5, -0.2, 0.5),
                "uint8",
            ),
            is_dense=False,
        ),
    )
    add(
        "sensor_msgs/msg/PointCloud2",
        "packed",
        msg(
            "sensor_msgs/msg/PointCloud2",
            header=header(STAMP, "cam"),
            height=1,
            width=2,
            fields=point_fields(["x", "y", "z"]),
            is_bigendian=False,
            point_step=12,
            row_step=24,
            data=np_array(list(range(24)), "uint8"),
            is_dense=True,
        ),
    )
    add(
        "sensor_msgs/msg/Image",
        "rgb8",
        msg(
            "sensor_msgs/msg/Image",
            header=header(STAMP, FRAME),
            height=2,
            width=1,
            encoding="rgb8",
            is_bigendian=0,
            step=3,
            data=np_array([1, 2, 3, 4, 5, 6], "uint8"),
        ),
    )
    add(
        "sensor_msgs/msg/Image",
        "depth",
        msg(
            "sensor_msgs/msg/Image",
            header=header(STAMP, "cam"),
            height=1,
            width=1,
            encoding="32FC1",
            is_bigendian=0,
            step=4,
            data=np_array(list(struct.pack("<f", INF)), "uint8"),
        ),
    )
    add(
        "sensor_msgs/msg/CameraInfo",
        "plumb_bob",
        camera_info(
            header=header(STAMP, FRAME),
            height=240,
            width=320,
            distortion_model="plumb_bob",
            d=np_array([0.1, -0.2, 0.0, 0.0, 0.05], "float64"),
            k=np_array([277.0, 0, 160, 0, 277.0, 120, 0, 0, 1], "float64"),
            r=np_array([1.0, 0, 0, 0, 1, 0, 0, 0, 1], "float64"),
            p=np_array([277.0, 0, 160, 0, 0, 277.0, 120, 0, 0, 0, 1, 0], "float64"),
        ),
    )
    add(
        "sensor_msgs/msg/CameraInfo",
        "no_distortion",
        camera_info(
            header=header(0, "c"),
            height=1,
            width=1,
            distortion_model="",
            d=np_array([], "float64"),
            k=np_array([0.0] * 9, "float64"),
            r=np_array([0.0] * 9, "float64"),
            p=np_array([0.0] * 12, "float64"),
        ),
    )
    add(
        "sensor_msgs/msg/NavSatFix",
        "fix",
        msg(
            "sensor_msgs/msg/NavSatFix",
            header=header(STAMP, FRAME),
            status=msg("sensor_msgs/msg/NavSatStatus", status=0, service=1),
            latitude=47.3667,
            longitude=8.55,
            altitude=408.25,
            position_covariance=np_array([0.0] * 9, "float64"),
            position_covariance_type=0,
        ),
    )
    add(
        "sensor_msgs/msg/MagneticField",
        "basic",
        msg(
            "sensor_msgs/msg/MagneticField",
            header=header(STAMP, FRAME),
            magnetic_field=vec(2e-5, 0, -4e-5),
            magnetic_field_covariance=np_array([0.0] * 9, "float64"),
        ),
    )
    add(
        "sensor_msgs/msg/FluidPressure",
        "basic",
        msg(
            "sensor_msgs/msg/FluidPressure",
            header=header(STAMP, FRAME),
            fluid_pressure=101325.0,
            variance=0.25,
        ),
    )
    add(
        "sensor_msgs/msg/BatteryState",
        "discharging",
        msg(
            "sensor_msgs/msg/BatteryState",
            header=header(STAMP, FRAME),
            voltage=f32(12.5),
            temperature=NAN,
            current=f32(-1.25),
            charge=f32(1.5),
            capacity=f32(2.0),
            design_capacity=f32(2.0),
            percentage=f32(0.75),
            power_supply_status=2,
            power_supply_health=0,
            power_supply_technology=0,
            present=True,
            cell_voltage=np_array([], "float32"),
            cell_temperature=np_array([], "float32"),
            location="",
            serial_number="",
        ),
    )
    for case, child in [("basic", ""), ("child_frame", "base_link")]:
        add(
            "nav_msgs/msg/Odometry",
            case,
            msg(
                "nav_msgs/msg/Odometry",
                header=header(STAMP, "odom"),
                child_frame_id=child,
                pose=msg(
                    "geometry_msgs/msg/PoseWithCovariance",
                    pose=pose((1, 2, 0), (0, 0, 0.6, 0.8)),
                    covariance=np_array([0.0] * 36, "float64"),
                ),
                twist=msg(
                    "geometry_msgs/msg/TwistWithCovariance",
                    twist=twist((0.5, 0, 0), (0, 0, 0.1)),
                    covariance=np_array([0.0] * 36, "float64"),
                ),
            ),
        )

    add(
        "simcore_msgs/msg/Altimeter",
        "basic",
        msg(
            "simcore_msgs/msg/Altimeter",
            header=header(STAMP, FRAME),
            vertical_position=1.5,
            vertical_velocity=-0.5,
            vertical_reference=100.0,
        ),
    )
    add(
        "simcore_msgs/msg/LogicalCameraFrustum",
        "basic",
        msg(
            "simcore_msgs/msg/LogicalCameraFrustum",
            header=header(STAMP, FRAME),
            near_clip=0.55,
            far_clip=5.0,
            horizontal_fov=1.25,
            aspect_ratio=1.778,
        ),
    )
    add(
        "simcore_msgs/msg/LogicalCameraImage",
        "two_models",
        msg(
            "simcore_msgs/msg/LogicalCameraImage",
            header=header(STAMP, FRAME),
            pose=pose((0, 0, 1), (0, 0, 0, 1)),
            models=[
                msg("simcore_msgs/msg/NamedPose", name="box", pose=pose((2, 0, 0), (0, 0, 0, 1))),
                msg(
                    "simcore_msgs/msg/NamedPose",
                    name="cyl_1",
                    pose=pose((3, -1, 0), (0, 0, 0.6, 0.8)),
                ),
            ],
        ),
    )
    add(
        "simcore_msgs/msg/FiducialArray",
        "one",
        msg(
            "simcore_msgs/msg/FiducialArray",
            header=header(STAMP, FRAME),
            fiducials=[
                msg(
                    "simcore_msgs/msg/Fiducial",
                    id=-7,
                    name="tag",
                    range=2.0,
                    bearing=0.25,
                    elevation=-0.125,
                    pose=pose((1.5, 0.5, -0.25), (0, 0, 0, 1)),
                )
            ],
        ),
    )
    add(
        "simcore_msgs/msg/FiducialArray",
        "none",
        msg("simcore_msgs/msg/FiducialArray", header=header(0, ""), fiducials=[]),
    )
    add(
        "simcore_msgs/msg/Contacts",
        "one",
        msg(
            "simcore_msgs/msg/Contacts",
            header=header(STAMP, FRAME),
            contacts=[
                msg(
                    "simcore_msgs/msg/Contact",
                    collision1=17,
                    collision2=2**64 - 1,
                    position=point(1, 2, 0),
                    normal=vec(0, 0, 1),
                    depth=0.001,
                    force=vec(0, 0, 9.81),
                )
            ],
        ),
    )
    add(
        "simcore_msgs/msg/SensorMetrics",
        "basic",
        msg(
            "simcore_msgs/msg/SensorMetrics",
            header=header(STAMP, FRAME),
            name="lidar",
            real_update_rate=9.5,
            sim_update_rate=10.0,
            nominal_update_rate=10.0,
        ),
    )
    add(
        "simcore_msgs/msg/EntityFactory",
        "basic",
        msg(
            "simcore_msgs/msg/EntityFactory",
            sdf="<sdf version='1.9'/>",
            sdf_filename="",
            name="box_2",
            pose=pose((1, 2, 0.5), (0, 0, 0, 1)),
            relative_to="",
            allow_renaming=True,
        ),
    )
    return c


# Cases also written big-endian.
BIG_ENDIAN = {
    ("geometry_msgs/msg/Twist", "basic"),
    ("geometry_msgs/msg/TwistStamped", "basic"),
    ("geometry_msgs/msg/PoseStamped", "basic"),
    ("std_msgs/msg/String", "odd"),
    ("sensor_msgs/msg/LaserScan", "one_row"),
    ("tf2_msgs/msg/TFMessage", "two"),
}


def render():
    lines = ["# type\tcase\tCDR hex (written by tools/ros_golden.py with rosbags)"]
    for t, name, m in cases():
        lines.append(f"{t}\t{name}\t{bytes(TS.serialize_cdr(m, t)).hex()}")
        if (t, name) in BIG_ENDIAN:
            be = bytes(TS.serialize_cdr(m, t, little_endian=False)).hex()
            lines.append(f"{t}\t{name}-be\t{be}")
    return "\n".join(lines) + "\n"


def control_cases():
    """(type, case, message, store): cases `v1-*` are of simulation_interfaces 1.x, `v2-*`
    of 2.x."""
    c = []
    srv = "simulation_interfaces/srv/"
    sdf = "<sdf version='1.9'><model name='m'/></sdf>"
    for form, ts in (("v1", TS), ("v2", TS2)):
        M = lambda t, **f: ts.types[t](**f)  # noqa: E731
        stamped = M("geometry_msgs/msg/PoseStamped", header=header(1_500_000_000, "world"),
                    pose=pose((1.0, 2.0, 3.0), (0.0, 0.0, 0.6, 0.8)))
        for case, uri, text in (("text", "", sdf), ("uri", "model://crate", "")):
            fields = ({"uri": uri, "resource_string": text} if form == "v1" else
                      {"entity_resource": M("simulation_interfaces/msg/Resource", uri=uri,
                                            resource_string=text)})
            c.append((srv + "SpawnEntity_Request", f"{form}-{case}",
                      M(srv + "SpawnEntity_Request", name="crate", allow_renaming=True,
                        entity_namespace="", initial_pose=stamped, **fields), ts))
        state = M("simulation_interfaces/msg/EntityState", header=header(0, ""),
                  pose=pose((-1.0, 3.0, 0.25), (0.0, 0.0, 0.6, 0.8)),
                  twist=twist((0.5, 0.0, 0.0), (0.0, 0.0, -0.25)),
                  acceleration=msg("geometry_msgs/msg/Accel", linear=vec(0.0, 0.0, 9.5),
                                   angular=vec(0.0, 0.0, 0.0)))
        flags = {"v1": [("all", {})],
                 "v2": [("pose", {"set_pose": True, "set_twist": False,
                                  "set_acceleration": False}),
                        ("motion", {"set_pose": False, "set_twist": True,
                                    "set_acceleration": True})]}[form]
        for case, f in flags:
            c.append((srv + "SetEntityState_Request", f"{form}-{case}",
                      M(srv + "SetEntityState_Request", entity="pioneer", state=state, **f), ts))
        result = lambda code, text: M("simulation_interfaces/msg/Result", result=code,  # noqa
                                      error_message=text)
        c.append((srv + "SpawnEntity_Response", f"{form}-ok",
                  M(srv + "SpawnEntity_Response", result=result(1, ""), entity_name="crate_1"),
                  ts))
        c.append((srv + "SetEntityState_Response", f"{form}-invalid_pose",
                  M(srv + "SetEntityState_Response", result=result(101, "no rotation")), ts))
    return c


def render_control():
    lines = ["# type\tcase (v1: simulation_interfaces 1.x, v2: 2.x)\tCDR hex (written by "
             "tools/ros_golden.py with rosbags)"]
    for t, name, m, ts in control_cases():
        lines.append(f"{t}\t{name}\t{bytes(ts.serialize_cdr(m, t)).hex()}")
    return "\n".join(lines) + "\n"


GOLDEN = ROOT / "sim-codec/src/golden.tsv"
CONTROL_GOLDEN = ROOT / "sim-zenoh/src/control_golden.tsv"

if __name__ == "__main__":
    files = ((GOLDEN, render()), (CONTROL_GOLDEN, render_control()))
    if sys.argv[1:] == ["--check"]:
        differ = [f.name for f, text in files if f.read_text() != text]
        print(f"{', '.join(differ)} differ from rosbags" if differ else
              "the golden files are what rosbags writes")
        sys.exit(1 if differ else 0)
    for f, text in files:
        f.write_text(text)
