"""simcore batch's Ray driver: one Ray task per run.

`simcore batch --executor ray` starts this with `python -c`, the runs as JSON lines on stdin.
Each task runs the worker program (`simcore batch-worker`, `python -m simcore._worker`) on a
Ray worker, into a temporary folder there, and
returns the run folder's files; this driver writes them under --runs (as
`<id>.partial-<pid>`, renamed when whole) and prints one JSON line per run on stdout:
{"index": i, "ok": true} or {"index": i, "ok": false, "attempts": n, "error": "..."}.
A task whose worker died (the Ray worker killed, the node lost) or whose simcore worker
failed is submitted again, up to --retries more times.
"""

import argparse
import json
import os
import sys

ap = argparse.ArgumentParser()
ap.add_argument("--address", required=True)
ap.add_argument("--worker", required=True)  # JSON: [program, [args...]]
ap.add_argument("--runs", required=True)
ap.add_argument("--retries", type=int, required=True)
ap.add_argument("--jobs", type=int, required=True)
args = ap.parse_args()

try:
    import ray
except ImportError:
    sys.exit(f"simcore batch: {sys.executable} has no `ray` (pip install 'ray[default]')")

STDERR_TAIL = 4096


def run(line, worker, attempt):
    """Runs one run in a worker process; the run folder's files, or why it failed."""
    import subprocess
    import tempfile

    spec = json.loads(line)
    program, worker_args = worker
    with tempfile.TemporaryDirectory(prefix="simcore-run-") as d:
        p = subprocess.run([program, *worker_args, "--runs", d, "--attempt", str(attempt)],
                           input=line.encode(), stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE)
        if p.returncode != 0:
            tail = p.stderr[-STDERR_TAIL:].decode(errors="replace").strip()
            return {"ok": False, "error": f"the worker ended with exit code {p.returncode}: {tail}"}
        folder = os.path.join(d, spec["id"])
        files = {}
        for name in sorted(os.listdir(folder)):
            with open(os.path.join(folder, name), "rb") as f:
                files[name] = f.read()
        return {"ok": True, "files": files}


def write_folder(run_id, files):
    """Writes a run's folder: files created new in a new folder, renamed when whole."""
    partial = os.path.join(args.runs, f"{run_id}.partial-{os.getpid()}")
    done = os.path.join(args.runs, run_id)
    os.mkdir(partial)
    for name, data in files.items():
        if os.sep in name or name in (".", ".."):
            raise ValueError(f"a run returned the file name {name!r}")
        fd = os.open(os.path.join(partial, name),
                     os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o644)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
    os.rename(partial, done)


def say(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def main():
    lines = [line for line in sys.stdin.read().splitlines() if line.strip()]
    ray.init(address=args.address, logging_level="ERROR", log_to_driver=False)
    task = ray.remote(max_retries=0)(run)
    pending = {}  # ObjectRef -> (index, attempt)
    queue = list(enumerate(lines))
    queue.reverse()

    def submit(index, attempt):
        ref = task.remote(lines[index], json.loads(args.worker), attempt)
        pending[ref] = (index, attempt)

    while queue or pending:
        while queue and len(pending) < args.jobs:
            index, _ = queue.pop()
            submit(index, 1)
        ready, _ = ray.wait(list(pending), num_returns=1)
        for ref in ready:
            index, attempt = pending.pop(ref)
            try:
                result = ray.get(ref)
            except Exception as e:  # the worker died, the node was lost
                result = {"ok": False, "error": f"the Ray task failed: {type(e).__name__}: "
                                                f"{str(e).splitlines()[0] if str(e) else ''}"}
            if result["ok"]:
                write_folder(json.loads(lines[index])["id"], result["files"])
                say({"index": index, "ok": True, "attempts": attempt})
            elif attempt <= args.retries:
                print(f"simcore batch: run {index}: attempt {attempt} failed "
                      f"({result['error']}); submitting it again", file=sys.stderr)
                submit(index, attempt + 1)
            else:
                say({"index": index, "ok": False, "attempts": attempt, "error": result["error"]})


main()
