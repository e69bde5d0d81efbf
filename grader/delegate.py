"""`python -m grader.delegate CGROUP --owner USER`, run as root: make a cgroup in the
hierarchies a grader uses and hand it to the user the grader runs as, who then makes its runs'
cgroups there (GRADER_CGROUP_PARENT). CGROUP `..` is the parent of this process's own cgroup:
the compose file's one-shot `cgroups` service, started in the workers' `cgroup_parent`, runs
`python -m grader.delegate .. --owner grader` before they start; see docs/grader.md, "Cgroups".
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
    parser.add_argument(
        "cgroup", help="a cgroup path, e.g. /tensorcamp.slice, or .. (this cgroup's parent)"
    )
    parser.add_argument(
        "--owner", required=True, help="the user the grader runs as: a name, or UID[:GID]"
    )
    args = parser.parse_args(argv)
    uid, _, gid = args.owner.partition(":")
    if uid.isdigit() and (gid.isdigit() or not gid):
        # Numeric: the grader's user need not exist here (a host outside the container).
        name, uid_n, gid_n = args.owner, int(uid), int(gid or uid)
    else:
        try:
            user = pwd.getpwnam(args.owner)
        except KeyError:
            parser.error(f"no such user: {args.owner}")
        name, uid_n, gid_n = user.pw_name, user.pw_uid, user.pw_gid
    try:
        done = delegate(args.cgroup, uid_n, gid_n)
    except (CgroupUnavailable, OSError) as exc:
        # Graders that may go without a cgroup (GRADER_CGROUPS=optional) still start.
        required = os.environ.get(CGROUPS_ENV, "required").strip().lower() in ("", "required")
        print(f"cannot delegate {args.cgroup} to {name}: {exc}", file=sys.stderr)
        return 1 if required else 0
    print(f"delegated {args.cgroup} to {name} ({uid_n}:{gid_n}): {done}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
