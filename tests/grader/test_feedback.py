"""Traceback trimming, the device-independence hint and out-of-memory detection."""

from __future__ import annotations

from grader.feedback import needs_device_hint, ran_out_of_memory, trim_traceback

TORCH_TRACEBACK = """Traceback (most recent call last):
  File "main.py", line 3, in <module>
    x = torch.ones(2, 3).to(cihaz)
        ^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/venv/lib/python3.11/site-packages/torch/cuda/__init__.py", line 403, in _lazy_init
    raise AssertionError("Torch not compiled with CUDA enabled")
AssertionError: Torch not compiled with CUDA enabled
"""


def test_trim_keeps_student_frames_and_the_exception() -> None:
    assert trim_traceback(TORCH_TRACEBACK) == (
        "Traceback (most recent call last):\n"
        '  File "main.py", line 3, in <module>\n'
        "    x = torch.ones(2, 3).to(cihaz)\n"
        "        ^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
        "AssertionError: Torch not compiled with CUDA enabled\n"
    )


def test_trim_handles_chained_exceptions_and_plain_output() -> None:
    text = (
        "warning from the code\n"
        "Traceback (most recent call last):\n"
        '  File "/opt/grader/inside/runner.py", line 9, in run\n'
        "    exec(code)\n"
        '  File "main.py", line 1, in <module>\n'
        "    {}['x']\n"
        "KeyError: 'x'\n"
        "\n"
        "During handling of the above exception, another exception occurred:\n"
        "\n"
        "Traceback (most recent call last):\n"
        '  File "main.py", line 3, in <module>\n'
        "    raise ValueError\n"
        "ValueError\n"
    )
    trimmed = trim_traceback(text)
    assert "runner.py" not in trimmed and "exec(code)" not in trimmed
    assert trimmed.startswith("warning from the code\n")
    assert "KeyError: 'x'" in trimmed and "During handling" in trimmed
    assert trimmed.rstrip().endswith("ValueError")


def test_syntax_errors_are_left_alone() -> None:
    text = '  File "main.py", line 1\n    def f(:\n          ^\nSyntaxError: invalid syntax\n'
    assert trim_traceback(text) == text


def test_device_hint_triggers() -> None:
    assert needs_device_hint(TORCH_TRACEBACK)
    assert needs_device_hint("RuntimeError: Found no NVIDIA driver on your system.")
    assert needs_device_hint("RuntimeError: No CUDA GPUs are available")
    assert not needs_device_hint("ValueError: cuda is a nice word")


def test_out_of_memory_is_read_from_the_final_exception() -> None:
    assert ran_out_of_memory('Traceback...\n  File "main.py", line 1\nMemoryError\n')
    assert ran_out_of_memory(
        "RuntimeError: [enforce fail at alloc_cpu.cpp:127] DefaultCPUAllocator: can't allocate"
    )
    assert ran_out_of_memory("terminate called after throwing an instance of 'std::bad_alloc'")
    assert not ran_out_of_memory('  File "main.py", line 1\n    MemoryError\nValueError: no\n')
