"""One cgroup per run: one memory budget for every kind of memory and every process of the run,
a cap on its processes and a CPU weight of its own.

The host creates a run's cgroup before the run is forked and hands the sandbox an open
`cgroup.procs` of each hierarchy. The keeper writes the student's pid through it and closes it:
the kernel checks the credentials of whoever *opened* the file, so nothing inside the sandbox
can ever open a cgroup file, move a process or change a limit. The host reads the OOM counter
after the run (verdict `memory_limit`) and removes the cgroup.

cgroup v2 is used where the host delegates the memory and pids controllers to us (systemd
`Delegate=yes`, or a cgroup handed over as below); otherwise the v1
`memory`, `pids` (and `cpu`) hierarchies, as on hosts that still mount v1.

Runs go below the grader's own cgroup, or below `GRADER_CGROUP_PARENT` where the host hands the
grader a cgroup other than its own: a Docker worker cannot write the cgroup Docker makes for
it, so root hands over the one that holds it (the compose file's one-shot `cgroups` service
runs `python -m grader.delegate ..` in the same `cgroup_parent`) and the worker makes its runs'
cgroups there (`GRADER_CGROUP_PARENT=..`).
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import logging
import os
import re
import socket
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

log = logging.getLogger(__name__)

# Copy-on-write copies of the warm image and the kernel's own structures for the run are
# charged too; this keeps a one-process run hitting its address-space limit (a clean
# MemoryError) before the cgroup's OOM killer.
HEADROOM_MB = 64
CPU_WEIGHT_V2 = 100  # the default: every run counts as one task, however many threads it has
CPU_SHARES_V1 = 1024
PREFIX = "tensorcamp-grader-"
PARENT_ENV = "GRADER_CGROUP_PARENT"
# GRADER_CGROUP_PARENT (and delegate's argument) "..": the parent of the process's own cgroup,
# in each hierarchy. Docker makes a container's cgroup under its `cgroup_parent`, resolved
# differently by each cgroup driver; a container finds that directory as its own cgroup's
# parent, so the one that hands it over and the workers inside it agree whatever the driver.
OWN_PARENT = ".."
CONTROLLERS = ("memory", "pids", "cpu")
_counter = itertools.count()
# How long a closing grader waits for the processes of its last runs to leave their cgroups.
CLOSE_PATIENCE_S = 2.0


class CgroupUnavailable(RuntimeError):
    """Why runs cannot get cgroups of their own on this host."""


@dataclass
class RunCgroup:
    """The cgroup(s) of one run: a directory per hierarchy (one on v2)."""

    version: int
    memory: Path
    pids: Path
    limits: tuple[int, int] = (0, 0)  # (memory_mb, processes) last written
    dirs: list[Path] = field(default_factory=list)

    def open_procs(self) -> list[int]:
        """Write-only descriptors of `cgroup.procs`, one per hierarchy, for the keeper."""
        return [
            os.open(directory / "cgroup.procs", os.O_WRONLY | os.O_CLOEXEC)
            for directory in self.dirs
        ]

    def set_limits(self, memory_mb: int, processes: int) -> None:
        if (memory_mb, processes) == self.limits:
            return
        budget = (memory_mb + HEADROOM_MB) * 1024 * 1024
        if self.version == 2:
            _write(self.memory / "memory.max", str(budget))
        else:
            # The memory+swap limit may never be below the memory limit: order matters.
            memsw = self.memory / "memory.memsw.limit_in_bytes"
            current = int(_read(self.memory / "memory.limit_in_bytes") or 0)
            if memsw.exists() and budget > current:
                _write(memsw, str(budget))
            _write(self.memory / "memory.limit_in_bytes", str(budget))
            if memsw.exists():
                _write(memsw, str(budget))
        # One for the student's pid 1 on top of the processes and threads it may start.
        _write(self.pids / "pids.max", str(processes + 1))
        self.limits = (memory_mb, processes)

    def oom_kills(self) -> int:
        """How many processes of the run the OOM killer ended (the memory budget was hit)."""
        name = "memory.events" if self.version == 2 else "memory.oom_control"
        for line in (_read(self.memory / name) or "").splitlines():
            key, _, value = line.partition(" ")
            if key == "oom_kill":
                return int(value)
        return 0

    def remove(self) -> bool:
        """Remove the cgroup; False while processes of the run are still leaving."""
        return all([_remove_dir(directory) for directory in self.dirs])


class Cgroups:
    """A parent cgroup per Grader (per hierarchy), holding one child per run."""

    def __init__(self, version: int, parents: dict[str, Path]):
        self.version = version
        self.parents = parents  # controller (or "unified") -> our parent directory
        # Below a delegated parent: the directory of this host (container) there, if ours.
        self.hosts: list[Path] = []
        self._lock = threading.Lock()
        self._leftovers: list[RunCgroup] = []

    @classmethod
    def create(cls) -> Cgroups:
        """Set up our parent cgroups, or raise CgroupUnavailable saying why not."""
        problems = []
        for setup in (_setup_v2, _setup_v1):
            try:
                return setup()
            except CgroupUnavailable as exc:
                problems.append(str(exc))
        raise CgroupUnavailable("; ".join(problems))

    def new_run(self, memory_mb: int, processes: int) -> RunCgroup:
        self.sweep()
        name = f"run-{os.getpid()}-{next(_counter)}"
        if self.version == 2:
            directory = self.parents["unified"] / name
            directory.mkdir()
            run = RunCgroup(2, directory, directory, dirs=[directory])
            _write(directory / "memory.swap.max", "0", missing_ok=True)
            # Whatever the OOM killer picks, the whole run ends: no half-killed run goes on.
            _write(directory / "memory.oom.group", "1", missing_ok=True)
            _write(directory / "cpu.weight", str(CPU_WEIGHT_V2), missing_ok=True)
        else:
            dirs = {}
            for controller, parent in self.parents.items():
                dirs[controller] = parent / name
                dirs[controller].mkdir()
            run = RunCgroup(1, dirs["memory"], dirs["pids"], dirs=list(dirs.values()))
            _write(dirs["memory"] / "memory.swappiness", "0", missing_ok=True)
            if "cpu" in dirs:
                _write(dirs["cpu"] / "cpu.shares", str(CPU_SHARES_V1))
        try:
            run.set_limits(memory_mb, processes)
        except OSError:
            run.remove()
            raise
        return run

    def discard(self, run: RunCgroup) -> None:
        """Remove a run's cgroup now or, while its processes are still leaving, later."""
        if not run.remove():
            with self._lock:
                self._leftovers.append(run)

    def sweep(self) -> None:
        with self._lock:
            leftovers, self._leftovers = self._leftovers, []
        for run in leftovers:
            self.discard(run)

    def close(self) -> None:
        """Remove our cgroups. The processes of a run that was just ended (the grader closes
        its pools first) take a moment to leave, and a cgroup that still holds one cannot be
        removed: wait up to CLOSE_PATIENCE_S for them. Whatever is left after that (processes
        that will not die) is swept by the next grader to start on this host."""
        deadline = time.monotonic() + CLOSE_PATIENCE_S
        while not self._remove_all() and time.monotonic() < deadline:
            time.sleep(0.02)
        for host in self.hosts:  # busy while another grader of this host still uses it
            with contextlib.suppress(OSError):
                host.rmdir()

    def _remove_all(self) -> bool:
        """Remove every run's cgroup (leftovers included) and our parents; False while any
        is still busy."""
        removed = True
        for parent in self.parents.values():
            for directory in [*_children(parent), parent]:
                # Any other refusal (EPERM): not ours to remove, nothing to wait for.
                with contextlib.suppress(OSError):
                    removed &= _remove_dir(directory)
        return removed


