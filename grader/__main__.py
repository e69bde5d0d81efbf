"""Command line: `python -m grader check` and `python -m grader run FILE [--device cpu]`."""

from __future__ import annotations

import argparse
import json
import logging
import sys

from .config import GraderConfig
from .contract import Limits
from .service import Grader

SELF_TEST = """import torch
device = "cuda" if torch.cuda.is_available() else "cpu"
x = torch.ones(2, 3).to(device)
print((x * 3).cpu().tolist())
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m grader", description=__doc__)
    parser.add_argument("-v", "--verbose", action="store_true", help="log what the grader does")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("check", help="detect devices and run a self-test on each")
    run = commands.add_parser("run", help="run a file in the sandbox and print the Run as JSON")
    run.add_argument("file")
    run.add_argument("--device", default="cpu")
    run.add_argument("--wall-time", type=float, default=Limits().wall_time_s)
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )
    with Grader(GraderConfig()) as grader:
        if args.command == "check":
            return _check(grader)
        with open(args.file, encoding="utf-8") as handle:
            code = handle.read()
        limits = Limits(wall_time_s=args.wall_time)
        result = grader.run(code, device=args.device, limits=limits)
        print(json.dumps(result.model_dump(), indent=2, ensure_ascii=False))
        return 0 if result.verdict == "passed" else 1


def _check(grader: Grader) -> int:
    print(f"sandbox: {'OFF (unsafe dev mode)' if grader.config.unsafe_dev_mode else 'on'}")
    cgroups = grader.cgroups
    print(
        f"cgroup per run: v{cgroups.version}"
        if cgroups is not None
        else f"cgroup per run: none (GRADER_CGROUPS={grader.config.cgroups})"
    )
    print(f"devices: {', '.join(grader.devices)}")
    for device, problem in grader.problems.items():
        print(f"  {device}: unavailable or failing: {problem}")
    healthy = True
    for device in grader.devices:
        run = grader.run(SELF_TEST, device=device)
        print(f"self-test on {device}: {run.verdict} in {run.duration_ms} ms {run.stdout.strip()}")
        if run.verdict != "passed":
            healthy = False
            print(f"  {run.detail or ''}\n  {run.stderr.strip()}")
    return 0 if healthy else 1


if __name__ == "__main__":
    sys.exit(main())
