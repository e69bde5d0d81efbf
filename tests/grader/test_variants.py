"""Hidden variants: the same code after another setup must print another expected output, so
a program that only prints the visible expected output passes the example and fails."""

from __future__ import annotations

from pathlib import Path

import pytest
import redis

from grader import Grader, Job, Result, Run, Variant
from grader.queueing import RunEvent, RunRequest, results_stream
from grader.worker import EventSender, make_handler
from tests.processes import PrivateRedis, stream_entries

SUM_CODE = "print(sum(numbers))\n"
HARD_CODED = "print(6)\n"
VISIBLE_SETUP = "numbers = [1, 2, 3]\n"
VARIANTS = [
    Variant(name="longer", setup="numbers = [10, 20, 30, 40]\n", expected_output="100"),
    Variant(name="negative", setup="numbers = [-5, 2]\n", expected_output="-3"),
]


def sum_job(code: str, **overrides: object) -> Job:
    fields: dict[str, object] = {
        "id": "variants",
        "code": code,
        "expected_output": "6",
        "setup": VISIBLE_SETUP,
        "variants": VARIANTS,
    }
    return Job.model_validate(fields | overrides)


def test_a_correct_program_passes_the_example_and_every_variant(grader: Grader) -> None:
    result = grader.grade(sum_job(SUM_CODE))
    assert (result.status, result.verdict) == ("done", "passed")
    (run,) = result.runs
    assert (run.variant, run.verdict, run.stdout) == (None, "passed", "6\n")
    assert [(h.variant, h.verdict) for h in run.hidden_runs] == [
        ("longer", "passed"),
        ("negative", "passed"),
    ]


def test_hard_coded_output_passes_the_example_and_fails_a_hidden_check(grader: Grader) -> None:
    result = grader.grade(sum_job(HARD_CODED))
    assert (result.status, result.verdict) == ("done", "wrong_output")
    (run,) = result.runs
    assert (run.verdict, run.stdout, run.diff) == ("passed", "6\n", "")
    assert [(h.variant, h.verdict) for h in run.hidden_runs] == [
        ("longer", "wrong_output"),
        ("negative", "wrong_output"),
    ]


def test_a_hidden_run_never_carries_its_output(grader: Grader) -> None:
    code = "import sys\nprint('secret', numbers)\nprint('oops', file=sys.stderr)\nprint(6)\n"
    result = grader.grade(sum_job(code, expected_output="secret [1, 2, 3]\n6"))
    (run,) = result.runs
    assert run.verdict == "passed" and "oops" in run.stderr
    for hidden in run.hidden_runs:
        assert hidden.verdict == "wrong_output"
        assert (hidden.stdout, hidden.stderr, hidden.diff, hidden.hint) == ("", "", "", None)
        assert hidden.hidden_runs == []
    text = result.model_dump_json()
    assert "[10, 20, 30, 40]" not in text and "[-5, 2]" not in text
    assert text.count("oops") == 1  # the visible run's own


def test_a_variant_that_crashes_gives_its_own_verdict(grader: Grader) -> None:
    code = "print(sum(numbers) if len(numbers) < 4 else numbers[99])\n"
    result = grader.grade(sum_job(code))
    assert result.verdict == "runtime_error"
    (run,) = result.runs
    assert run.verdict == "passed"
    longer, negative = run.hidden_runs
    assert (longer.verdict, longer.exit_code, longer.stderr) == ("runtime_error", 1, "")
    assert negative.verdict == "passed"


def test_a_platform_fault_in_a_hidden_check_makes_the_device_run_an_error(
    grader: Grader,
) -> None:
    """So that the app retries it as it retries any platform fault (here: the exercise's own
    broken pattern, which is never the student's fault)."""
    broken = Variant(name="secret-name", setup="numbers = [1]\n", expected_output="total (")
    job = sum_job(
        "print('total', sum(numbers))\n",
        expected_output="total \\d+",
        comparison={"mode": "patterns"},
        variants=[broken],
    )
    result = grader.grade(job)
    assert (result.status, result.verdict) == ("error", None)
    (run,) = result.runs
    assert run.verdict == "error" and run.hidden_runs == []
    assert run.detail is not None and run.detail.startswith("a hidden check could not be graded")
    assert "secret-name" not in run.detail