# --- setting up ---------------------------------------------------------------------------------


def _own_cgroups() -> dict[str, str]:
    """This process's cgroup path per hierarchy: controller names (v1) or "" (v2)."""
    paths = {}
    with open("/proc/self/cgroup") as handle:
        for line in handle:
            _, controllers, path = line.rstrip("\n").split(":", 2)
            for controller in controllers.split(",") if controllers else [""]:
                paths[controller] = path
    return paths


@dataclass(frozen=True)
class _Mount:
    point: str  # where it is mounted
    root: str  # which cgroup of the hierarchy it shows there
    fstype: str
    options: frozenset[str]

    def path_of(self, cgroup: str) -> Path | None:
        """Where `cgroup` (as /proc/self/cgroup names it) is in this mount, if it is."""
        root = self.root.rstrip("/")
        if cgroup != root and not cgroup.startswith(root + "/"):
            return None
        return Path(self.point + cgroup[len(root) :].rstrip("/"))


def _mounts() -> list[_Mount]:
    """Every cgroup filesystem mounted here. A container often shows only its own cgroup (the
    mount's root) where /proc/self/cgroup names the full path, so both are kept."""
    found = []
    with open("/proc/self/mountinfo") as handle:
        for line in handle:
            left, _, right = line.partition(" - ")
            fstype, _source, options = [*right.split(), "", ""][:3]
            if fstype in ("cgroup", "cgroup2"):
                fields = left.split()
                found.append(_Mount(fields[4], fields[3], fstype, frozenset(options.split(","))))
    return found


