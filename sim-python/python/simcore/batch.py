"""Sweeps from Python: the runs of a sweep file (docs/batch.md) on a local pool of worker
processes or as Ray tasks, each written to its own folder, with a summary table.

>>> import simcore.batch
>>> rows = simcore.batch.run("sweep.toml", "results", jobs=4)
>>> [r["status"] for r in rows]

It runs the engine's executors, as ``simcore batch`` does; each worker is
``python -m simcore._worker`` (so on Ray, every worker node needs this package), and a run
writes the same files as under ``simcore batch``.
"""

from __future__ import annotations

import os
from typing import Any

from ._simcore import BatchError, run_batch

__all__ = ["BatchError", "run"]


def run(
    sweep: str | os.PathLike[str],
    out: str | os.PathLike[str] | None = None,
    *,
    jobs: int | None = None,
    executor: str = "local",
    address: str = "auto",
    python: str | os.PathLike[str] | None = None,
    progress: bool = True,
) -> list[dict[str, Any]]:
    """Runs every run of the sweep file ``sweep`` into ``out`` (new or empty; default
    ``batch-<name>``): ``out/runs/<id>/metrics.json`` (and ``run.mcap`` when the sweep records),
    ``out/summary.csv`` and ``out/summary.parquet``. ``jobs`` runs at once (default: the CPUs);
    ``executor`` is ``"local"`` or ``"ray"`` (``address`` the cluster's, ``python`` the
    interpreter of the Ray driver, default this one). With ``progress``, a line per finished
    run goes to stderr. Returns the metrics of the finished runs, in run order.

    Raises ``BatchError`` for a sweep file refused (its file and line) or a batch that could
    not run; a run that fails is a row with its status and error, not an exception.
    KeyboardInterrupt stops the batch: the finished runs and their summary stay, then it is
    raised again."""
    return run_batch(
        os.fspath(sweep),
        None if out is None else os.fspath(out),
        jobs=jobs,
        executor=executor,
        address=address,
        python=None if python is None else os.fspath(python),
        progress=progress,
    )