def test_no_variant_runs_when_the_example_fails(grader: Grader) -> None:
    result = grader.grade(sum_job("print(7)\n"))
    assert result.verdict == "wrong_output"
    (run,) = result.runs
    assert run.verdict == "wrong_output" and "-6" in run.diff
    assert run.hidden_runs == []


def test_the_example_runs_after_its_own_setup_and_each_variant_after_its_own(
    grader: Grader,
) -> None:
    code = "print(sorted(k for k in globals() if k in ('numbers', 'extra')))\n"
    variants = [Variant(name="extra", setup="extra = 1\n", expected_output="['extra']")]
    result = grader.grade(
        sum_job(code, expected_output="['numbers']", variants=variants, devices=["cpu"])
    )
    assert result.verdict == "passed", result


def test_a_job_without_setup_or_variants_grades_as_before(grader: Grader) -> None:
    result = grader.grade(Job(id="plain", code="print(1)", expected_output="1"))
    assert result.verdict == "passed"
    assert result.runs[0].hidden_runs == [] and result.runs[0].variant is None


def _run(device: str, verdict: str, hidden: list[Run] | None = None) -> Run:
    run = Run.without_output(device, verdict, "")  # type: ignore[arg-type]
    return run.model_copy(update={"hidden_runs": hidden or [], "detail": None})


def test_a_visible_failure_anywhere_comes_before_a_hidden_one() -> None:
    hidden = [_run("cpu", "runtime_error").model_copy(update={"variant": "v"})]
    result = Result(job_id="1", runs=[_run("cpu", "passed", hidden), _run("cuda", "wrong_output")])
    assert (result.status, result.verdict) == ("done", "wrong_output")
    only_hidden = Result(job_id="1", runs=[_run("cpu", "passed", hidden)])
    assert only_hidden.verdict == "runtime_error"


def test_a_platform_fault_in_a_hidden_run_is_an_error_that_names_no_variant() -> None:
    broken = Run.without_output("cpu", "error", "the sandbox broke").as_hidden("secret-name")
    result = Result(job_id="1", runs=[_run("cpu", "passed", [broken])])
    assert (result.status, result.verdict) == ("error", None)
    assert result.detail == "cpu, a hidden check: the sandbox broke"


def test_runs_keep_reading_json_written_before_variants() -> None:
    old = (
        '{"device": "cpu", "verdict": "passed", "stdout": "1\\n", "stderr": "",'
        ' "exit_code": 0, "duration_ms": 3, "diff": ""}'
    )
    run = Run.model_validate_json(old)
    assert (run.variant, run.hidden_runs) == (None, [])
    old_job = Job.model_validate_json('{"id": "1", "code": "print(1)", "expected_output": "1"}')
    assert (old_job.setup, old_job.variants) == (None, [])
    hidden = [_run("cpu", "wrong_output").as_hidden("v")]
    result = Result(job_id="1", runs=[_run("cpu", "passed", hidden)])
    assert Result.model_validate_json(result.model_dump_json()) == result


@pytest.mark.distributed
def test_a_worker_sends_the_hidden_checks_back_inside_the_run(
    grader: Grader, tmp_path: Path
) -> None:
    """Distributed mode: the verdicts travel in the device's run; the outputs never do."""
    server = PrivateRedis(tmp_path).start()
    client = redis.Redis.from_url(server.url)
    try:
        handle = make_handler(grader, EventSender(client, "ns", give_up_after_s=5), "w", "cpu")
        handle(RunRequest(job=sum_job(HARD_CODED), device="cpu").model_dump(mode="json"))
        handle(
            RunRequest(job=sum_job(SUM_CODE, id="try"), device="cpu", grade=False).model_dump(
                mode="json"
            )
        )
        finished = [
            RunEvent.model_validate_json(fields[b"event"])
            for _id, fields in stream_entries(client, results_stream("ns"))
        ]
        graded, tried = [e.run for e in finished if e.event == "finished"]
    finally:
        client.close()
        server.kill()
    assert graded is not None and graded.verdict == "passed"
    assert [(h.variant, h.verdict, h.stdout) for h in graded.hidden_runs] == [
        ("longer", "wrong_output", ""),
        ("negative", "wrong_output", ""),
    ]
    # A try-out runs the example's setup and nothing hidden.
    assert tried is not None and (tried.stdout, tried.hidden_runs) == ("6\n", [])
