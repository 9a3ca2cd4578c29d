"""Reads the lidar of simcore's `worlds/pioneer.sdf` and drives the robot, as any ROS 2 node on
rmw_zenoh would, with plain `eclipse-zenoh` and `rosbags`, in a virtual environment:

    python3 -m venv .venv && .venv/bin/pip install eclipse-zenoh==1.10.2 rosbags==0.11.9
    target/debug/simcore run worlds/pioneer.sdf &
    .venv/bin/python3 examples/python/pioneer.py [tcp/localhost:7447]

It prints the nearest obstacle of a few scans, then drives forward for two seconds.
"""

import struct
import sys
import time

import zenoh
from rosbags.typesys import Stores, get_typestore

ts = get_typestore(Stores.ROS2_JAZZY)
DOMAIN = 0


def key(topic, ros_type):
    """rmw_zenoh's data key: <domain>/<topic>/<pkg>::msg::dds_::<Type>_/<RIHS01 hash>."""
    pkg, _, name = ros_type.split("/")
    return f"{DOMAIN}/{topic.strip('/')}/{pkg}::msg::dds_::{name}_/{ts.hash_rihs01(ros_type)}"


def attachment(seq):
    """rmw_zenoh's attachment: sequence number, source time, and a 16-byte publisher id."""
    return struct.pack("<qqB", seq, time.time_ns(), 16) + bytes(16)


conf = zenoh.Config()
conf.insert_json5("mode", '"peer"')
conf.insert_json5("connect/endpoints", f'["{sys.argv[1] if len(sys.argv) > 1 else "tcp/localhost:7447"}"]')
conf.insert_json5("scouting/multicast/enabled", "false")
session = zenoh.open(conf)

SCAN = "/world/pioneer/model/pioneer/link/chassis/sensor/lidar/scan"
CMD_VEL = "/model/pioneer/cmd_vel"

scans = []


def on_scan(sample):
    scan = ts.deserialize_cdr(sample.payload.to_bytes(), "sensor_msgs/msg/LaserScan")
    scans.append(scan)
    near = min(range(len(scan.ranges)), key=lambda i: scan.ranges[i])
    angle = scan.angle_min + near * scan.angle_increment
    print(
        f"t = {scan.header.stamp.sec}.{scan.header.stamp.nanosec:09d}: nearest "
        f"{scan.ranges[near]:.2f} m at {angle:+.2f} rad ({len(scan.ranges)} rays)"
    )


sub = session.declare_subscriber(key(SCAN, "sensor_msgs/msg/LaserScan"), on_scan)
deadline = time.time() + 10
while len(scans) < 3 and time.time() < deadline:
    time.sleep(0.05)
sub.undeclare()

Twist = ts.types["geometry_msgs/msg/Twist"]
Vector3 = ts.types["geometry_msgs/msg/Vector3"]
pub = session.declare_publisher(key(CMD_VEL, "geometry_msgs/msg/Twist"))
for seq, x in enumerate([0.5] * 20 + [0.0], start=1):
    twist = Twist(linear=Vector3(x=x, y=0.0, z=0.0), angular=Vector3(x=0.0, y=0.0, z=0.3 * (x > 0)))
    pub.put(bytes(ts.serialize_cdr(twist, "geometry_msgs/msg/Twist")), attachment=attachment(seq))
    time.sleep(0.1)
print("drove forward for 2 s, then stopped")
session.close()
