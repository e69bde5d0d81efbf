"""A timed-out run says it was stopped at the time limit and where to look, never the
grader's kill as an exit code (issue 11, point 14): in the API (English), on the pages (the
reader's language) and in the browser script (frontend/feedback.js, its own words)."""

from __future__ import annotations

import pytest

from app import i18n
from app.submissions.present import run_detail, shows_exit_code

TIMED_OUT = {"verdict": "timeout", "exit_code": -9, "detail": "still running after 10 s"}


@pytest.mark.parametrize(
    ("grader_detail", "limit"),
    [("still running after 10 s", "10"), ("used more than 2.5 s of CPU time", "2.5")],
)
def test_a_timeout_names_the_limit_and_suggests_an_endless_loop(
    grader_detail: str, limit: str
) -> None:
    run = TIMED_OUT | {"detail": grader_detail}
    assert run_detail(run, str) == (
        f"stopped after the time limit of {limit} s; look for a loop that never ends"
    )
    assert not shows_exit_code(run)


def test_the_page_says_it_in_the_readers_language() -> None:
    i18n.set_language("tr")
    try:
        assert run_detail(TIMED_OUT) == (
            "10 sn süre sınırında durduruldu; hiç bitmeyen bir döngü arayın"
        )
    finally:
        i18n.set_language("en")


def test_other_runs_keep_their_detail_and_exit_code() -> None:
    crashed = {"verdict": "runtime_error", "exit_code": 1, "detail": None}
    assert run_detail(crashed, str) is None and shows_exit_code(crashed)
    killed = {"verdict": "runtime_error", "exit_code": -11, "detail": "killed by SIGSEGV"}
    assert run_detail(killed, str) == "killed by SIGSEGV"
    assert not shows_exit_code({"verdict": "passed", "exit_code": 0})
