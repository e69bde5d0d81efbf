"""The zygote: a warm interpreter (torch already imported) that forks one keeper per run.

It never runs student code and never sees any: code goes from the host straight to the keeper
it forked, over a socket the zygote only passes along.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import os
import signal
import socket
import sys
from typing import Any, NoReturn

from . import keeper, linux, protocol


def main() -> NoReturn:
    control = socket.socket(fileno=int(sys.argv[1]))
    config, _ = protocol.recv(control)
    if config["isolate"]:
        _finish_sandbox_setup(config)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # keepers are reaped by the kernel
    for name in config["preload"]:
        # Warming is an optimisation: a module this interpreter lacks is simply not warm,
        # and a submission importing it fails the way it would anywhere.
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    if config.get("zygote_setup"):
        exec(compile(config["zygote_setup"], "<grader>", "exec"), {})
    # Keep the garbage collector away from the warm objects so forks share their pages.
    gc.collect()
    gc.freeze()
    huge_pages = linux.collapse_anonymous_memory() if config.get("huge_pages", True) else 0
    protocol.send(control, {**_describe(), "huge_pages": huge_pages})
    while True:
        try:
            message, fds = protocol.recv(control)
        except (EOFError, OSError):
            os._exit(0)
        if message.get("op") == "spawn" and fds:
            _spawn(control, fds[0], fds[1:], config)
        else:
            protocol.close_all(fds)
            if message.get("op") == "stop":
                os._exit(0)


def _spawn(
    control: socket.socket, job_fd: int, cgroup_fds: list[int], config: dict[str, Any]
) -> None:
    pid = os.fork()
    if pid == 0:
        try:
            control.close()
            keeper.keeper_main(socket.socket(fileno=job_fd), cgroup_fds, config)
        finally:
            os._exit(70)
    protocol.close_all([job_fd, *cgroup_fds])


def _finish_sandbox_setup(config: dict[str, Any]) -> None:
    # bubblewrap hides parts of /proc behind read-only binds; the kernel refuses to mount a new
    # procfs in a child user namespace while any procfs is partly hidden, and every run mounts
    # its own. Those parts stay unreachable: writes to them need real root.
    with open("/proc/self/mountinfo") as mountinfo:
        points = [line.split()[4] for line in mountinfo]
    for point in sorted((p for p in points if p.startswith("/proc/")), key=len, reverse=True):
        linux.umount(point, linux.MNT_DETACH)
    uid, gid = config["zygote_uid"], config["zygote_gid"]
    # Locked for good: uid 0 gains nothing by exec, and changing uids changes no capability
    # (they are all dropped explicitly below).
    linux.prctl(linux.PR_SET_SECUREBITS, linux.SECUREBITS_LOCKED_NOROOT)
    if os.getuid() == 0:
        # The grader runs as root and mapped uid 0 (for bubblewrap's setup) and `uid` here.
        os.setgroups([])
        os.setresgid(gid, gid, gid)
        os.setresuid(uid, uid, uid)
    linux.drop_all_capabilities()
    linux.prctl(linux.PR_SET_NO_NEW_PRIVS, 1)
    if os.getuid() != uid:
        raise RuntimeError(f"the zygote runs as uid {os.getuid()}, expected {uid}")


def _describe() -> dict[str, Any]:
    info: dict[str, Any] = {
        "op": "ready",
        "pid": os.getpid(),
        "uid": os.getuid(),
        "threads": len(os.listdir("/proc/self/task")),
        "python": sys.version.split()[0],
    }
    torch = sys.modules.get("torch")
    if torch is not None:
        info["torch"] = getattr(torch, "__version__", "?")
    return info