def _locate(cgroup: str, mounts: Sequence[_Mount]) -> Path | None:
    return next((path for m in mounts if (path := m.path_of(cgroup)) is not None), None)


def _delegated_parent() -> str | None:
    """GRADER_CGROUP_PARENT: a cgroup the host made for the grader's runs, if not its own."""
    value = os.environ.get(PARENT_ENV, "").strip()
    if not value:
        return None
    if value != OWN_PARENT and (not value.startswith("/") or ".." in value.split("/")):
        raise CgroupUnavailable(
            f"{PARENT_ENV} must be a cgroup path such as /tensorcamp.slice, or {OWN_PARENT} "
            f"(the parent of the grader's own cgroup), not {value!r}"
        )
    return value if value == OWN_PARENT else value.rstrip("/") or "/"


def _resolve(cgroup: str, own: str | None) -> str | None:
    """An absolute cgroup path for `cgroup`, which may be OWN_PARENT (then None at the root)."""
    if cgroup != OWN_PARENT:
        return cgroup
    if own is None or own.rstrip("/") == "":
        return None
    return own.rstrip("/").rsplit("/", 1)[0] or "/"


def _host_dir(delegated: Path) -> Path:
    """This host's own directory below a delegated parent that several containers share: the
    names of the graders' directories hold pids, which only mean something within one host."""
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", socket.gethostname()) or "host"
    directory = delegated / f"host-{name}"
    directory.mkdir(exist_ok=True)
    return directory


def _setup_v2() -> Cgroups:
    mounts = [m for m in _mounts() if m.fstype == "cgroup2"]
    own = _own_cgroups().get("")
    if not mounts or own is None:
        raise CgroupUnavailable("cgroup v2: not mounted")
    delegated = _delegated_parent()
    if delegated is not None:
        delegated = _resolve(delegated, own)
        if delegated is None:
            raise CgroupUnavailable(f"cgroup v2: {PARENT_ENV}={OWN_PARENT} at the root cgroup")
    if delegated is not None and own != delegated and not own.startswith(delegated + "/"):
        # A process may only be moved within a subtree whose cgroup.procs its mover may write.
        raise CgroupUnavailable(
            f"cgroup v2: the grader's cgroup {own} is not inside {PARENT_ENV}={delegated}"
        )
    base = _locate(delegated or own, mounts)
    if base is None:
        raise CgroupUnavailable(f"cgroup v2: {delegated or own} is not visible here")
    available = set((_read(base / "cgroup.controllers") or "").split())
    if not {"memory", "pids"} <= available:
        raise CgroupUnavailable(
            f"cgroup v2: the memory and pids controllers are not delegated to {base}"
        )
    wanted = [name for name in CONTROLLERS if name in available]
    hosts: list[Path] = []
    try:
        _enable_controllers(base, wanted)
        if delegated is not None:
            base = _host_dir(base)
            hosts.append(base)
            _enable_controllers(base, wanted)
        parent = base / f"{PREFIX}{os.getpid()}-{next(_counter)}"
        _sweep_stale(base)
        parent.mkdir()
        _write(parent / "cgroup.subtree_control", " ".join(f"+{name}" for name in wanted))
    except OSError as exc:
        raise CgroupUnavailable(f"cgroup v2: cannot use {base}: {exc}") from None
    cgroups = Cgroups(2, {"unified": parent})
    cgroups.hosts = hosts
    return cgroups


