"""What a student reads besides the verdict: tracebacks cut down to their own code, and hints."""

from __future__ import annotations

import re

STUDENT_FILE = "main.py"
DEVICE_HINT = (
    "This code seems to require a CUDA GPU, but every solution must also run on the CPU. "
    'Pick the device at run time: device = "cuda" if torch.cuda.is_available() else "cpu"'
)

_FRAME = re.compile(r'^\s*File "(?P<file>[^"]*)", line \d+')
_CUDA_REQUIRED = re.compile(
    r"Torch not compiled with CUDA enabled"
    r"|Found no NVIDIA driver"
    r"|No CUDA GPUs are available"
    r"|no CUDA-capable device"
    r"|CUDA driver initialization failed"
    r"|CUDA_VISIBLE_DEVICES"
    r"|torch\.cuda\.is_available\(\) is False"
    r"|Attempting to deserialize object on a CUDA device"
    r"|cudaGetDeviceCount"
    r"|Cannot access accelerator device when none is available"
    r"|device type at start of device string: cuda",
)
_OUT_OF_MEMORY = re.compile(
    r"^(?:\w+\.)*MemoryError\b"
    r"|DefaultCPUAllocator: (?:can't|not enough memory)"
    r"|std::bad_alloc"
    r"|Cannot allocate memory"
    r"|CUDA out of memory"
    r"|OutOfMemoryError",
    re.MULTILINE,
)


def trim_traceback(stderr: str) -> str:
    """Drop traceback frames outside main.py (the runner's, torch's), keeping everything else."""
    lines = stderr.split("\n")
    kept: list[str] = []
    dropping = False
    frame_indent = 0
    for line in lines:
        match = _FRAME.match(line)
        if match:
            dropping = match.group("file") != STUDENT_FILE
            frame_indent = len(line) - len(line.lstrip())
            if not dropping:
                kept.append(line)
            continue
        if dropping and line.startswith(" " * (frame_indent + 1)) and line.strip():
            continue  # source and caret lines of a dropped frame
        dropping = False
        kept.append(line)
    return "\n".join(kept)


def needs_device_hint(stderr: str) -> bool:
    return bool(_CUDA_REQUIRED.search(stderr))


def ran_out_of_memory(stderr: str) -> bool:
    return bool(_OUT_OF_MEMORY.search(_last_exception(stderr)))


def _last_exception(stderr: str) -> str:
    """The final exception block: the lines after the last frame of the last traceback."""
    tail = stderr.rstrip().split("\n")
    for index in range(len(tail) - 1, -1, -1):
        if _FRAME.match(tail[index]):
            return "\n".join(line for line in tail[index + 1 :] if not line.startswith("    "))
    return "\n".join(tail[-20:])
