"""Device back ends as plugins.

A back end is any object with the attributes of `Backend`. The built-in ones are the modules of
this package that define a module-level `BACKEND`; installed packages can add more through the
`grader.backends` entry-point group. Adding ROCm, MPS or XPU therefore means adding one module
(or one package); the core never names a back end.
"""

from __future__ import annotations

import importlib
import logging
import pkgutil
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Literal, Protocol

if TYPE_CHECKING:
    from ..config import GraderConfig

log = logging.getLogger(__name__)

MemoryPolicy = Literal["address_space", "resident"]


@dataclass(frozen=True)
class DeviceInstance:
    """One place runs of a back end go to: the CPU, or one particular GPU."""

    device_type: str  # what jobs ask for: "cpu", "cuda"
    label: str  # for logs and errors: "cpu", "cuda (GPU 3)"
    concurrency: int  # runs at the same time on it
    spares: int  # pre-forked, pre-isolated runs kept ready
    dev_nodes: tuple[str, ...] = ()  # device files the sandbox gets, e.g. /dev/nvidia0
    ro_paths: tuple[str, ...] = ()  # extra read-only host paths the back end needs
    env: dict[str, str] = field(default_factory=dict)


class Backend(Protocol):
    name: str
    memory_policy: MemoryPolicy  # RLIMIT_AS where it works, resident-set polling where not
    zygote_setup: str  # Python run once in the warm interpreter (must not touch the device)
    warmup: str  # Python run in every pre-forked run before it reports ready
    prepare: str  # Python run at job time with `limits` (a dict) in scope
    probe_code: str  # a program that allocates and computes on the device...
    probe_expected: str  # ...and the output it must print

    def discover(self, config: GraderConfig) -> list[DeviceInstance]:
        """Instances this host seems to have (cheap checks; the probe decides)."""
        ...


def load_backends(names: list[str] | None = None) -> list[Backend]:
    found: dict[str, Backend] = {}
    for module_info in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{module_info.name}")
        backend = getattr(module, "BACKEND", None)
        if backend is not None:
            found.setdefault(backend.name, backend)
    for entry in entry_points(group="grader.backends"):
        try:
            backend = entry.load()
        except Exception:
            log.exception("could not load grader back end %s", entry.name)
            continue
        found.setdefault(backend.name, backend)
    chosen = [found[name] for name in (names or sorted(found)) if name in found]
    # CPU first: it is the one every job can fall back on and the one start() must not skip.
    return sorted(chosen, key=lambda backend: backend.name != "cpu")
