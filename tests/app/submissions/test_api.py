"""The submissions API in embedded mode, end to end through the real sandboxed grader."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
from fastapi import FastAPI

from app.config import REPO_ROOT
from tests.helpers import bearer, register

EXERCISE = "gpu-support-device-independent"
FOLDER = REPO_ROOT / "exercises/lessons/gpu-support/exercises" / EXERCISE
SOLUTION = (FOLDER / "solution.py").read_text()
HARD_CODED_CUDA = SOLUTION.replace(
    'device = "cuda" if torch.cuda.is_available() else "cpu"', 'device = "cuda"'
)


async def submit_and_wait(
    client: httpx.AsyncClient, headers: dict[str, str], code: str, exercise: str = EXERCISE
) -> dict[str, Any]:
    response = await client.post(
        f"/api/exercises/{exercise}/submissions", json={"code": code}, headers=headers
    )
    assert response.status_code == 202, response.text
    body = response.json()
    assert body["status"] == "queued"
    assert body["verdict"] is None
    assert body["runs"] == []
    for _ in range(10):
        response = await client.get(f"/api/submissions/{body['id']}?wait=30", headers=headers)
        assert response.status_code == 200
        if response.json()["status"] in ("done", "error"):
            return response.json()
    raise AssertionError("never finished")


async def test_the_sample_solution_passes_on_cpu(live: httpx.AsyncClient) -> None:
    _, token = await register(live)
    result = await submit_and_wait(live, bearer(token), SOLUTION)
    assert result["status"] == "done"
    assert result["verdict"] == "passed"
    cpu = next(run for run in result["runs"] if run["device"] == "cpu")
    assert cpu["verdict"] == "passed"
    assert cpu["stdout"] == "[[3.0, 3.0, 3.0], [3.0, 3.0, 3.0]]\ncpu\n"
    assert cpu["diff"] == ""
    assert cpu["exit_code"] == 0
    assert set(cpu) >= {"device", "verdict", "stdout", "stderr", "exit_code", "duration_ms", "diff"}
    assert result["finished_at"] is not None
    progress = (await live.get("/api/me/progress", headers=bearer(token))).json()["lessons"]
    assert next(p for p in progress if p["slug"] == "gpu-support")["exercises_passed"] == 1


async def test_without_a_gpu_cuda_is_reported_not_graded_not_failed(
    live: httpx.AsyncClient,
) -> None:
    _, token = await register(live)
    result = await submit_and_wait(live, bearer(token), SOLUTION)
    cuda = next(run for run in result["runs"] if run["device"] == "cuda")
    assert cuda["verdict"] == "not_graded"
    assert "not graded on cuda here" in cuda["detail"]
    assert result["verdict"] == "passed"


async def test_wrong_output_has_a_diff(live: httpx.AsyncClient) -> None:
    _, token = await register(live)
    result = await submit_and_wait(live, bearer(token), "print([[3.0, 3.0, 3.0]])\nprint(True)\n")
    assert result["verdict"] == "wrong_output"
    cpu = result["runs"][0]
    assert cpu["verdict"] == "wrong_output"
    assert cpu["diff"].startswith("--- expected")
    assert "-[[3.0, 3.0, 3.0], [3.0, 3.0, 3.0]]" in cpu["diff"]
    assert "+[[3.0, 3.0, 3.0]]" in cpu["diff"]


async def test_hard_coded_cuda_fails_on_cpu_with_a_hint(live: httpx.AsyncClient) -> None:
    assert HARD_CODED_CUDA != SOLUTION, "the sample solution picks its device another way"
    _, token = await register(live)
    result = await submit_and_wait(live, bearer(token), HARD_CODED_CUDA)
    assert result["verdict"] == "runtime_error"
    cpu = result["runs"][0]
    assert "torch.cuda.is_available()" in cpu["hint"]
    assert 'File "main.py"' in cpu["stderr"]
    progress = (await live.get("/api/me/progress", headers=bearer(token))).json()["lessons"]
    assert next(p for p in progress if p["slug"] == "gpu-support")["exercises_passed"] == 0


async def test_empty_code_is_graded_like_any_other(live: httpx.AsyncClient) -> None:
    _, token = await register(live)
    result = await submit_and_wait(live, bearer(token), "")
    assert result["status"] == "done"
    assert result["verdict"] == "wrong_output"
    assert result["runs"][0]["stdout"] == ""


async def test_list_is_the_callers_own_newest_first(live: httpx.AsyncClient) -> None:
    _, token = await register(live)
    _, other = await register(live)
    first = await submit_and_wait(live, bearer(token), "print(1)")
    second = await submit_and_wait(live, bearer(token), SOLUTION)
    await submit_and_wait(live, bearer(other), SOLUTION)
    listed = (
        await live.get(f"/api/exercises/{EXERCISE}/submissions", headers=bearer(token))
    ).json()
    assert [s["id"] for s in listed] == [second["id"], first["id"]]
    # Someone else's submission is not found, not forbidden: ids cannot be probed.
    response = await live.get(f"/api/submissions/{first['id']}", headers=bearer(other))
    assert response.status_code == 404


async def test_bad_submissions(live: httpx.AsyncClient) -> None:
    _, token = await register(live)
    headers = bearer(token)
    too_big = "#" * (64 * 1024 + 1)
    response = await live.post(
        f"/api/exercises/{EXERCISE}/submissions", json={"code": too_big}, headers=headers
    )
    assert response.status_code == 413
    assert "64 KiB" in response.json()["detail"]
    response = await live.post(
        "/api/exercises/no-such-exercise/submissions", json={"code": "print(1)"}, headers=headers
    )
    assert response.status_code == 404
    response = await live.post(f"/api/exercises/{EXERCISE}/submissions", json={}, headers=headers)
    assert response.status_code == 422
    response = await live.post(
        f"/api/exercises/{EXERCISE}/submissions", json={"code": 5}, headers=headers
    )
    assert response.status_code == 422
    response = await live.post(f"/api/exercises/{EXERCISE}/submissions", json={"code": "x"})
    assert response.status_code == 401
    response = await live.get("/api/submissions/999999", headers=headers)
    assert response.status_code == 404
    response = await live.get("/api/submissions/1?wait=31", headers=headers)
    assert response.status_code == 422
    response = await live.get("/api/exercises/nope/submissions", headers=headers)
    assert response.status_code == 404


async def test_wait_returns_early_when_it_runs_out(live: httpx.AsyncClient) -> None:
    _, token = await register(live)
    slow = "import time\ntime.sleep(3)\nprint(1)"
    response = await live.post(
        f"/api/exercises/{EXERCISE}/submissions", json={"code": slow}, headers=bearer(token)
    )
    ident = response.json()["id"]
    started = asyncio.get_running_loop().time()
    response = await live.get(f"/api/submissions/{ident}?wait=0.5", headers=bearer(token))
    assert asyncio.get_running_loop().time() - started < 2.5
    assert response.json()["status"] in ("queued", "running")
    await submit_and_wait(live, bearer(token), "print(1)")


async def test_a_student_is_rate_limited(live: httpx.AsyncClient) -> None:
    _, token = await register(live)
    codes = []
    for _ in range(31):
        response = await live.post(
            f"/api/exercises/{EXERCISE}/submissions",
            json={"code": "print(1)"},
            headers=bearer(token),
        )
        codes.append(response.status_code)
    assert codes[:30] == [202] * 30
    assert codes[30] == 429
    assert int(response.headers["Retry-After"]) > 0


async def test_a_run_is_tried_on_cpu_and_never_counted(live: httpx.AsyncClient) -> None:
    _, token = await register(live)
    headers = bearer(token)
    response = await live.post(
        f"/api/exercises/{EXERCISE}/runs", json={"code": "print('trying')"}, headers=headers
    )
    assert response.status_code == 202
    assert response.json()["mode"] == "run"
    ident = response.json()["id"]
    for _ in range(10):
        body = (await live.get(f"/api/submissions/{ident}?wait=30", headers=headers)).json()
        if body["status"] == "done":
            break
    assert [run["device"] for run in body["runs"]] == ["cpu"]
    assert body["runs"][0]["stdout"] == "trying\n"
    assert body["runs"][0]["verdict"] == "passed"  # it ran cleanly; nothing was compared
    crash = await live.post(
        f"/api/exercises/{EXERCISE}/runs", json={"code": "1/0"}, headers=headers
    )
    crashed = (
        await live.get(f"/api/submissions/{crash.json()['id']}?wait=30", headers=headers)
    ).json()
    assert crashed["runs"][0]["verdict"] == "runtime_error"
    assert "ZeroDivisionError" in crashed["runs"][0]["stderr"]
    progress = (await live.get("/api/me/progress", headers=headers)).json()["lessons"]
    assert next(p for p in progress if p["slug"] == "gpu-support")["exercises_passed"] == 0
    # Runs have their own, tighter limit, apart from graded submissions.
    codes = [
        (
            await live.post(
                f"/api/exercises/{EXERCISE}/runs", json={"code": "pass"}, headers=headers
            )
        ).status_code
        for _ in range(9)
    ]
    assert codes == [202] * 8 + [429]
    graded = await live.post(
        f"/api/exercises/{EXERCISE}/submissions", json={"code": "pass"}, headers=headers
    )
    assert graded.status_code == 202


async def test_the_solution_after_a_pass_or_giving_up(live: httpx.AsyncClient) -> None:
    _, token = await register(live)
    headers = bearer(token)
    response = await live.get(f"/api/exercises/{EXERCISE}/solution", headers=headers)
    assert response.status_code == 403
    response = await live.post(f"/api/exercises/{EXERCISE}/give-up", headers=headers)
    assert response.status_code == 200
    assert response.json() == {"solution_code": SOLUTION, "reason": "gave_up"}
    again = await live.post(f"/api/exercises/{EXERCISE}/give-up", headers=headers)
    assert again.status_code == 200
    shown = await live.get(f"/api/exercises/{EXERCISE}/solution", headers=headers)
    assert shown.json()["reason"] == "gave_up"

    _, other = await register(live)
    await submit_and_wait(live, bearer(other), SOLUTION)
    passed = await live.get(f"/api/exercises/{EXERCISE}/solution", headers=bearer(other))
    assert passed.json() == {"solution_code": SOLUTION, "reason": "passed"}
    missing = await live.post("/api/exercises/nope/give-up", headers=headers)
    assert missing.status_code == 404


HOSTILE = {
    "fork bomb": ("import os\nwhile True:\n    os.fork()\n", {"runtime_error", "timeout"}),
    "memory bomb": ("x = bytearray(1 << 40)\n", {"memory_limit"}),
    "endless loop": ("while True:\n    pass\n", {"timeout"}),
    "huge output": ("while True:\n    print('x' * 1000)\n", {"output_limit"}),
    "reads the database": (
        "import os\nprint([os.path.exists(p) for p in {paths!r}])\n",
        {"wrong_output"},
    ),
}


async def test_hostile_code_leaves_the_server_answering(
    live: httpx.AsyncClient, live_app: FastAPI
) -> None:
    """The grader's own suite (tests/grader) covers the sandbox in depth; here: through the
    web app, the verdict is the student's and the server keeps serving everyone else."""
    _, token = await register(live)
    headers = bearer(token)
    settings = live_app.state.settings
    database_dir = str(settings.data_dir)
    paths = [
        database_dir,
        settings.database_url.removeprefix("sqlite:///"),
        str(REPO_ROOT / "app"),
        str(REPO_ROOT / "exercises"),
    ]
    for name, (template, verdicts) in HOSTILE.items():
        result = await submit_and_wait(live, headers, template.replace("{paths!r}", repr(paths)))
        assert result["status"] == "done", name
        assert result["verdict"] in verdicts, (name, result["runs"][0])
        assert database_dir not in result["runs"][0]["stdout"], name
        if name == "reads the database":
            assert result["runs"][0]["stdout"] == "[False, False, False, False]\n"
        assert (await live.get("/healthz")).status_code == 200
    normal = await submit_and_wait(live, headers, SOLUTION)
    assert normal["verdict"] == "passed"


