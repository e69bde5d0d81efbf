"""A device's warm sandbox: one zygote, a few pre-forked runs kept ready, and the runs themselves.

A supervisor thread owns the zygote (starting it, restarting it when it dies) and keeps `spares`
runs forked and isolated ahead of time, so a job only has to hand its code over.
"""

from __future__ import annotations

import collections
import contextlib
import logging
import os
import selectors
import socket
import threading
import time
from dataclasses import dataclass
from typing import cast

from .backends import DeviceInstance
from .cgroups import Cgroups, RunCgroup
from .contract import Limits
from .inside import protocol
from .zygote import LaunchSpec, Zygote, ZygoteError

log = logging.getLogger(__name__)

HOST_GRACE_S = 5.0  # on top of the wall-time limit, for the keeper to report
MAX_RESTART_DELAY_S = 30.0


@dataclass
class Outcome:
    """What happened to one run, before any verdict is drawn from it."""

    stdout: bytes = b""
    stderr: bytes = b""
    exit_code: int | None = None
    signal: int | None = None
    killed: str | None = None  # wall_time, output, memory...
    cpu_s: float = 0.0
    maxrss_kb: int = 0
    duration_ms: int = 0
    oom_killed: bool = False  # the run's cgroup hit its memory budget
    fault: str | None = None  # a platform problem: the run proves nothing about the code


@dataclass
class _Spare:
    sock: socket.socket
    generation: int
    cgroup: RunCgroup | None


@dataclass
class _Pending:
    since: float
    cgroup: RunCgroup | None


