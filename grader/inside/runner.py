"""The student process: last isolation steps, then `main.py` runs as `__main__`.

When the sandbox is on, this process is pid 1 of a pid namespace of its own, so when it exits the
kernel kills everything the student code started.
"""

from __future__ import annotations

import contextlib
import io
import os
import resource
import signal
import socket
import sys
from typing import Any, NoReturn

from . import linux, protocol

# Taken before any student code runs: a run that replaces os._exit still ends as it should.
_exit = os._exit
SETUP_FAILED_EXIT = 121
PENDING_SIGNALS = 256
LOCKED_BYTES = 64 * 1024
MAIN_FILE = "main.py"


def student_main(sock: socket.socket, config: dict[str, Any], scratch: str) -> NoReturn:
    try:
        placed, _ = protocol.recv(sock)  # in the run's own cgroup from here on
        if placed.get("op") != "placed":
            raise RuntimeError("the keeper did not place the run")
        _lock_down(sock, config, scratch)
        _run_snippet(config.get("warmup"), {})
        protocol.send(sock, {"op": "ready"})
        job, fds = protocol.recv(sock)
        stdout_fd, stderr_fd = fds
        os.dup2(stdout_fd, 1)
        os.dup2(stderr_fd, 2)
        protocol.close_all(fds)
        code = job["code"]
        _write_main(code)
        limits = job["limits"]
        _run_snippet(config.get("prepare"), {"limits": limits})
        cpu_before = _apply_limits(limits, config)
        protocol.send(
            sock, {"op": "started", "cpu_s": cpu_before, "rss_anon_kb": _rss_anon_kb("self")}
        )
        sock.close()
    except BaseException as exc:
        try:
            protocol.send(sock, {"op": "setup_error", "error": f"{type(exc).__name__}: {exc}"})
        finally:
            os._exit(SETUP_FAILED_EXIT)
    _run_student_code(code, job.get("setup"))


def _lock_down(sock: socket.socket, config: dict[str, Any], scratch: str) -> None:
    isolate = config["isolate"]
    # A session and process group of its own: kill(0), killpg() and SIGIO/F_SETOWN aimed at a
    # process group then reach only this run's processes, never the zygote or other runs.
    os.setsid()
    # The kernel's OOM killer must pick sandboxed code before anything of the host.
    linux.write_file("/proc/self/oom_score_adj", "1000")
    if isolate:
        linux.unshare(linux.CLONE_NEWCGROUP)
        # Read-only: nothing in the run can lower its oom_score_adj again (root would need
        # CAP_SYS_RESOURCE, which hosts and containers often withhold, to set a floor) or
        # write any other per-process knob.
        flags = linux.MS_NOSUID | linux.MS_NODEV | linux.MS_NOEXEC | linux.MS_RDONLY
        linux.mount("proc", "/proc", "proc", flags, None)
        linux.sethostname("sandbox")
    os.chdir(scratch)
    os.environ["PWD"] = scratch
    keep = sock.fileno()
    os.closerange(3, keep)
    os.closerange(keep + 1, 1 << 20)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    linux.prctl(linux.PR_SET_PDEATHSIG, signal.SIGKILL)
    os.nice(config.get("nice", 0))
    if isolate:
        linux.drop_all_capabilities()
        linux.prctl(linux.PR_SET_NO_NEW_PRIVS, 1)
        linux.install_seccomp(bytes.fromhex(config["seccomp"]))


def _run_snippet(source: str | None, namespace: dict[str, Any]) -> None:
    if source:
        exec(compile(source, "<grader>", "exec"), namespace)


def _write_main(code: str) -> None:
    fd = os.open(MAIN_FILE, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(code)


def _apply_limits(limits: dict[str, Any], config: dict[str, Any]) -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    cpu_before = usage.ru_utime + usage.ru_stime
    mib = 1024 * 1024
    # RLIMIT_CPU counts what this process already used while warming up, so add it.
    cpu_soft = int(cpu_before + limits["cpu_time_s"] + 0.999)
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_soft, cpu_soft + 1))
    resource.setrlimit(resource.RLIMIT_FSIZE, (limits["file_size_mb"] * mib,) * 2)
    resource.setrlimit(resource.RLIMIT_NOFILE, (limits["open_files"],) * 2)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    # The kernel counts these per user across user namespaces, up to the host user's own
    # limit, and every run is the same host user: small caps here keep each run to a small
    # share, so no run can make another's (or the host's) signals, timers or locks fail.
    _lower_limit(resource.RLIMIT_SIGPENDING, PENDING_SIGNALS)
    _lower_limit(resource.RLIMIT_MSGQUEUE, 0)
    if config["memory_policy"] == "address_space":
        _lower_limit(resource.RLIMIT_MEMLOCK, LOCKED_BYTES)
    if config["memory_policy"] == "address_space":
        page = os.sysconf("SC_PAGE_SIZE")
        with open("/proc/self/statm") as statm:
            current = int(statm.read().split()[0]) * page
        resource.setrlimit(resource.RLIMIT_AS, (current + limits["memory_mb"] * mib,) * 2)
    if config["isolate"]:
        # Counted per user inside this run's fresh user namespace; +1 for the keeper.
        resource.setrlimit(resource.RLIMIT_NPROC, (limits["processes"] + 1,) * 2)
    return cpu_before


