"""The Grader: warm sandboxes for every working device, and grading jobs on them."""

from __future__ import annotations

import logging
import os
import shutil
import threading
import time
from dataclasses import dataclass

from . import bubblewrap, seccomp
from .backends import Backend, DeviceInstance, load_backends
from .cgroups import Cgroups, CgroupUnavailable
from .comparison import compare
from .config import GraderConfig
from .contract import Comparison, Job, Limits, Result, Run
from .interpreter import (
    ExposureError,
    Interpreter,
    default_hidden_paths,
    inside,
    inspect_interpreter,
)
from .pool import DevicePool, Outcome
from .verdicts import build_run
from .zygote import LaunchSpec

log = logging.getLogger(__name__)

PROBE_ATTEMPTS = 3

UNSAFE_BANNER = (
    "\n" + "!" * 78 + "\n"
    "!!  GRADER UNSAFE DEV MODE: submitted code runs WITHOUT any sandbox, with the\n"
    "!!  grader's own permissions. Never enable this where untrusted code is graded.\n" + "!" * 78
)


@dataclass(frozen=True)
class _Sandbox:
    """What every device's sandbox shares."""

    isolate: bool
    bwrap: str
    interpreter: Interpreter
    hidden: tuple[str, ...]
    seccomp_hex: str


