"""`python -m soak [--minutes M] …` (`make soak`, `make soak SOAK="--minutes 10"`): prints the table, writes
soak.json in the data dir, and exits 1 when a goal is not met."""

from __future__ import annotations

import asyncio
import sys

from bench.processes import exit_now
from soak.options import parse
from soak.runner import soak


def main() -> int:
    options = parse(sys.argv[1:])
    print(f"soak: data dir {options.data_dir.resolve()}; starting the processes", flush=True)
    result = asyncio.run(soak(options))
    print(result.table, flush=True)
    print(f"soak: details in {result.json_path}; logs in {result.json_path.parent / 'logs'}", flush=True)
    return 0 if result.passed else 1


if __name__ == "__main__":
    exit_now(main())