async def test_waiting_leaves_nothing_behind(live: httpx.AsyncClient, live_app: FastAPI) -> None:
    """Each `?wait=` takes a wake-up event; none outlives its waiters, whether the
    submission was finished already, finished during the wait or belongs to someone else."""
    _, token = await register(live)
    result = await submit_and_wait(live, bearer(token), SOLUTION)
    for _ in range(3):
        again = await live.get(f"/api/submissions/{result['id']}?wait=5", headers=bearer(token))
        assert again.json() == result
    _, stranger = await register(live)
    response = await live.get(f"/api/submissions/{result['id']}?wait=5", headers=bearer(stranger))
    assert response.status_code == 404
    assert len(live_app.state.grading.notifier) == 0


async def run_and_wait(
    client: httpx.AsyncClient, headers: dict[str, str], code: str
) -> dict[str, Any]:
    response = await client.post(
        f"/api/exercises/{EXERCISE}/runs", json={"code": code}, headers=headers
    )
    assert response.status_code == 202, response.text
    for _ in range(10):
        body = (
            await client.get(f"/api/submissions/{response.json()['id']}?wait=30", headers=headers)
        ).json()
        if body["status"] in ("done", "error"):
            return body
    raise AssertionError("never finished")


async def test_a_try_out_says_whether_its_output_matched_never_passed(
    live: httpx.AsyncClient,
) -> None:
    _, token = await register(live)
    headers = bearer(token)
    right = await run_and_wait(live, headers, SOLUTION)
    assert right["runs"][0]["output_matches"] is True
    assert right["runs"][0]["rows"] is None
    wrong = await run_and_wait(live, headers, "print('trying')")
    assert wrong["verdict"] == "passed"  # it ran cleanly: the try-out is still not graded
    assert wrong["runs"][0]["output_matches"] is False
    # Shown against the expected output, like a graded run that did not match.
    actual = [row["actual"] for row in wrong["runs"][0]["rows"]]
    assert [cell["text"] for cell in actual if cell["number"] is not None] == ["trying"]
    crashed = await run_and_wait(live, headers, "1/0")
    assert crashed["runs"][0]["output_matches"] is None  # stopped: nothing was compared
    listed = (await live.get(f"/api/exercises/{EXERCISE}/submissions", headers=headers)).json()
    assert [s["runs"][0]["output_matches"] for s in listed] == [None, False, True]

    page = (await live.get("/lessons/gpu-support", headers=headers)).text
    history = page[page.index('class="history"') :]
    assert "Output differs from the expected output" in history
    assert "Output matches the expected output" in history
    assert "✓</span> Passed" not in history and "✓</span> Ran" not in history


async def test_the_lesson_page_says_which_devices_grade_here(live: httpx.AsyncClient) -> None:
    """This machine has no GPU: cpu is graded here, cuda only where a server has one."""
    _, token = await register(live)
    page = (await live.get("/lessons/gpu-support", headers=bearer(token))).text
    line = page[page.index('<p class="devices">') :]
    line = line[: line.index("</p>")]
    assert 'Graded here on: <span class="device">cpu</span>' in line
    assert '<span class="device">cuda</span> is checked on servers that have it' in line
    assert "this one has none right now" in line


async def test_giving_up_after_passing_is_not_recorded_as_giving_up(
    live: httpx.AsyncClient,
) -> None:
    _, token = await register(live)
    headers = bearer(token)
    await submit_and_wait(live, headers, SOLUTION)
    response = await live.post(f"/api/exercises/{EXERCISE}/give-up", headers=headers)
    assert response.json()["reason"] == "passed"
    failed = await submit_and_wait(live, headers, "print(1)")
    assert failed["verdict"] == "wrong_output"
    shown = await live.get(f"/api/exercises/{EXERCISE}/solution", headers=headers)
    assert shown.json()["reason"] == "passed"
