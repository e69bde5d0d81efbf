"""How a Grader is set up. Defaults suit a single machine; every field can be overridden."""

from __future__ import annotations

import os
import sys
from typing import Literal

from pydantic import BaseModel, Field

UNSAFE_ENV = "GRADER_UNSAFE_DEV_MODE"
CGROUPS_ENV = "GRADER_CGROUPS"
CgroupPolicy = Literal["required", "optional", "off"]


def _unsafe_from_env() -> bool:
    return os.environ.get(UNSAFE_ENV, "").strip().lower() in {"1", "true", "yes", "on"}


def _cgroups_from_env() -> CgroupPolicy:
    value = os.environ.get(CGROUPS_ENV, "").strip().lower() or "required"
    if value not in ("required", "optional", "off"):
        raise ValueError(f"{CGROUPS_ENV} must be required, optional or off, not {value!r}")
    return value  # type: ignore[return-value]


class GraderConfig(BaseModel):
    workers: int = Field(default=2, ge=1, description="CPU runs at the same time")
    spares: int | None = Field(
        default=None, ge=0, description="pre-forked, pre-isolated CPU runs kept ready (workers)"
    )
    gpu_runs_per_device: int = Field(default=1, ge=1)
    gpu_spares: int = Field(
        default=3, ge=0, description="runs per GPU kept ready with a CUDA context initialised"
    )
    unsafe_dev_mode: bool = Field(default_factory=_unsafe_from_env)
    cgroups: CgroupPolicy = Field(
        default_factory=_cgroups_from_env,
        description=(
            "a cgroup per run (one memory budget, a process cap, a CPU weight): `required` "
            "refuses to grade without one, `optional` grades with a warning, `off` never tries"
        ),
    )
    python: str = Field(default=sys.executable, description="interpreter run in the sandbox")
    bwrap: str = "bwrap"
    sandbox_uid: int = Field(
        default=65534, description="host uid the sandbox runs as when the grader runs as root"
    )
    extra_env: dict[str, str] = Field(default_factory=dict)
    extra_ro_paths: list[str] = Field(default_factory=list)
    hidden_paths: list[str] = Field(
        default_factory=list, description="host paths never exposed, e.g. the database directory"
    )
    preload: list[str] = Field(default_factory=lambda: ["torch", "numpy", "numpy.random"])
    backends: list[str] | None = Field(
        default=None, description="back ends to try (None: all registered)"
    )
    start_timeout_s: float = Field(default=120.0, gt=0)
    spare_timeout_s: float = Field(default=60.0, gt=0)
