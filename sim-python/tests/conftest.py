"""Shared fixtures: the repository's worlds and the plugin libraries `cargo build` made.

The plugin directory is SIMCORE_TEST_PLUGIN_DIR (set by `cargo xtask test`), else the
workspace's target/debug (CARGO_TARGET_DIR's when set).
"""

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WORLDS = ROOT / "worlds"

IMU_TOPIC = "/world/imu_drop/model/box/link/body/sensor/imu/imu"
HEAD = "world/model[mast]/link[head]"

# sensors_demo.sdf made quick to step in a debug build: small images and scans, and the
# camera's frames not saved.
SMALL_SENSORS = {
    f"{HEAD}/sensor[camera]/camera/image/width": 64,
    f"{HEAD}/sensor[camera]/camera/image/height": 48,
    f"{HEAD}/sensor[camera]/camera/save/@enabled": False,
    f"{HEAD}/sensor[depth]/camera/image/width": 40,
    f"{HEAD}/sensor[depth]/camera/image/height": 30,
    f"{HEAD}/sensor[lidar]/lidar/scan/horizontal/samples": 90,
    f"{HEAD}/sensor[lidar]/lidar/scan/vertical/samples": 4,
}


def plugin_dir() -> Path:
    env = os.environ.get("SIMCORE_TEST_PLUGIN_DIR")
    if env:
        return Path(env)
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    return target / "debug"


@pytest.fixture(scope="session")
def plugins() -> list[str]:
    d = plugin_dir()
    if not any(d.glob("*simcore_plugin_imu*")):
        pytest.fail(f"no plugin libraries in {d}: build them with `cargo build` first")
    return [str(d)]


@pytest.fixture
def world():
    """The path of a world of the repository, by file name."""
    return lambda name: WORLDS / name