class DevicePool:
    def __init__(self, instance: DeviceInstance, spec: LaunchSpec, start_timeout_s: float,
                 spare_timeout_s: float, cgroups: Cgroups | None = None):  # fmt: skip
        self.instance = instance
        self.cgroups = cgroups
        self.spec = spec
        self.start_timeout_s = start_timeout_s
        self.spare_timeout_s = spare_timeout_s
        self.error: str | None = None  # why the sandbox is unusable right now
        self.active = 0
        self._slots = threading.BoundedSemaphore(instance.concurrency)
        self._lock = threading.Condition()
        self._spares: collections.deque[_Spare] = collections.deque()
        self._generation = 0
        self._zygote: Zygote | None = None
        self._closing = False
        self._started = threading.Event()
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)
        self._thread = threading.Thread(
            target=self._supervise, name=f"grader-{instance.label}", daemon=True
        )

    # --- lifecycle -------------------------------------------------------------------------

    def start(self) -> None:
        self._thread.start()

    @property
    def has_zygote(self) -> bool:
        zygote = self._zygote
        return zygote is not None and zygote.alive()

    def wait_started(self) -> None:
        """Until the first run is ready or starting has failed."""
        self._started.wait(self.start_timeout_s + 5)

    def close(self) -> None:
        with self._lock:
            self._closing = True
            self._lock.notify_all()
        self._wake()
        self._thread.join(timeout=15)
        with self._lock:
            wake_r, wake_w, self._wake_r, self._wake_w = self._wake_r, self._wake_w, -1, -1
        os.close(wake_r)
        os.close(wake_w)

    # --- runs --------------------------------------------------------------------------------

    def execute(self, code: str, limits: Limits, setup: str | None = None) -> Outcome:
        """Run `code` as `main.py`; `setup` (trusted, from the exercise) runs first in the same
        namespace, for hidden variants of an exercise's input."""
        with self._slots:
            with self._lock:
                self.active += 1
            try:
                for _attempt in range(2):
                    spare = self._take_spare()
                    if spare is None:
                        return Outcome(fault=self.error or "no sandbox became ready in time")
                    outcome = self._run(spare, code, limits, setup)
                    if outcome.fault != "handover":
                        return outcome
                return Outcome(fault="could not hand the job to a sandbox")
            finally:
                with self._lock:
                    self.active -= 1

    def _take_spare(self) -> _Spare | None:
        deadline = time.monotonic() + self.spare_timeout_s
        with self._lock:
            while True:
                while self._spares:
                    spare = self._spares.popleft()
                    if spare.generation == self._generation:
                        self._wake()
                        return spare
                    self._discard(spare.sock, spare.cgroup)
                remaining = deadline - time.monotonic()
                if self._closing or remaining <= 0 or (self.error and self._zygote is None):
                    return None
                self._lock.wait(min(remaining, 0.5))

    def _run(self, spare: _Spare, code: str, limits: Limits, setup: str | None) -> Outcome:
        sock = spare.sock
        out_r, out_w = os.pipe2(os.O_CLOEXEC)
        err_r, err_w = os.pipe2(os.O_CLOEXEC)
        started = time.monotonic()
        cgroup = spare.cgroup
        try:
            try:
                if cgroup is not None:
                    cgroup.set_limits(limits.memory_mb, limits.processes)
                job = {"op": "run", "code": code, "setup": setup, "limits": limits.model_dump()}
                protocol.send(sock, job, [out_w, err_w])
            except OSError:
                return Outcome(fault="handover")
            finally:
                os.close(out_w)
                os.close(err_w)
            outcome = _collect(sock, out_r, err_r, limits, started)
            if cgroup is not None:
                outcome.oom_killed = _oom_killed(cgroup)
            return outcome
        finally:
            os.close(out_r)
            os.close(err_r)
            self._discard(sock, cgroup)

    # --- supervisor --------------------------------------------------------------------------

    def _supervise(self) -> None:
        pending: dict[socket.socket, _Pending] = {}
        selector = selectors.DefaultSelector()
        selector.register(self._wake_r, selectors.EVENT_READ)
        failures = 0
        while not self._closing:
            if self._zygote is None or not self._zygote.alive():
                for sock, waiting in pending.items():
                    selector.unregister(sock)
                    self._discard(sock, waiting.cgroup)
                pending.clear()
                if not self._restart(failures):
                    failures += 1
                    self._pause(min(MAX_RESTART_DELAY_S, 0.5 * 2**failures))
                    continue
            try:
                self._top_up(pending, selector)
            except ZygoteError as exc:
                log.warning("%s", exc)
                continue
            for key, _ in selector.select(timeout=1.0):
                if key.fileobj == self._wake_r:
                    _drain(self._wake_r)
                    continue
                sock = cast(socket.socket, key.fileobj)
                selector.unregister(sock)
                waiting = pending.pop(sock)
                if self._accept_spare(sock, waiting.cgroup):
                    failures = 0
                else:
                    failures += 1
                    if failures >= 3:
                        self._kill_zygote(
                            f"runs fail to start in the {self.instance.label} sandbox"
                        )
            now = time.monotonic()
            for sock, waiting in list(pending.items()):
                if now - waiting.since > self.spare_timeout_s:
                    selector.unregister(sock)
                    del pending[sock]
                    self._discard(sock, waiting.cgroup)
                    self._kill_zygote(f"a {self.instance.label} run took too long to get ready")
        for sock, waiting in pending.items():
            self._discard(sock, waiting.cgroup)
        self._kill_zygote(None)
        if self.cgroups is not None:
            self.cgroups.sweep()
        self._started.set()

    def _restart(self, failures: int) -> bool:
        self._kill_zygote(None)
        try:
            zygote = Zygote.start(self.spec, self.start_timeout_s)
        except (ZygoteError, OSError) as exc:
            with self._lock:
                self.error = str(exc)
                self._lock.notify_all()
            log.error("%s", exc)
            self._started.set()
            return False
        with self._lock:
            self._zygote = zygote
            self._generation += 1
            self.error = None
            self._lock.notify_all()
        return True

    def _top_up(
        self, pending: dict[socket.socket, _Pending], selector: selectors.BaseSelector
    ) -> None:
        zygote = self._zygote
        assert zygote is not None
        while len(self._spares) + len(pending) < max(1, self.instance.spares):
            cgroup = self._new_cgroup()
            fds = cgroup.open_procs() if cgroup is not None else []
            try:
                sock = zygote.spawn(fds)
            except ZygoteError:
                self._discard(None, cgroup)
                raise
            finally:
                protocol.close_all(fds)
            pending[sock] = _Pending(time.monotonic(), cgroup)
            selector.register(sock, selectors.EVENT_READ)

    def _new_cgroup(self) -> RunCgroup | None:
        if self.cgroups is None:
            return None
        defaults = Limits()
        try:
            return self.cgroups.new_run(defaults.memory_mb, defaults.processes)
        except OSError as exc:
            label = self.instance.label
            raise ZygoteError(f"cannot create a cgroup for a {label} run: {exc}") from exc

    def _discard(self, sock: socket.socket | None, cgroup: RunCgroup | None) -> None:
        """Let a run go: its keeper ends when the socket closes, then its cgroup can go."""
        if sock is not None:
            sock.close()
        if cgroup is not None and self.cgroups is not None:
            self.cgroups.discard(cgroup)

    def _accept_spare(self, sock: socket.socket, cgroup: RunCgroup | None) -> bool:
        try:
            sock.settimeout(10)
            message, _ = protocol.recv(sock)
            sock.settimeout(None)
        except (OSError, ValueError, EOFError) as exc:
            message = {"op": "failed", "error": f"the run died while starting ({exc})"}
        if message.get("op") != "ready":
            self._discard(sock, cgroup)
            with self._lock:
                self.error = f"sandbox setup failed: {message.get('error', message)}"
            log.error("%s: %s", self.instance.label, self.error)
            return False
        with self._lock:
            self._spares.append(_Spare(sock, self._generation, cgroup))
            self.error = None
            self._lock.notify_all()
        self._started.set()
        return True

    def _kill_zygote(self, reason: str | None) -> None:
        with self._lock:
            zygote, self._zygote = self._zygote, None
            self._generation += 1
            spares = list(self._spares)
            self._spares.clear()
            if reason:
                self.error = reason
            self._lock.notify_all()
        if zygote is not None:
            if reason:
                log.error("restarting the %s sandbox: %s", self.instance.label, reason)
            zygote.stop()
        for spare in spares:
            self._discard(spare.sock, spare.cgroup)

    def _pause(self, seconds: float) -> None:
        with self._lock:
            if not self._closing:
                self._lock.wait(seconds)

    def _wake(self) -> None:
        with contextlib.suppress(BlockingIOError, OSError):
            os.write(self._wake_w, b"x")


