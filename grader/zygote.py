"""Host-side handle of one zygote: starting it (inside bubblewrap, or bare in unsafe dev mode),
asking it for new runs, and stopping it.

Start zygotes only from a thread that lives as long as they should: bubblewrap's
--die-with-parent fires when the *thread* that started it exits.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import select
import socket
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import bubblewrap
from .inside import protocol
from .interpreter import Interpreter

log = logging.getLogger(__name__)

INSIDE_DIR = str(Path(__file__).resolve().parent / "inside")


class ZygoteError(RuntimeError):
    pass


@dataclass(frozen=True)
class LaunchSpec:
    label: str
    isolate: bool
    bwrap: str
    interpreter: Interpreter
    env: dict[str, str]
    dev_nodes: tuple[str, ...]
    ro_paths: tuple[str, ...]
    hidden: tuple[str, ...]
    sandbox_uid: int  # host uid of the sandbox when the grader runs as root
    config: dict[str, Any]  # sent to the zygote (see inside/zygote.py)


class Zygote:
    def __init__(self, spec: LaunchSpec, process: subprocess.Popen[bytes], control: socket.socket):
        self.spec = spec
        self.process = process
        self.control = control
        self.info: dict[str, Any] = {}
        self._lock = threading.Lock()

    @classmethod
    def start(cls, spec: LaunchSpec, timeout_s: float) -> Zygote:
        control, child_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            process = _launch(spec, child_end, timeout_s)
        finally:
            child_end.close()
        zygote = cls(spec, process, control)
        zygote._forward_logs()
        try:
            protocol.send(control, spec.config)
            control.settimeout(timeout_s)
            zygote.info, _ = protocol.recv(control)
            control.settimeout(None)
        except (OSError, ValueError, EOFError) as exc:
            zygote.stop()
            detail = zygote._exit_detail(exc)
            raise ZygoteError(f"the {spec.label} sandbox did not start: {detail}") from exc
        log.info("%s zygote ready: %s", spec.label, zygote.info)
        return zygote

    def spawn(self, cgroup_fds: list[int]) -> socket.socket:
        """A new pre-isolated run; returns the host end of its job socket. `cgroup_fds`: open
        `cgroup.procs` files the keeper moves the run's process into (the caller closes them)."""
        host_end, sandbox_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            with self._lock:
                fds = [sandbox_end.fileno(), *cgroup_fds]
                protocol.send(self.control, {"op": "spawn"}, fds)
        except OSError as exc:
            host_end.close()
            raise ZygoteError(f"the {self.spec.label} zygote is gone: {exc}") from exc
        finally:
            sandbox_end.close()
        return host_end

    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self) -> None:
        # Killing bubblewrap kills the sandbox's pid 1 and with it every process inside.
        if self.process.poll() is None:
            self.process.kill()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            log.error("%s zygote did not exit", self.spec.label)
        self.control.close()

    def _forward_logs(self) -> None:
        stream = self.process.stdout
        if stream is None:
            return
        self._output: list[str] = []

        def pump() -> None:
            for raw in stream:
                line = raw.decode(errors="replace").rstrip()
                self._output = [*self._output[-20:], line]
                log.info("[%s sandbox] %s", self.spec.label, line)
            stream.close()

        threading.Thread(target=pump, name=f"grader-log-{self.spec.label}", daemon=True).start()

    def _exit_detail(self, exc: BaseException) -> str:
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=2)
        time.sleep(0.05)  # let the log thread catch the last lines
        output = " | ".join(getattr(self, "_output", [])[-5:])
        return f"{exc.__class__.__name__}: {exc}" + (f" ({output})" if output else "")


def _launch(
    spec: LaunchSpec, control_fd: socket.socket, timeout_s: float
) -> subprocess.Popen[bytes]:
    fd = control_fd.fileno()
    if not spec.isolate:
        argv = [spec.interpreter.executable, "-I", "-B", "-c", bubblewrap.BOOTSTRAP, str(fd)]
        return subprocess.Popen(
            [*argv, INSIDE_DIR],
            pass_fds=[fd],
            env=spec.env,
            cwd=tempfile.gettempdir(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
    as_root = os.geteuid() == 0
    info_r = info_w = block_r = block_w = -1
    if as_root:
        info_r, info_w = os.pipe()
        block_r, block_w = os.pipe()
    command = bubblewrap.build_command(
        bwrap=spec.bwrap,
        interpreter=spec.interpreter,
        inside_dir=INSIDE_DIR,
        env=spec.env,
        dev_nodes=spec.dev_nodes,
        ro_paths=list(spec.ro_paths),
        hidden=list(spec.hidden),
        control_fd=fd,
        userns_fds=(info_w, block_r) if as_root else None,
    )
    try:
        process = subprocess.Popen(
            command.argv,
            pass_fds=command.pass_fds,
            env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            extra_groups=[] if as_root else None,
        )
    except OSError as exc:
        raise ZygoteError(f"cannot start bubblewrap ({spec.bwrap}): {exc}") from exc
    finally:
        for reader in command.pass_fds:
            if reader not in (fd, info_w, block_r):
                os.close(reader)
        for writer, data in command.data_writers:
            # A bubblewrap that already died is reported below, with its own words.
            with contextlib.suppress(BrokenPipeError):
                os.write(writer, data)
            os.close(writer)
        if as_root:
            os.close(info_w)
            os.close(block_r)
    if as_root:
        try:
            _map_ids(process, info_r, block_w, spec.sandbox_uid, timeout_s)
        except ZygoteError as exc:
            process.kill()
            process.wait()
            output = _leftover_output(process)
            raise ZygoteError(f"{exc}{': ' + output if output else ''}") from None
        except BaseException:
            process.kill()
            process.wait()
            raise
        finally:
            os.close(info_r)
            os.close(block_w)
    return process


def _leftover_output(process: subprocess.Popen[bytes]) -> str:
    stream = process.stdout
    if stream is None or not select.select([stream], [], [], 1.0)[0]:
        return ""
    return os.read(stream.fileno(), 4096).decode(errors="replace").strip()


def _map_ids(
    process: subprocess.Popen[bytes], info_fd: int, block_fd: int, host_uid: int, timeout_s: float
) -> None:
    """Map the sandbox's user to an unprivileged host uid.

    Run as root, bubblewrap would map the sandbox to host root, and the kernel never applies
    RLIMIT_NPROC to root's processes. Root keeps uid 0 inside only for bubblewrap's own setup
    (it must reach the interpreter wherever it lives); the zygote then switches for good to
    RUN_UID, which is `host_uid` outside.
    """
    deadline = time.monotonic() + timeout_s
    data = b""
    while not data.rstrip().endswith(b"}"):
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not select.select([info_fd], [], [], remaining)[0]:
            raise ZygoteError("bubblewrap did not report its sandbox")
        chunk = os.read(info_fd, 4096)
        if not chunk:
            raise ZygoteError(f"bubblewrap exited early (status {process.wait()})")
        data += chunk
    pid = int(json.loads(data)["child-pid"])
    inner = bubblewrap.RUN_UID
    for name in ("uid_map", "gid_map"):
        with open(f"/proc/{pid}/{name}", "w") as handle:
            handle.write(f"0 0 1\n{inner} {host_uid} 1\n")
    os.write(block_fd, b"1")
