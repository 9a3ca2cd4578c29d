"""Many runs, measured (`cargo xtask bench`, after the criterion benchmarks; release builds):

- Python stepping a world vs `simcore run --rtf 0` on the same world and steps;
- reading a 640 x 480 image and an 1800 x 16 scan from Python: no copy, and the time a read
  takes;
- a vector of 8 worlds stepped on 2 threads (`simcore.step_all`) vs the 8 one after another;
- a batch of 200 one-second runs on the local pool vs as Ray tasks on a local Ray cluster: the
  wall time each run costs more on Ray.

Every figure is a ratio or a difference of two things timed in this run, on this machine; each
pair is timed alternately, and the median of the pairs is given. Prints a Markdown table and
appends it to --out.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import simcore
import simcore.batch

ap = argparse.ArgumentParser()
ap.add_argument("--root", required=True, help="the repository")
ap.add_argument("--plugins", required=True, help="the release plugin libraries")
ap.add_argument("--simcore", required=True, help="the release simcore executable")
ap.add_argument("--out", required=True, help="the results file to append to")
ap.add_argument("--pairs", type=int, default=5)
ap.add_argument("--batch-runs", type=int, default=200)
a = ap.parse_args()

ROOT = Path(a.root).resolve()
a.plugins = str(Path(a.plugins).resolve())
a.simcore = str(Path(a.simcore).resolve())
WORLDS = ROOT / "worlds"
rows = []


def median_pairs(first, second, pairs):
    """Times `first` and `second` alternately `pairs` times; the medians of each."""
    t1, t2 = [], []
    for _ in range(pairs):
        s = time.perf_counter()
        first()
        t1.append(time.perf_counter() - s)
        s = time.perf_counter()
        second()
        t2.append(time.perf_counter() - s)
    return statistics.median(t1), statistics.median(t2)


# 1. Python stepping vs the command line, loading included in both.
STEPS = 30000
world = WORLDS / "pioneer.sdf"


def cli_run():
    subprocess.run([a.simcore, "run", str(world), "--rtf", "0", "--steps", str(STEPS),
                    "--no-transport", "--plugin-path", a.plugins, "--threads", "1"],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def python_run():
    with simcore.Simulation(world, plugin_path=[a.plugins], threads=1) as sim:
        sim.step(STEPS)


python_run()  # warm the file cache and the loader
t_py, t_cli = median_pairs(python_run, cli_run, a.pairs)
rows.append(("Python `step` vs `simcore run --rtf 0` (pioneer.sdf, 30,000 steps, load included)",
             f"{t_py:.3f} s vs {t_cli:.3f} s", f"{(t_py / t_cli - 1) * 100:+.1f} %", "within 5 %"))

# 2. Reads without copies.
HEAD = "world/model[mast]/link[head]"
big = {
    f"{HEAD}/sensor[camera]/camera/image/width": 640,
    f"{HEAD}/sensor[camera]/camera/image/height": 480,
    f"{HEAD}/sensor[camera]/camera/save/@enabled": False,
    f"{HEAD}/sensor[lidar]/lidar/scan/horizontal/samples": 1800,
    f"{HEAD}/sensor[lidar]/lidar/scan/vertical/samples": 16,
}
with simcore.Simulation(WORLDS / "sensors_demo.sdf", plugin_path=[a.plugins],
                        overrides=big) as sim:
    sim.step(1)
    topics = sim.topics()
    image_topic = next(t for t in topics if t.endswith("/camera/image"))
    scan_topic = next(t for t in topics if t.endswith("/lidar/scan"))
    for topic, what in [(image_topic, "640 x 480 image"), (scan_topic, "1800 x 16 scan")]:
        m1, m2 = sim.read(topic), sim.read(topic)
        x1, x2 = m1.array, m2.array
        assert x1.size in (640 * 480 * 3, 1800 * 16), x1.shape
        shared = (not x1.flags.owndata and np.shares_memory(x1, x2)
                  and x1.__array_interface__["data"][0] == x2.__array_interface__["data"][0])
        n = 20000
        s = time.perf_counter()
        for _ in range(n):
            sim.read(topic).array
        per = (time.perf_counter() - s) / n * 1e6
        rows.append((f"`read(topic).array` of a {what}, per read",
                     f"{x1.nbytes:,} bytes, {'no copy (the same memory twice)' if shared else 'COPIED'}",
                     f"{per:.2f} µs", "no copy, < 2 µs"))

# 3. A vector of 8 worlds on 2 threads vs one after another.
VEC_STEPS = 3000


def worlds8():
    return [simcore.Simulation(WORLDS / "diff_drive.sdf", plugin_path=[a.plugins], seed=i)
            for i in range(8)]


def sequential():
    sims = worlds8()
    s = time.perf_counter()
    for sim in sims:
        sim.step(VEC_STEPS)
    t = time.perf_counter() - s
    for sim in sims:
        sim.close()
    return t


def threaded():
    sims = worlds8()
    s = time.perf_counter()
    simcore.step_all(sims, VEC_STEPS, threads=2)
    t = time.perf_counter() - s
    for sim in sims:
        sim.close()
    return t


seq, thr = [], []
for _ in range(a.pairs):
    seq.append(sequential())
    thr.append(threaded())
t_seq, t_thr = statistics.median(seq), statistics.median(thr)
rows.append(("8 worlds (diff_drive.sdf, 3,000 steps each) on 2 threads vs one after another",
             f"{t_thr:.3f} s vs {t_seq:.3f} s", f"{t_seq / t_thr:.2f}x", "≥ 1.8x"))

# 4. A batch of one-second runs: local pool vs Ray on this machine.
ray = Path(sys.executable).parent / "ray"
with tempfile.TemporaryDirectory() as d:
    d = Path(d)
    sweep = d / "sweep.toml"
    sweep.write_text(
        f'worlds = ["{WORLDS / "imu_drop.sdf"}"]\n'
        f"seeds = {{ first = 0, count = {a.batch_runs} }}\n"
        f'duration = 1.0\nplugin_path = ["{a.plugins}"]\n')
    jobs = str(os.cpu_count() or 1)

    def batch(out, *extra):
        s = time.perf_counter()
        p = subprocess.run([a.simcore, "batch", str(sweep), "--out", str(out), "--jobs", jobs,
                            *extra], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if p.returncode != 0:
            raise SystemExit(f"simcore batch failed: {p.stderr[-2000:]}")
        return time.perf_counter() - s

    t_local = batch(d / "local")
    if ray.exists():
        port = "6391"
        subprocess.run([ray, "start", "--head", f"--port={port}", "--include-dashboard=false",
                        "--disable-usage-stats", "--node-ip-address=127.0.0.1"],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            t_ray = batch(d / "ray", "--executor", "ray", "--address", f"127.0.0.1:{port}",
                          "--python", sys.executable)
        finally:
            subprocess.run([ray, "stop", "--force"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
        same = all((d / "local" / "runs" / f"r{i:05}" / "metrics.json").read_bytes()
                   == (d / "ray" / "runs" / f"r{i:05}" / "metrics.json").read_bytes()
                   for i in range(a.batch_runs))
        per = (t_ray - t_local) / a.batch_runs * 1e3
        rows.append((f"batch of {a.batch_runs} one-second runs (imu_drop.sdf, {jobs} at once): "
                     "Ray vs the local pool, per run",
                     f"{t_ray:.1f} s vs {t_local:.1f} s, files {'identical' if same else 'DIFFER'}",
                     f"{per:+.0f} ms", "≤ +50 ms"))
    else:
        rows.append(("batch on Ray", "no `ray` in this Python", "-", "≤ +50 ms"))

table = ["| many runs | measured | figure | goal |", "|---|---|---|---|"]
table += [f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} |" for r in rows]
text = "\n".join(table) + "\n"
print(text)
with open(a.out, "a") as f:
    f.write("\n" + text)