def _lower_limit(which: int, value: int) -> None:
    _soft, hard = resource.getrlimit(which)
    if hard == resource.RLIM_INFINITY or hard > value:
        resource.setrlimit(which, (value, value))


def _rss_anon_kb(pid: str) -> int:
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("RssAnon:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def _run_student_code(code: str, setup: str | None = None) -> NoReturn:
    import atexit
    import linecache
    import threading
    import types

    for fd, name in ((0, "stdin"), (1, "stdout"), (2, "stderr")):
        stream = _text_stream(fd, writable=fd != 0)
        setattr(sys, name, stream)
        setattr(sys, f"__{name}__", stream)
    _reseed()
    # Handlers the warm image registered (torch's run for ~20 ms) are not the student's business.
    atexit._clear()
    lines = code.splitlines(keepends=True)
    linecache.cache[MAIN_FILE] = (len(code), None, lines, MAIN_FILE)
    main = types.ModuleType("__main__")
    main.__file__ = os.path.join(os.getcwd(), MAIN_FILE)
    main.__builtins__ = __builtins__  # type: ignore[attr-defined]
    sys.modules["__main__"] = main
    sys.argv = [MAIN_FILE]
    sys.path[0:0] = [os.getcwd()]
    exit_code = 0
    try:
        # The exercise's own setup (a hidden variant's input) runs in the student's namespace;
        # its frames are not the student's, so tracebacks trimmed to main.py leave them out.
        prelude = compile(setup, "<setup>", "exec") if setup else None
        compiled = compile(code, MAIN_FILE, "exec")
    except (SyntaxError, ValueError) as exc:  # ValueError: null bytes in the source
        import traceback

        sys.stderr.write("".join(traceback.format_exception_only(type(exc), exc)))
        _finish(1)
    try:
        if prelude is not None:
            exec(prelude, main.__dict__)
        exec(compiled, main.__dict__)
    except SystemExit as exc:
        exit_code = _exit_code(exc)
    except BaseException as exc:
        tb = exc.__traceback__.tb_next if exc.__traceback__ else None
        with contextlib.suppress(BaseException):
            sys.excepthook(type(exc), exc, tb)
        exit_code = 1
    try:
        threading._shutdown()  # type: ignore[attr-defined]
        atexit._run_exitfuncs()
    except SystemExit as exc:
        exit_code = _exit_code(exc)
    except BaseException:
        pass
    _finish(exit_code)


def _text_stream(fd: int, writable: bool) -> io.TextIOWrapper:
    raw = io.FileIO(fd, "w" if writable else "r", closefd=False)
    buffered = io.BufferedWriter(raw) if writable else io.BufferedReader(raw)
    # Line-buffered, so a run killed at its time limit still shows what it printed.
    return io.TextIOWrapper(
        buffered, encoding="utf-8", errors="backslashreplace", line_buffering=writable
    )


def _reseed() -> None:
    # Every run is a fork of the same warm process; give it fresh randomness like a cold start.
    # (`random` reseeds itself after fork; device generators are the back ends' `prepare`.)
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.default_generator.seed()
    numpy_random = sys.modules.get("numpy.random")
    if numpy_random is not None:
        numpy_random.seed(None)


def _exit_code(exc: SystemExit) -> int:
    if exc.code is None:
        return 0
    if isinstance(exc.code, int):
        return exc.code & 0xFF
    with contextlib.suppress(BaseException):
        print(exc.code, file=sys.stderr)
    return 1


def _finish(exit_code: int) -> NoReturn:
    # Plain try/except, not contextlib: the student's code may have replaced anything it can
    # reach, its streams included.
    for stream in (sys.stdout, sys.stderr):
        try:  # noqa: SIM105
            stream.flush()
        except BaseException:
            pass
    _exit(exit_code)
