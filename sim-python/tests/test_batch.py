"""simcore.batch: a sweep run from Python writes the files `simcore batch` writes."""

import os
import subprocess
from pathlib import Path

import pytest

import simcore
import simcore.batch

from conftest import IMU_TOPIC, ROOT, WORLDS, plugin_dir

SWEEP = """
worlds = ["{world}"]
seeds = [1, 2]
duration = 0.5
plugin_path = ["{plugins}"]

[[override]]
path = "world/model[box]/pose"
values = ["0 0 0.5 0 0 0", "0 0 4 0 0 0"]

[[check]]
name = "landed"
model = "box"
within = 0.06
of = [0, 0, 0.1]

[[check]]
name = "imu"
topic = "{imu}"
at_least = 40
"""


def simcore_exe() -> Path:
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    return target / "debug" / "simcore"


@pytest.fixture
def sweep(tmp_path):
    f = tmp_path / "sweep.toml"
    f.write_text(SWEEP.format(world=WORLDS / "imu_drop.sdf", plugins=plugin_dir(), imu=IMU_TOPIC))
    return f


def files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_a_sweep_from_python_writes_what_the_command_line_writes(sweep, tmp_path):
    rows = simcore.batch.run(sweep, tmp_path / "py", jobs=2, progress=False)
    assert [(r["run"], r["seed"], r["status"]) for r in rows] == [
        ("r00000", 1, "passed"), ("r00001", 1, "failed"),
        ("r00002", 2, "passed"), ("r00003", 2, "failed"),
    ]
    assert rows[1]["checks"][0]["passed"] is False and rows[1]["checks"][1]["passed"] is True
    assert rows[0]["overrides"] == {"world/model[box]/pose": "0 0 0.5 0 0 0"}
    exe = simcore_exe()
    if not exe.exists():
        pytest.skip("the simcore executable is not built")
    p = subprocess.run([exe, "batch", str(sweep), "--out", str(tmp_path / "cli"), "--jobs", "1"],
                       capture_output=True, text=True)
    assert p.returncode == 1, p.stderr
    py, cli = files(tmp_path / "py"), files(tmp_path / "cli")
    assert py.keys() == cli.keys()
    for name in py:
        assert py[name] == cli[name], name


def test_a_bad_sweep_raises_with_its_line(sweep, tmp_path):
    f = tmp_path / "bad.toml"
    f.write_text(f'worlds = ["{WORLDS / "imu_drop.sdf"}"]\nduration = -1\n')
    with pytest.raises(simcore.BatchError, match=r"bad.toml:2: `duration`"):
        simcore.batch.run(f, tmp_path / "out", progress=False)
    assert not (tmp_path / "out").exists()
    with pytest.raises(simcore.BatchError, match="executor `slurm`"):
        simcore.batch.run(sweep, tmp_path / "out", executor="slurm")
