"""A controller in the loop: steers the robot of simcore's `worlds/pioneer.sdf` away from the
nearest obstacle its lidar sees, stepping the world from Python (no transport, no other
process). Build the package and the plugins first (see docs/python.md), then, from the
repository's root:

    SIMCORE_PLUGIN_PATH=target/debug python3 examples/python/controller.py [seconds]

Every 0.1 s of sim time it reads the latest scan (a NumPy array over the engine's memory) and
publishes a velocity command: ahead while the way in front is clear, else a turn on the spot.
"""

import sys

import numpy as np

import simcore

CONTROL_PERIOD = 0.1  # s of sim time between commands
duration = float(sys.argv[1]) if len(sys.argv) > 1 else 10.0

with simcore.Simulation("worlds/pioneer.sdf", seed=1) as sim:
    scan_topic = next(t for t in sim.topics() if t.endswith("/scan"))
    steps = round(CONTROL_PERIOD / sim.step_size)
    while sim.time < duration:
        sim.step(steps)
        scan = sim.read(scan_topic)
        if scan is None:
            continue
        ranges = np.where(np.isfinite(scan.array), scan.array, scan["range_max"])
        # The scan runs from behind on the right to behind on the left: the middle
        # quarter looks ahead.
        n = ranges.size
        ahead = float(ranges[3 * n // 8 : 5 * n // 8].min())
        clear = ahead > 1.2
        command = {
            "type": "Twist",
            "linear": {"x": 0.6 if clear else 0.0},
            "angular": {"z": 0.0 if clear else 0.8},
        }
        sim.publish("/model/pioneer/cmd_vel", command)
        x, y, _ = sim.get_state("pioneer")["pose"]
        print(f"t={sim.time:5.1f} s  clear ahead {ahead:5.2f} m  at ({x:6.2f}, {y:6.2f})")
