"""The job/result models the app relies on."""

from __future__ import annotations

from grader import Job, Limits, Result, Run


def make_run(device: str, verdict: str, detail: str | None = None) -> Run:
    return Run(
        device=device,
        verdict=verdict,
        stdout="",
        stderr="",
        exit_code=0,
        duration_ms=1,
        diff="",
        detail=detail,
    )


def test_job_defaults() -> None:
    job = Job(id="1", code="print(1)", expected_output="1")
    assert job.devices == ["cpu"]
    assert job.comparison.mode == "whitespace"
    assert job.limits == Limits()
    assert Limits().memory_mb == 1024 and Limits().output_kb == 64


def test_result_passes_when_every_graded_run_passes() -> None:
    result = Result(
        job_id="1",
        runs=[make_run("cpu", "passed"), make_run("cuda", "not_graded", "not graded on cuda here")],
    )
    assert (result.status, result.verdict, result.detail) == ("done", "passed", None)


def test_result_takes_the_first_failing_graded_run() -> None:
    runs = [make_run("cpu", "passed"), make_run("cuda", "wrong_output"), make_run("x", "timeout")]
    result = Result(job_id="1", runs=runs)
    assert (result.status, result.verdict) == ("done", "wrong_output")


def test_a_platform_fault_makes_the_result_an_error() -> None:
    result = Result(
        job_id="1", runs=[make_run("cpu", "wrong_output"), make_run("cuda", "error", "boom")]
    )
    assert (result.status, result.verdict) == ("error", None)
    assert result.detail == "cuda: boom"


def test_nothing_graded_is_an_error() -> None:
    result = Result(job_id="1", runs=[make_run("cuda", "not_graded", "not graded on cuda here")])
    assert (result.status, result.verdict) == ("error", None)
    assert "not graded on cuda here" in (result.detail or "")


def test_result_round_trips_through_json() -> None:
    result = Result(job_id="7", runs=[make_run("cpu", "passed")])
    data = result.model_dump_json()
    assert '"status":"done"' in data and '"verdict":"passed"' in data
    assert Result.model_validate_json(data) == result