def _collect(
    sock: socket.socket, out_r: int, err_r: int, limits: Limits, started: float
) -> Outcome:
    """Read the run's output pipes and its keeper's report, enforcing the output cap."""
    cap = limits.output_kb * 1024
    buffers = {out_r: bytearray(), err_r: bytearray()}
    open_pipes = {out_r, err_r}
    report: dict[str, object] | None = None
    over_cap = False
    kill_sent = False
    deadline = started + limits.wall_time_s + HOST_GRACE_S
    selector = selectors.DefaultSelector()
    for fd in open_pipes:
        os.set_blocking(fd, False)
        selector.register(fd, selectors.EVENT_READ)
    selector.register(sock, selectors.EVENT_READ)
    try:
        while report is None or open_pipes:
            now = time.monotonic()
            if now >= deadline:
                if report is None and not kill_sent:
                    _send_kill(sock, "host_deadline")
                    kill_sent, deadline = True, now + 2.0
                    continue
                break
            for key, _ in selector.select(timeout=min(1.0, deadline - now)):
                if key.fileobj is sock:
                    selector.unregister(sock)
                    try:
                        sock.settimeout(5)
                        report, _ = protocol.recv(sock)
                    except (OSError, ValueError, EOFError):
                        report = {"op": "failed", "error": "the sandbox died during the run"}
                    # Everything left in the pipes was written before the run ended.
                    deadline = min(deadline, time.monotonic() + 2.0)
                    continue
                fd = key.fd
                try:
                    chunk = os.read(fd, 65536)
                except BlockingIOError:
                    continue
                if not chunk:
                    selector.unregister(fd)
                    open_pipes.discard(fd)
                    continue
                buffer = buffers[fd]
                if len(buffer) <= cap:
                    buffer += chunk[: cap + 1 - len(buffer)]
                if len(buffer) > cap and not over_cap:
                    over_cap = True
                    if report is None:
                        _send_kill(sock, "output")
                        kill_sent = True
    finally:
        selector.close()
    outcome = Outcome(
        stdout=bytes(buffers[out_r][:cap]),
        stderr=bytes(buffers[err_r][:cap]),
        duration_ms=int((time.monotonic() - started) * 1000),
    )
    if report is None:
        outcome.fault = "the sandbox did not report on the run in time"
        return outcome
    if report.get("op") != "exit":
        outcome.fault = str(report.get("error", "the sandbox failed"))
        return outcome
    outcome.exit_code = _optional_int(report.get("exit_code"))
    outcome.signal = _optional_int(report.get("signal"))
    outcome.killed = "output" if over_cap else _optional_str(report.get("killed"))
    outcome.cpu_s = float(report.get("cpu_s") or 0.0)  # type: ignore[arg-type]
    outcome.maxrss_kb = int(report.get("maxrss_kb") or 0)  # type: ignore[call-overload]
    wall_s = report.get("wall_s")
    if isinstance(wall_s, int | float):
        outcome.duration_ms = int(wall_s * 1000)
    if outcome.killed == "host_deadline":
        outcome.fault = "the sandbox did not end the run in time"
    return outcome


def _oom_killed(cgroup: RunCgroup) -> bool:
    try:
        return cgroup.oom_kills() > 0
    except (OSError, ValueError):
        return False


def _send_kill(sock: socket.socket, reason: str) -> None:
    with contextlib.suppress(OSError):
        protocol.send(sock, {"op": "kill", "reason": reason})


def _optional_int(value: object) -> int | None:
    return value if isinstance(value, int) else None


def _optional_str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _drain(fd: int) -> None:
    try:
        while os.read(fd, 4096):
            pass
    except BlockingIOError:
        pass
