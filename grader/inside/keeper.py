"""The keeper: one per run. It builds the run's namespaces, forks the student process into them,
enforces the wall-time and (for accelerator runs) the resident-memory bound, and reports how the
student process ended. It never runs student code, and the student process cannot see it: the
keeper lives outside the run's pid namespace.
"""

from __future__ import annotations

import contextlib
import os
import select
import shutil
import signal
import socket
import tempfile
import time
import traceback
from typing import Any, NoReturn

from . import linux, protocol, runner

READY_TIMEOUT_S = 300.0
STARTED_TIMEOUT_S = 60.0
MEMORY_POLL_S = 0.05
SCRATCH_ROOT = "/run/grader-scratch"


def keeper_main(job_sock: socket.socket, cgroup_fds: list[int], config: dict[str, Any]) -> NoReturn:
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    linux.prctl(linux.PR_SET_PDEATHSIG, signal.SIGKILL)
    scratch = None
    try:
        scratch = _isolate(config)
    except BaseException as exc:
        where = traceback.extract_tb(exc.__traceback__)[-1]
        _fail(job_sock, f"could not isolate the run ({where.line}): {type(exc).__name__}: {exc}")
    parent_end, child_end = socket.socketpair()
    pid = os.fork()
    if pid == 0:
        parent_end.close()
        job_sock.close()
        protocol.close_all(cgroup_fds)
        runner.student_main(child_end, config, scratch)
    child_end.close()
    try:
        _place(job_sock, parent_end, pid, cgroup_fds)
        _serve(job_sock, parent_end, pid, config, scratch)
    finally:
        _kill(pid)
        if not config["isolate"]:
            shutil.rmtree(scratch, ignore_errors=True)
    os._exit(0)


def _isolate(config: dict[str, Any]) -> str:
    if not config["isolate"]:
        return tempfile.mkdtemp(prefix="grader-run-")
    uid, gid = os.geteuid(), os.getegid()
    # setuid() in the zygote made us non-dumpable, which would make /proc/self root-owned.
    linux.prctl(linux.PR_SET_DUMPABLE, 1)
    # The cgroup namespace comes later, from the student process once it sits in its own
    # cgroup (cgroup v2 allows a move only within the mover's cgroup namespace).
    linux.unshare(
        linux.CLONE_NEWUSER
        | linux.CLONE_NEWNS
        | linux.CLONE_NEWPID
        | linux.CLONE_NEWIPC
        | linux.CLONE_NEWNET
        | linux.CLONE_NEWUTS
    )
    inner = config["run_uid"]
    linux.write_file("/proc/self/setgroups", "deny")
    linux.write_file("/proc/self/uid_map", f"{inner} {uid} 1")
    linux.write_file("/proc/self/gid_map", f"{inner} {gid} 1")
    linux.mount(None, "/", None, linux.MS_REC | linux.MS_PRIVATE, None)
    _mount_scratch(config["scratch_mb"], config.get("keep_under_tmp", []))
    # A pseudo-terminal instance of its own: the zygote's is shared by all its runs.
    linux.mount("devpts", "/dev/pts", "devpts", linux.MS_NOSUID | linux.MS_NOEXEC,
                "newinstance,ptmxmode=0666,mode=0620")  # fmt: skip
    return "/sandbox"


def _mount_scratch(size_mb: int, keep_under_tmp: list[str]) -> None:
    """One size-capped tmpfs shared by /sandbox, /tmp and /dev/shm, so the cap covers all three.
    `keep_under_tmp`: read-only directories that live under /tmp and must stay visible."""
    flags = linux.MS_NOSUID | linux.MS_NODEV
    linux.mount("tmpfs", SCRATCH_ROOT, "tmpfs", flags, f"size={size_mb}m,nr_inodes=16384,mode=0755")
    staged = []
    for index, path in enumerate(keep_under_tmp):
        stage = f"{SCRATCH_ROOT}/keep-{index}"
        os.mkdir(stage)
        linux.mount(path, stage, None, linux.MS_BIND | linux.MS_REC, None)
        staged.append((stage, path))
    for name, target, mode in (
        ("sandbox", "/sandbox", 0o755),
        ("tmp", "/tmp", 0o1777),
        ("shm", "/dev/shm", 0o1777),
    ):
        path = f"{SCRATCH_ROOT}/{name}"
        os.mkdir(path)
        os.chmod(path, mode)
        linux.mount(path, target, None, linux.MS_BIND | flags, None)
    for stage, path in staged:
        os.makedirs(path, mode=0o755, exist_ok=True)
        linux.mount(stage, path, None, linux.MS_BIND | linux.MS_REC, None)
        linux.mount(
            None, path, None, linux.MS_REMOUNT | linux.MS_BIND | linux.MS_RDONLY | flags, None
        )
    # Detach the staging mount; the binds keep the filesystems alive.
    linux.umount(SCRATCH_ROOT, linux.MNT_DETACH)


