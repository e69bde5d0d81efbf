"""docs/security.md: "A web process checks at most `LOGIN_CONCURRENCY_PER_USER` (2) log-ins
of one username at the same time; the others are answered 429 at once (`Retry-After: 1`)."
The burst test in tests/app/auth/test_throttle.py shows that some are refused; this pins the
number, the wait and that a slot frees when a log-in ends."""

from __future__ import annotations

from contextlib import AsyncExitStack
from pathlib import Path

import pytest

from app.auth.throttle import LoginLimits, Refusal, TooManyAttempts, one_of_few
from tests.conftest import test_settings
from tests.helpers import unique_name


async def test_past_the_limit_a_log_in_is_refused_at_once_for_one_second(tmp_path: Path) -> None:
    limits = LoginLimits.from_settings(test_settings(tmp_path))
    busy, other = unique_name(), unique_name()
    async with AsyncExitStack() as held:
        for _ in range(limits.concurrent_per_user):
            await held.enter_async_context(one_of_few(busy, limits))
        with pytest.raises(TooManyAttempts) as refused:
            await held.enter_async_context(one_of_few(busy, limits))
        assert (refused.value.retry_after_s, refused.value.reason) == (1, Refusal.LOG_INS)
        async with one_of_few(other, limits):  # another user is not held up
            pass
    async with AsyncExitStack() as held:  # the slots came back when those log-ins ended
        for _ in range(limits.concurrent_per_user):
            await held.enter_async_context(one_of_few(busy, limits))
