"""The CUDA back end: one warm interpreter per NVIDIA GPU, one run per GPU at a time by default.

CUDA cannot survive fork(), so the zygote never touches the GPU; each pre-forked run initialises
its own context while it waits for a job, and the job finds it warm. RLIMIT_AS breaks CUDA, so
these runs are bounded by polling their resident memory, and torch's allocator is capped.
"""

from __future__ import annotations

import contextlib
import glob
import os
import re
import shutil
import subprocess
from typing import TYPE_CHECKING

from . import DeviceInstance, MemoryPolicy

if TYPE_CHECKING:
    from ..config import GraderConfig

_SHARED_NODES = ("/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools")
# The driver reads PCI topology and module parameters from sysfs.
_SYSFS = ("/sys/devices", "/sys/bus", "/sys/class", "/sys/module", "/sys/dev")


class CudaBackend:
    name = "cuda"
    memory_policy: MemoryPolicy = "resident"
    zygote_setup = "import torch\ntorch.set_num_threads(1)\ntorch.set_num_interop_threads(1)\n"
    warmup = """
import torch
torch.cuda.init()
x = torch.ones(256, 256, device="cuda")
(x @ x).sum().item()
torch.cuda.synchronize()
"""
    prepare = """
import torch
torch.cuda.seed_all()
total = torch.cuda.get_device_properties(0).total_memory
torch.cuda.set_per_process_memory_fraction(min(1.0, limits["memory_mb"] * 2**20 / total))
"""
    probe_code = (
        "import torch\n"
        "x = torch.ones(256, 256, device='cuda')\n"
        "print(torch.cuda.device_count(), (x @ x).sum().item(), x.device)\n"
    )
    probe_expected = "1 16777216.0 cuda:0"

    def discover(self, config: GraderConfig) -> list[DeviceInstance]:
        if not os.path.exists("/dev/nvidiactl"):
            return []
        if not os.path.exists("/dev/nvidia-uvm"):
            _create_uvm_node()
        gpus = _gpus()
        instances = []
        for minor, uuid in gpus:
            node = f"/dev/nvidia{minor}"
            if not os.path.exists(node):
                continue
            env = {"PYTORCH_NVML_BASED_CUDA_CHECK": "1"}
            # With several GPUs, name the one this sandbox may use (its node is the only one
            # bound, but the driver still lists the others).
            if uuid and len(gpus) > 1:
                env["CUDA_VISIBLE_DEVICES"] = uuid
            instances.append(
                DeviceInstance(
                    device_type="cuda",
                    label=f"cuda (GPU {minor})",
                    concurrency=config.gpu_runs_per_device,
                    spares=config.gpu_spares,
                    dev_nodes=tuple(p for p in (*_SHARED_NODES, node) if os.path.exists(p)),
                    ro_paths=_SYSFS,
                    env=env,
                )
            )
        return instances


def _create_uvm_node() -> None:
    """/dev/nvidia-uvm appears on first CUDA use; a sandbox cannot create it, so do it here."""
    tool = shutil.which("nvidia-modprobe")
    if tool is None:
        return
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        subprocess.run([tool, "-u", "-c=0"], capture_output=True, timeout=30, check=False)


def _gpus() -> list[tuple[int, str | None]]:
    """(device minor, UUID) of every NVIDIA GPU the driver reports."""
    found: list[tuple[int, str | None]] = []
    for info in sorted(glob.glob("/proc/driver/nvidia/gpus/*/information")):
        try:
            with open(info) as handle:
                text = handle.read()
        except OSError:
            continue
        minor = re.search(r"Device Minor:\s*(\d+)", text)
        uuid = re.search(r"GPU UUID:\s*(\S+)", text)
        if minor:
            found.append((int(minor.group(1)), uuid.group(1) if uuid else None))
    if not found:
        for node in sorted(glob.glob("/dev/nvidia[0-9]*")):
            digits = node.removeprefix("/dev/nvidia")
            if digits.isdigit():
                found.append((int(digits), None))
    return sorted(found)


BACKEND = CudaBackend()