def _enable_controllers(base: Path, wanted: Sequence[str]) -> None:
    enabled = set((_read(base / "cgroup.subtree_control") or "").split())
    if set(wanted) <= enabled:
        return
    try:
        _write(base / "cgroup.subtree_control", " ".join(f"+{name}" for name in wanted))
    except OSError as exc:
        if exc.errno != errno.EBUSY:
            raise
        # "No internal processes": a cgroup that hands controllers to children may hold no
        # process itself. Move ours (and any other) into a leaf, as a delegated service does.
        leaf = base / "tensorcamp-host"
        leaf.mkdir(exist_ok=True)
        for pid in (_read(base / "cgroup.procs") or "").split():
            with contextlib.suppress(ProcessLookupError, OSError):
                _write(leaf / "cgroup.procs", pid)
        _write(base / "cgroup.subtree_control", " ".join(f"+{name}" for name in wanted))


def _setup_v1() -> Cgroups:
    own = _own_cgroups()
    delegated = _delegated_parent()
    bases: dict[str, Path] = {}
    for controller in CONTROLLERS:
        mounts = [m for m in _mounts() if m.fstype == "cgroup" and controller in m.options]
        wanted = (
            own.get(controller) if delegated is None else _resolve(delegated, own.get(controller))
        )
        base = _locate(wanted, mounts) if wanted is not None else None
        if base is not None:
            bases[controller] = base
    missing = [name for name in ("memory", "pids") if name not in bases]
    if missing:
        raise CgroupUnavailable(
            f"cgroup v1: no {' or '.join(missing)} hierarchy"
            + (f" showing {PARENT_ENV}={delegated}" if delegated else "")
        )
    parents: dict[str, Path] = {}
    hosts: list[Path] = []
    name = f"{PREFIX}{os.getpid()}-{next(_counter)}"
    try:
        for controller, base in bases.items():
            if delegated is not None:
                base = _host_dir(base)
                hosts.append(base)
            _sweep_stale(base)
            parent = base / name
            parent.mkdir()
            parents[controller] = parent
    except OSError as exc:
        for directory in [*parents.values(), *hosts]:
            with contextlib.suppress(OSError):
                directory.rmdir()
        raise CgroupUnavailable(f"cgroup v1: cannot create cgroups: {exc}") from None
    cgroups = Cgroups(1, parents)
    cgroups.hosts = hosts
    return cgroups


# --- handing a cgroup to the grader (run by root, once per boot) --------------------------------

# What a delegatee writes in the cgroup it is given (cgroups(7), "Cgroup delegation"); v1 has
# `tasks` beside `cgroup.procs`. Limits stay root's: the grader only sets those of its runs.
_DELEGATED_FILES = {
    2: ("cgroup.procs", "cgroup.subtree_control", "cgroup.threads"),
    1: ("cgroup.procs", "tasks"),
}


