"""CPU time of one call, for the tests that bound an algorithm's cost on hostile input."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable


def cpu_seconds(call: Callable[[], object]) -> float:
    """The calling thread's CPU time in `call`, with the collector off: a worker late in a
    run holds a large heap, and a full collection that the call's allocations happen to
    start walks all of it (0.7 s seen in a run, for a diff that takes 0.02 s), which is the
    suite's cost, not the algorithm's. Nothing is collected first: that would walk the
    heap at every call instead (a module of these took 85 s instead of a few)."""
    gc.disable()
    try:
        started = time.thread_time()
        call()
        return time.thread_time() - started
    finally:
        gc.enable()