class Grader:
    """Grades jobs on warm, sandboxed interpreters. Thread-safe once started."""

    def __init__(self, config: GraderConfig | None = None):
        self.config = config or GraderConfig()
        self._groups: dict[str, list[DevicePool]] = {}
        self._problems: dict[str, str] = {}
        self._failure: str | None = None  # the sandbox cannot be built at all
        self.cgroups: Cgroups | None = None
        self._start_lock = threading.Lock()
        self._started = False
        self._closed = False

    # --- lifecycle -------------------------------------------------------------------------

    def start(self) -> None:
        """Start a warm sandbox per device and keep the devices whose self-test passes."""
        with self._start_lock:
            if not self._started:
                self._start()
                self._started = True

    def _start(self) -> None:
        config = self.config
        if config.unsafe_dev_mode:
            log.warning(UNSAFE_BANNER)
        try:
            sandbox = self._sandbox()
        except (ExposureError, seccomp.UnsupportedArchitecture, OSError) as exc:
            self._failure = f"the sandbox cannot be set up: {exc}"
            log.error("%s", self._failure)
            return
        if not self._setup_cgroups():
            return
        names = None if config.backends is None else ["cpu", *config.backends]
        backends = load_backends(names)
        for backend in backends:
            try:
                instances = backend.discover(config)
            except Exception as exc:
                log.exception("discovering %s failed", backend.name)
                self._problems[backend.name] = f"discovery failed: {exc}"
                continue
            for instance in instances:
                self._add_pool(backend, instance, sandbox)
            if backend.name != "cpu" and not instances:
                self._problems.setdefault(backend.name, "no such device on this host")
        for pools in self._groups.values():
            for pool in pools:
                pool.wait_started()
        self._check_devices(backends)

    def _setup_cgroups(self) -> bool:
        """False when runs would have to go without a cgroup and the config forbids that."""
        policy = self.config.cgroups
        if policy == "off":
            return True
        try:
            self.cgroups = Cgroups.create()
        except CgroupUnavailable as exc:
            if policy == "required" and not self.config.unsafe_dev_mode:
                self._failure = (
                    f"runs cannot get a cgroup of their own ({exc}); allow one (see the "
                    "grader docs, 'Requirements') or set GRADER_CGROUPS=optional to grade "
                    "without a per-run memory budget"
                )
                log.error("%s", self._failure)
                return False
            log.warning(
                "grading WITHOUT a cgroup per run (%s): memory is bounded per process only", exc
            )
            return True
        log.info("each run gets a cgroup of its own (cgroup v%d)", self.cgroups.version)
        return True

    def close(self) -> None:
        self._closed = True
        for pools in self._groups.values():
            for pool in pools:
                pool.close()
        self._groups.clear()
        if self.cgroups is not None:
            self.cgroups.close()

    def __enter__(self) -> Grader:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def devices(self) -> list[str]:
        """Device types runs can go to; "cpu" always (its runs fail closed if it is broken)."""
        return ["cpu", *(name for name in self._groups if name != "cpu")]

    @property
    def problems(self) -> dict[str, str]:
        """Why a device is unavailable or failing, by device type."""
        problems = dict(self._problems)
        if self._failure:
            problems["cpu"] = self._failure
        for name, pools in self._groups.items():
            errors = [pool.error for pool in pools if pool.error]
            if errors and len(errors) == len(pools):
                problems[name] = errors[0]
        return problems

    # --- grading -----------------------------------------------------------------------------

    def grade(self, job: Job) -> Result:
        runs = [self._grade_on(job, device) for device in dict.fromkeys(job.devices)]
        return Result(job_id=job.id, runs=runs)

    def run(
        self,
        code: str,
        device: str = "cpu",
        limits: Limits | None = None,
        setup: str | None = None,
    ) -> Run:
        """Run code without grading it: a clean exit is "passed"."""
        limits = limits or Limits()
        outcome = self._execute(code, device, limits, setup)
        if outcome is None:
            return _not_graded(device)
        return build_run(outcome, device, limits)

    def _grade_on(self, job: Job, device: str) -> Run:
        """The visible example on `device`, then, once it passed, every hidden variant."""
        outcome = self._execute(job.code, device, job.limits, job.setup)
        if outcome is None:
            return _not_graded(device)
        run = build_run(outcome, device, job.limits, job.expected_output, job.comparison)
        if run.verdict != "passed":
            return run
        for variant in job.variants:
            hidden = self._execute(job.code, device, job.limits, variant.setup)
            checked = (
                Run.without_output(device, "error", f"{device} went away")
                if hidden is None
                else build_run(hidden, device, job.limits, variant.expected_output, job.comparison)
            )
            if checked.verdict == "error":
                # A platform fault, not the student's: the whole device run is an error, which
                # callers retry. Its detail names no variant (the student may read it).
                reason = f"a hidden check could not be graded: {checked.detail or 'grader error'}"
                return Run.without_output(device, "error", reason)
            run.hidden_runs.append(checked.as_hidden(variant.name))
        return run

    def _execute(
        self, code: str, device: str, limits: Limits, setup: str | None = None
    ) -> Outcome | None:
        if not self._started:
            self.start()
        if self._closed:
            return Outcome(fault="the grader is closed")
        if self._failure:
            return Outcome(fault=self._failure)
        device_type = device.split(":", 1)[0]
        pools = self._groups.get(device_type)
        if not pools:
            return None
        pool = min(pools, key=lambda candidate: (candidate.error is not None, candidate.active))
        return pool.execute(code, limits, setup)

    # --- setup -------------------------------------------------------------------------------

    def _sandbox(self) -> _Sandbox:
        config = self.config
        hidden = tuple(
            sorted({*default_hidden_paths(), *map(os.path.realpath, config.hidden_paths)})
        )
        for path in config.extra_ro_paths:
            real = os.path.realpath(path)
            if real == "/" or any(inside(secret, real) for secret in hidden):
                raise ExposureError(f"refusing to expose {path}: it contains a protected path")
            if any(inside(real, own) for own in bubblewrap.RUN_OWNED_DIRS):
                raise ExposureError(f"cannot expose {path}: each run mounts its own {real}")
        isolate = not config.unsafe_dev_mode
        bwrap = config.bwrap
        if isolate:
            found = shutil.which(bwrap)
            if found is None:
                raise ExposureError(f"bubblewrap not found ({bwrap!r}); install `bubblewrap`")
            bwrap = found
        return _Sandbox(
            isolate=isolate,
            bwrap=bwrap,
            interpreter=inspect_interpreter(config.python, hidden),
            hidden=hidden,
            seccomp_hex=seccomp.build_filter().hex() if isolate else "",
        )

    def _add_pool(self, backend: Backend, instance: DeviceInstance, sandbox: _Sandbox) -> None:
        config = self.config
        zygote_config = {
            "isolate": sandbox.isolate,
            "zygote_uid": bubblewrap.RUN_UID,
            "zygote_gid": bubblewrap.RUN_UID,
            "run_uid": bubblewrap.RUN_UID,
            "preload": config.preload,
            "zygote_setup": backend.zygote_setup,
            "warmup": backend.warmup,
            "prepare": backend.prepare,
            "memory_policy": backend.memory_policy,
            "seccomp": sandbox.seccomp_hex,
            "scratch_mb": Limits().file_size_mb,
            "nice": 5,
            # Interpreter directories under /tmp (say, a checkout in /tmp) would vanish under
            # each run's own /tmp; the keeper puts them back, read-only.
            "keep_under_tmp": [d for d in sandbox.interpreter.dirs if inside(d, "/tmp")],
        }
        interpreter = sandbox.interpreter
        spec = LaunchSpec(
            label=instance.label,
            isolate=sandbox.isolate,
            bwrap=sandbox.bwrap,
            interpreter=interpreter,
            env=bubblewrap.base_env(interpreter.executable, {**instance.env, **config.extra_env}),
            dev_nodes=instance.dev_nodes,
            ro_paths=(*instance.ro_paths, *config.extra_ro_paths),
            hidden=sandbox.hidden,
            sandbox_uid=config.sandbox_uid,
            config=zygote_config,
        )
        pool = DevicePool(
            instance, spec, config.start_timeout_s, config.spare_timeout_s, self.cgroups
        )
        pool.start()
        self._groups.setdefault(instance.device_type, []).append(pool)

    def _check_devices(self, backends: list[Backend]) -> None:
        """Allocate and compute on every device; drop the ones that fail (CPU fails closed)."""
        by_name = {backend.name: backend for backend in backends}
        for name, pools in list(self._groups.items()):
            backend = by_name[name]
            working = []
            for pool in pools:
                problem = self._probe(pool, backend)
                if problem is None:
                    working.append(pool)
                    continue
                log.error("%s self-test failed: %s", pool.instance.label, problem)
                if name == "cpu":
                    # Kept: its runs fail closed while it is broken, and it may recover.
                    self._problems[name] = f"the sandbox self-test failed: {problem}"
                    working.append(pool)
                else:
                    self._problems[name] = problem
                    pool.close()
            if working:
                self._groups[name] = working
            else:
                del self._groups[name]

    def _probe(self, pool: DevicePool, backend: Backend) -> str | None:
        problem = None
        for attempt in range(PROBE_ATTEMPTS):
            if attempt:
                if not pool.has_zygote:
                    break  # it cannot even start: no point in waiting
                time.sleep(2)  # a zygote being restarted, a machine busy starting up...
            problem = self._probe_once(pool, backend)
            if problem is None:
                return None
        return problem

    def _probe_once(self, pool: DevicePool, backend: Backend) -> str | None:
        if pool.error:
            return pool.error
        limits = Limits(wall_time_s=120, cpu_time_s=120)
        outcome = pool.execute(backend.probe_code, limits)
        run = build_run(outcome, backend.name, limits)
        if run.verdict != "passed":
            return run.detail or f"{run.verdict}: {run.stderr.strip()[-500:]}"
        matched, diff = compare(backend.probe_expected, run.stdout, Comparison(), backend.name)
        return None if matched else f"unexpected self-test output:\n{diff}"


def _not_graded(device: str) -> Run:
    return Run.without_output(device, "not_graded", f"not graded on {device} here")