def delegate(cgroup: str, uid: int, gid: int) -> str:
    """Make `cgroup` (a path such as /tensorcamp.slice, or OWN_PARENT) in the hierarchies a
    grader uses and hand it to uid:gid, so that a grader running as that user makes its runs'
    cgroups there (GRADER_CGROUP_PARENT). Needs root (CAP_CHOWN) and the host's cgroup
    filesystems, mounted as the host sees them; says what it did."""
    if cgroup != OWN_PARENT and (
        not cgroup.startswith("/") or cgroup == "/" or ".." in cgroup.split("/")
    ):
        raise CgroupUnavailable(f"not a cgroup below the root: {cgroup!r}")
    own = _own_cgroups()
    top = [m for m in _mounts() if m.root == "/"]
    unified = next((m for m in top if m.fstype == "cgroup2"), None)
    if unified is not None:
        available = set((_read(Path(unified.point) / "cgroup.controllers") or "").split())
        target = _resolve(cgroup, own.get(""))
        if {"memory", "pids"} <= available and target not in (None, "/"):
            wanted = [name for name in CONTROLLERS if name in available]
            directory = Path(unified.point)
            # Every cgroup on the way down hands the controllers on to the next.
            for part in target.strip("/").split("/"):
                _hand_on(directory, wanted)
                directory = directory / part
                directory.mkdir(exist_ok=True)
            _hand_on(directory, wanted)
            _hand_over(directory, _DELEGATED_FILES[2], uid, gid)
            return f"cgroup v2 ({', '.join(wanted)}): {directory}"
    done = []
    for controller in CONTROLLERS:
        mount = next((m for m in top if m.fstype == "cgroup" and controller in m.options), None)
        if mount is None:
            if controller == "cpu":
                continue
            raise CgroupUnavailable(
                f"no cgroup v2 with the memory and pids controllers, and no v1 {controller} "
                "hierarchy mounted (is the host's /sys/fs/cgroup mounted here?)"
            )
        target = _resolve(cgroup, own.get(controller))
        if target in (None, "/"):
            raise CgroupUnavailable(f"cgroup v1 {controller}: {cgroup} is the root cgroup")
        directory = Path(mount.point + target)
        directory.mkdir(parents=True, exist_ok=True)
        _hand_over(directory, _DELEGATED_FILES[1], uid, gid)
        done.append(str(directory))
    return f"cgroup v1: {', '.join(done)}"


def _hand_on(directory: Path, controllers: Sequence[str]) -> None:
    """Enable `controllers` for the children of a cgroup (never moving anyone's processes)."""
    if set(controllers) <= set((_read(directory / "cgroup.subtree_control") or "").split()):
        return
    try:
        _write(directory / "cgroup.subtree_control", " ".join(f"+{n}" for n in controllers))
    except OSError as exc:
        raise CgroupUnavailable(
            f"cannot enable {' '.join(controllers)} in {directory}: {exc}"
        ) from None


def _hand_over(directory: Path, files: Sequence[str], uid: int, gid: int) -> None:
    os.chown(directory, uid, gid)
    for name in files:
        if (directory / name).exists():
            os.chown(directory / name, uid, gid)


def _sweep_stale(base: Path) -> None:
    """Remove what graders that died without closing left behind (empty cgroups only)."""
    for parent in _children(base):
        if not parent.name.startswith(PREFIX):
            continue
        pid = parent.name[len(PREFIX) :].split("-", 1)[0]
        if pid.isdigit() and Path(f"/proc/{pid}").exists():
            continue
        for child in _children(parent):
            with contextlib.suppress(OSError):
                child.rmdir()
        with contextlib.suppress(OSError):
            parent.rmdir()


def _remove_dir(directory: Path) -> bool:
    """Remove a cgroup's directory; False while processes are still leaving it."""
    try:
        directory.rmdir()
    except FileNotFoundError:
        pass
    except OSError as exc:
        if exc.errno not in (errno.EBUSY, errno.ENOTEMPTY):
            raise
        return False
    return True


def _children(directory: Path) -> list[Path]:
    try:
        return [entry for entry in directory.iterdir() if entry.is_dir()]
    except OSError:
        return []


def _read(path: Path) -> str | None:
    try:
        return path.read_text()
    except OSError:
        return None


def _write(path: Path, value: str, missing_ok: bool = False) -> None:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        if missing_ok:
            return
        raise
    try:
        os.write(fd, value.encode())
    finally:
        os.close(fd)
