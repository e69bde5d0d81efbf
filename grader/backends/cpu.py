"""The CPU back end: always present; accelerators are hidden from its runs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import DeviceInstance, MemoryPolicy

if TYPE_CHECKING:
    from ..config import GraderConfig

# Typical first steps of an exercise, so lazy initialisation happens once in the warm image and
# the copy-on-write faults of a run happen before its job arrives.
WARM_TORCH = """
import io, contextlib
import torch
x = torch.ones(2, 3)
y = (x * 3).to("cpu").cpu()
z = torch.nn.functional.relu(torch.randn(4, 4) @ torch.randn(4, 4)).sum()
with contextlib.redirect_stdout(io.StringIO()):
    print(y.tolist(), y, y.device.type == "cpu", z.item())
"""


class CpuBackend:
    name = "cpu"
    memory_policy: MemoryPolicy = "address_space"
    zygote_setup = (
        "import torch\ntorch.set_num_threads(1)\ntorch.set_num_interop_threads(1)\n" + WARM_TORCH
    )
    # Only runs may ask about CUDA: a CUDA-enabled torch must not initialise it in the zygote.
    warmup = WARM_TORCH + "torch.cuda.is_available()\n"
    prepare = ""
    probe_code = "import torch\nx = torch.ones(2, 2)\nprint((x @ x).sum().item())\n"
    probe_expected = "8.0"

    def discover(self, config: GraderConfig) -> list[DeviceInstance]:
        spares = config.spares if config.spares is not None else config.workers
        return [
            DeviceInstance(
                device_type="cpu",
                label="cpu",
                concurrency=config.workers,
                spares=spares,
                env={"CUDA_VISIBLE_DEVICES": "", "HIP_VISIBLE_DEVICES": ""},
            )
        ]


BACKEND = CpuBackend()
