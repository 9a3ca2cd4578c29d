"""The worker of ``simcore.batch``: ``python -m simcore._worker --runs DIR --attempt N``
reads one run (JSON) on stdin and writes its folder under DIR."""

import argparse
import sys

from ._simcore import SimError, batch_work


def main() -> int:
    ap = argparse.ArgumentParser(prog="python -m simcore._worker")
    ap.add_argument("--runs", required=True)
    ap.add_argument("--attempt", type=int, default=1)
    a = ap.parse_args()
    try:
        batch_work(a.runs, a.attempt)
    except SimError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
