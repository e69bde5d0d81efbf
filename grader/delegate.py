"""`python -m grader.delegate CGROUP --owner USER`, run as root: make a cgroup in the
hierarchies a grader uses and hand it to the user the grader runs as, who then makes its runs'
cgroups there (GRADER_CGROUP_PARENT). The compose file's one-shot `cgroups` service runs it
before the workers start; see docs/grader.md, "Cgroups".
"""

from __future__ import annotations

import argparse
import os
import pwd
import sys
from collections.abc import Sequence

from .cgroups import CgroupUnavailable, delegate
from .config import CGROUPS_ENV


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m grader.delegate",
        description="Hand a cgroup to the user a grader runs as (run as root; docs/grader.md, "
        "'Cgroups').",
    )
    parser.add_argument("cgroup", help="a cgroup path, e.g. /tensorcamp.slice")
    parser.add_argument("--owner", required=True, help="user name or uid the grader runs as")
    args = parser.parse_args(argv)
    try:
        user = (
            pwd.getpwnam(args.owner) if not args.owner.isdigit() else pwd.getpwuid(int(args.owner))
        )
    except KeyError:
        parser.error(f"no such user: {args.owner}")
    try:
        done = delegate(args.cgroup, user.pw_uid, user.pw_gid)
    except (CgroupUnavailable, OSError) as exc:
        # Graders that may go without a cgroup (GRADER_CGROUPS=optional) still start.
        required = os.environ.get(CGROUPS_ENV, "required").strip().lower() in ("", "required")
        print(f"cannot delegate {args.cgroup} to {user.pw_name}: {exc}", file=sys.stderr)
        return 1 if required else 0
    print(f"delegated {args.cgroup} to {user.pw_name} ({user.pw_uid}:{user.pw_gid}): {done}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
