"""The scripts of examples/python, run as their docstrings say (from the repository's root,
SIMCORE_PLUGIN_PATH naming the plugins), shortened where they take an argument for it: the
examples the docs point at must run as written."""

import os
import socket
import subprocess
import sys
import time

from conftest import ROOT, plugin_dir

EXAMPLES = ROOT / "examples" / "python"


def run_example(name, *args, timeout=300):
    env = dict(os.environ, SIMCORE_PLUGIN_PATH=str(plugin_dir()))
    out = subprocess.run(
        [sys.executable, str(EXAMPLES / name), *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert out.returncode == 0, f"{name}: {out.returncode}\n{out.stdout}\n{out.stderr}"
    return out.stdout


def test_the_controller_steers_from_the_scans():
    lines = [line for line in run_example("controller.py", "1.0").splitlines() if line.startswith("t=")]
    # A command every 0.1 s of sim time, each after a scan.
    assert len(lines) >= 8, lines
    assert "clear ahead" in lines[-1]


def test_the_gym_rollout_runs_four_worlds():
    out = run_example("gym_rollout.py")
    assert "returns per world:" in out
    positions = out.split("final positions:")[1]
    assert positions.count("[") == 5, out  # four worlds, each (x, y)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_the_zenoh_client_reads_and_drives_a_run():
    endpoint = f"tcp/127.0.0.1:{free_port()}"
    simcore = plugin_dir() / "simcore"
    run = subprocess.Popen(
        [str(simcore), "run", "worlds/pioneer.sdf", "--duration", "120", "--rtf", "1",
         "--zenoh-listen", endpoint, "--plugin-path", str(plugin_dir())],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        # The client connects to the run's endpoint: wait for it to listen.
        host, port = endpoint[4:].split(":")
        deadline = time.time() + 60
        while True:
            try:
                socket.create_connection((host, int(port)), timeout=1).close()
                break
            except OSError:
                assert time.time() < deadline, "the run never listened"
                time.sleep(0.2)
        out = run_example("pioneer.py", endpoint, timeout=120)
        assert out.count("nearest") >= 3, out
        assert "drove forward for 2 s, then stopped" in out
    finally:
        run.terminate()
        run.wait(timeout=60)


def test_the_dataset_frames_agree_with_their_labels(tmp_path):
    import json

    import numpy as np

    runs = []
    for out in [tmp_path / "a", tmp_path / "b"]:
        stdout = run_example("dataset.py", "3", str(out))
        assert "wrote 3 frames" in stdout
        runs.append(json.loads((out / "labels.json").read_text()))
    assert runs[0] == runs[1], "the same seed, the same frames"
    seen = set()
    for f in runs[0]["frames"]:
        a, b = (np.load(tmp_path / d / f["file"]) for d in "ab")
        assert np.array_equal(a["image"], b["image"]) and np.array_equal(a["labels"], b["labels"])
        image, labels = a["image"], a["labels"]
        assert image.shape == (240, 320, 3) and labels.shape == (240, 320)
        assert set(np.unique(labels)) <= {0, 1, 2, 3}
        assert f["boxes"], "objects in view"
        for box in f["boxes"]:
            x0, y0, x1, y1 = (int(v) for v in box["box"])
            inside = labels[y0:y1 + 1, x0:x1 + 1]
            # The box spans its object's pixels: they touch all four of its edges.
            mask = inside == box["class"]
            assert mask[0].any() and mask[-1].any() and mask[:, 0].any() and mask[:, -1].any(), box
            seen.add(box["class"])
    assert seen == {1, 2, 3}, seen