def _place(
    job_sock: socket.socket, student: socket.socket, pid: int, cgroup_fds: list[int]
) -> None:
    """Move the student process into the run's cgroup(s) before it does anything, then let it go.

    The descriptors were opened by the host: the kernel checks the opener's rights, so the
    keeper needs none of its own, and closing them here leaves the run no way back to them."""
    try:
        for fd in cgroup_fds:
            os.write(fd, str(pid).encode())
    except OSError as exc:
        _fail(job_sock, f"could not put the run in its cgroup: {exc}", pid)
    finally:
        protocol.close_all(cgroup_fds)
    try:
        protocol.send(student, {"op": "placed"})
    except OSError as exc:
        _fail(job_sock, f"sandboxed process died while starting: {exc}", pid)


def _resize_scratch(size_mb: int) -> None:
    flags = linux.MS_REMOUNT | linux.MS_NOSUID | linux.MS_NODEV
    linux.mount(None, "/sandbox", None, flags, f"size={size_mb}m")


def _serve(
    job_sock: socket.socket,
    student: socket.socket,
    pid: int,
    config: dict[str, Any],
    scratch: str,
) -> None:
    student.settimeout(READY_TIMEOUT_S)
    try:
        message, _ = protocol.recv(student)
    except (OSError, ValueError, EOFError) as exc:
        _fail(job_sock, f"sandboxed process died while starting: {exc}", pid)
    if message.get("op") != "ready":
        _fail(job_sock, message.get("error", "sandboxed process failed to start"), pid)
    protocol.send(job_sock, {"op": "ready"})
    try:
        job, fds = protocol.recv(job_sock)
    except (OSError, ValueError, EOFError):
        return  # the host dropped this spare
    try:
        if config["isolate"] and job["limits"]["file_size_mb"] != config["scratch_mb"]:
            _resize_scratch(job["limits"]["file_size_mb"])
        protocol.send(
            student,
            {"code": job["code"], "setup": job.get("setup"), "limits": job["limits"]},
            fds,
        )
    except BaseException as exc:
        _fail(job_sock, f"could not hand the job over: {exc}", pid)
    finally:
        protocol.close_all(fds)
    student.settimeout(STARTED_TIMEOUT_S)
    try:
        started, _ = protocol.recv(student)
    except (OSError, ValueError, EOFError) as exc:
        _fail(job_sock, f"sandboxed process died before running the code: {exc}", pid)
    if started.get("op") != "started":
        _fail(job_sock, started.get("error", "sandboxed process failed"), pid)
    student.close()
    report = _supervise(job_sock, pid, job["limits"], config, started)
    protocol.send(job_sock, report)


def _supervise(
    job_sock: socket.socket,
    pid: int,
    limits: dict[str, Any],
    config: dict[str, Any],
    started: dict[str, Any],
) -> dict[str, Any]:
    start = time.monotonic()
    deadline = start + limits["wall_time_s"]
    poll_memory = config["memory_policy"] == "resident" and config["isolate"]
    memory_limit_kb = limits["memory_mb"] * 1024
    baseline_kb = started.get("rss_anon_kb", 0)
    pidfd = os.pidfd_open(pid)
    poller = select.poll()
    poller.register(pidfd, select.POLLIN)
    poller.register(job_sock.fileno(), select.POLLIN)
    killed: str | None = None
    while True:
        now = time.monotonic()
        if now >= deadline:
            killed = "wall_time"
            break
        wait_s = deadline - now
        if poll_memory:
            wait_s = min(wait_s, MEMORY_POLL_S)
        events = dict(poller.poll(max(1, int(wait_s * 1000))))
        if pidfd in events:
            break
        if job_sock.fileno() in events:
            try:
                message, _ = protocol.recv(job_sock)
                killed = str(message.get("reason", "host"))
            except (OSError, ValueError, EOFError):
                killed = "host_gone"
            break
        if poll_memory and _sandbox_rss_kb(baseline_kb) > memory_limit_kb:
            killed = "memory"
            break
    if killed:
        _kill(pid)
    _, status, usage = os.wait4(pid, 0)
    os.close(pidfd)
    return {
        "op": "exit",
        "exit_code": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
        "signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
        "killed": killed,
        "cpu_s": max(0.0, usage.ru_utime + usage.ru_stime - started.get("cpu_s", 0.0)),
        "maxrss_kb": usage.ru_maxrss,
        "wall_s": time.monotonic() - start,
    }


def _sandbox_rss_kb(baseline_kb: int) -> int:
    """Anonymous memory of every process in the run, minus what each shares with the warm image."""
    total = 0
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            total += max(0, runner._rss_anon_kb(entry) - baseline_kb)
    return total


def _kill(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


def _fail(job_sock: socket.socket, error: str, pid: int | None = None) -> NoReturn:
    if pid is not None:
        _kill(pid)
    try:
        protocol.send(job_sock, {"op": "failed", "error": error})
    finally:
        os._exit(0)
