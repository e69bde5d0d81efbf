"""Turning what happened to a run into the verdict, output and feedback the student sees."""

from __future__ import annotations

import signal

from .comparison import ComparisonError, compare_output
from .contract import Comparison, Limits, Run, RunVerdict
from .feedback import DEVICE_HINT, needs_device_hint, ran_out_of_memory, trim_traceback
from .pool import Outcome

# Dying by one of these near the memory bound means the allocator gave up, not the code.
_CRASH_SIGNALS = {signal.SIGKILL, signal.SIGSEGV, signal.SIGABRT, signal.SIGBUS}


def build_run(
    outcome: Outcome,
    device: str,
    limits: Limits,
    expected: str | None = None,
    comparison: Comparison | None = None,
) -> Run:
    """The Run for `outcome`; compares with `expected` when given, else a clean exit passes."""
    stdout = outcome.stdout.decode("utf-8", errors="replace")
    stderr = trim_traceback(outcome.stderr.decode("utf-8", errors="replace"))
    exit_code = outcome.exit_code
    if outcome.signal is not None:
        exit_code = -outcome.signal
    run = Run(
        device=device,
        verdict="error",
        stdout=stdout,
        stderr=stderr,
        exit_code=exit_code,
        duration_ms=outcome.duration_ms,
        diff="",
    )
    verdict, detail = _classify(outcome, limits, stderr)
    if verdict == "passed" and expected is not None:
        try:
            match = compare_output(expected, stdout, comparison or Comparison(), device)
        except ComparisonError as exc:
            verdict, detail = "error", f"the exercise's expected output is broken: {exc}"
        else:
            verdict = "passed" if match.matched else "wrong_output"
            run.diff, detail = match.diff, match.detail
    run.verdict, run.detail = verdict, detail
    if verdict == "runtime_error" and device.split(":")[0] == "cpu" and needs_device_hint(stderr):
        run.hint = DEVICE_HINT
    return run


def _classify(outcome: Outcome, limits: Limits, stderr: str) -> tuple[RunVerdict, str | None]:
    if outcome.fault:
        return "error", outcome.fault
    if outcome.killed == "output":
        return "output_limit", f"more than {limits.output_kb} KB of output"
    if outcome.oom_killed:
        return "memory_limit", (
            f"used more than its memory budget of {limits.memory_mb} MB "
            "(all its processes and every kind of memory together)"
        )
    if outcome.killed == "wall_time":
        return "timeout", f"still running after {limits.wall_time_s:g} s"
    if outcome.killed == "memory":
        return "memory_limit", f"used more than {limits.memory_mb} MB"
    if outcome.signal == signal.SIGXCPU or (
        outcome.signal == signal.SIGKILL and outcome.cpu_s >= limits.cpu_time_s - 0.05
    ):
        return "timeout", f"used more than {limits.cpu_time_s:g} s of CPU time"
    if outcome.signal is not None or outcome.exit_code != 0:
        near_limit = outcome.maxrss_kb >= 0.9 * limits.memory_mb * 1024
        if ran_out_of_memory(stderr) or (outcome.signal in _CRASH_SIGNALS and near_limit):
            return "memory_limit", f"ran out of memory (limit {limits.memory_mb} MB)"
        if outcome.signal is not None:
            return "runtime_error", f"killed by {_signal_name(outcome.signal)}"
        return "runtime_error", None
    return "passed", None


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
