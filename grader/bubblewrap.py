"""The bubblewrap command line that starts a zygote in its sandbox.

The zygote's sandbox holds only read-only views of the interpreter and the system libraries;
each run then adds its own namespaces and scratch space from inside (see `inside/keeper.py`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field

from .interpreter import Interpreter, inside_any, masks_for, outermost

INSIDE_MOUNT = "/opt/grader/inside"
RUN_UID = 1000  # the student's uid inside each run, and the zygote's where it can be mapped
SANDBOX_DIRS = ("/sandbox", "/tmp", "/run/grader-scratch")
# Mounted afresh in every run, so nothing from the host can be shown there.
RUN_OWNED_DIRS = (*SANDBOX_DIRS, "/dev", "/proc", "/run")
_TOP_LEVEL = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
_ETC = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives")
_PASSWD = (
    "root:x:0:0:root:/nonexistent:/usr/sbin/nologin\n"
    f"student:x:{RUN_UID}:{RUN_UID}:student:/sandbox:/usr/sbin/nologin\n"
    "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"
)
_GROUP = f"root:x:0:\nstudent:x:{RUN_UID}:\nnogroup:x:65534:\n"

# Loads the sandbox-side package by path: the rest of `grader` is not visible in the sandbox.
BOOTSTRAP = """
import importlib.util, sys
root = sys.argv[2]
spec = importlib.util.spec_from_file_location(
    "grader_inside", root + "/__init__.py", submodule_search_locations=[root])
module = importlib.util.module_from_spec(spec)
sys.modules["grader_inside"] = module
spec.loader.exec_module(module)
from grader_inside.zygote import main
main()
"""


@dataclass
class SandboxCommand:
    argv: list[str]
    pass_fds: list[int]
    # Read ends of pipes carrying file contents; the caller fills and closes `data_writers`.
    data_writers: list[tuple[int, bytes]] = field(default_factory=list)


def base_env(python: str, extra: Mapping[str, str]) -> dict[str, str]:
    env = {
        "PATH": f"{os.path.dirname(python)}:/usr/local/bin:/usr/bin:/bin",
        "HOME": "/sandbox",
        "TMPDIR": "/tmp",
        "LANG": "C.UTF-8",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "NUMEXPR_NUM_THREADS": "1",
        "MALLOC_ARENA_MAX": "2",
        "MPLBACKEND": "Agg",
    }
    env.update(extra)
    return env


def build_command(
    *,
    bwrap: str,
    interpreter: Interpreter,
    inside_dir: str,
    env: Mapping[str, str],
    dev_nodes: tuple[str, ...],
    ro_paths: list[str],
    hidden: list[str],
    control_fd: int,
    userns_fds: tuple[int, int] | None,
) -> SandboxCommand:
    """`userns_fds` (info, block) lets the caller write the uid map itself (when it is root)."""
    argv = [bwrap, "--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-net"]
    argv += ["--unshare-uts", "--unshare-cgroup-try", "--die-with-parent", "--new-session"]
    pass_fds = [control_fd]
    if userns_fds is not None:
        info_fd, block_fd = userns_fds
        argv += ["--info-fd", str(info_fd), "--userns-block-fd", str(block_fd)]
        pass_fds += [info_fd, block_fd]
    else:
        argv += ["--uid", str(RUN_UID), "--gid", str(RUN_UID)]
    # The zygote needs them for a moment (see inside/zygote.py) and drops them all.
    argv += ["--cap-add", "ALL", "--clearenv"]
    for key, value in env.items():
        argv += ["--setenv", key, value]

    binds = ["/usr", *interpreter.dirs]
    argv += ["--ro-bind", "/usr", "/usr"]
    for top in _TOP_LEVEL:
        if os.path.islink(top):
            argv += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            argv += ["--ro-bind", top, top]
            binds.append(top)
    argv += ["--perms", "0755", "--dir", "/etc", "--perms", "0755", "--dir", "/run"]
    for path in _ETC:
        argv += ["--ro-bind-try", path, path]
    command = SandboxCommand(argv=argv, pass_fds=pass_fds)
    for target, content in (("/etc/passwd", _PASSWD), ("/etc/group", _GROUP)):
        reader, writer = os.pipe()
        command.data_writers.append((writer, content.encode()))
        command.pass_fds.append(reader)
        argv += ["--perms", "0444", "--ro-bind-data", str(reader), target]

    extra = [path for path in outermost(list(ro_paths)) if not inside_any(path, binds)]
    # Without this bubblewrap creates the parents of mount points with mode 0700.
    mounted = [*interpreter.dirs, INSIDE_MOUNT, *extra]
    ancestors = {a for p in mounted for a in _ancestors(p)[:-1] if not inside_any(a, binds)}
    for ancestor in sorted(ancestors):
        argv += ["--perms", "0755", "--dir", ancestor]
    for directory in interpreter.dirs:
        argv += ["--ro-bind", directory, directory]
    argv += ["--ro-bind", inside_dir, INSIDE_MOUNT]
    for path in extra:
        argv += ["--ro-bind-try", path, path]
    for mask in masks_for([*binds, *extra], hidden):
        argv += ["--tmpfs", mask, "--remount-ro", mask]

    argv += ["--dev", "/dev"]
    for node in dev_nodes:
        argv += ["--dev-bind", node, node]
    argv += ["--proc", "/proc"]
    for directory in SANDBOX_DIRS:
        argv += ["--perms", "0755", "--dir", directory]
    # Nothing the zygote's runs share may be writable: that would be a channel between them.
    argv += ["--remount-ro", "/dev", "--remount-ro", "/", "--chdir", "/"]
    argv += ["--", interpreter.executable, "-I", "-B", "-c", BOOTSTRAP, str(control_fd)]
    argv.append(INSIDE_MOUNT)
    return command


def _ancestors(path: str) -> list[str]:
    parts = [part for part in path.split("/") if part]
    return ["/" + "/".join(parts[: index + 1]) for index in range(len(parts))]
