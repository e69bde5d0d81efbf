"""Regrades in distributed mode (issue 13), with real PostgreSQL, Redis, web and worker
processes: a teacher's regrade is graded by the workers, behind live submissions, and its
preview shows whose result would flip; applying it changes the student's verdict."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path
from typing import Any

import httpx

from tests.app.submissions.stack import (
    EXERCISE,
    SOLUTION,
    stack_sql,
    start_web,
    start_worker,
    submit,
    workers_ready,
)
from tests.processes import PYTHON, sign_up_student

PASSWORD = "correct horse battery"


def teacher_headers(client: httpx.Client, stack: dict) -> dict[str, str]:
    name = f"t{os.urandom(5).hex()}"
    subprocess.run(
        [PYTHON, "-m", "app", "create-user", "--role", "teacher", "--username", name],
        env=dict(os.environ) | stack["env"] | {"APP_USER_PASSWORD": PASSWORD},
        check=True,
        capture_output=True,
        timeout=60,
    )
    token = client.post("/api/auth/token", json={"username": name, "password": PASSWORD})
    assert token.status_code in (200, 201), token.text
    return {"Authorization": f"Bearer {token.json()['token']}"}


def finished(client: httpx.Client, headers: dict[str, str], ident: int) -> dict[str, Any]:
    for _ in range(60):
        got = client.get(f"/api/submissions/{ident}?wait=5", headers=headers).json()
        if got["status"] in ("done", "error"):
            return dict(got)
    raise AssertionError(f"submission {ident} never finished")


def test_a_regrade_is_graded_by_the_workers(tmp_path: Path, stack: dict) -> None:
    start_worker(tmp_path, stack)
    web = start_web(tmp_path, stack)
    with httpx.Client(base_url=web.url, timeout=30) as client:
        workers_ready(client, 1)
        student = sign_up_student(client)
        teacher = teacher_headers(client, stack)
        passed = finished(client, student, submit(client, student, SOLUTION))
        assert passed["verdict"] == "passed", passed
        stack_sql(
            stack, f"UPDATE exercises SET expected_output = 'changed' WHERE id = '{EXERCISE}'"
        )
        made = client.post(
            f"/api/exercises/{EXERCISE}/regrades", json={"reason": "Typo"}, headers=teacher
        )
        assert made.status_code == 202, made.text
        regrade_id = made.json()["id"]
        deadline = time.monotonic() + 120
        while True:
            preview = client.get(f"/api/regrades/{regrade_id}", headers=teacher).json()
            if preview["status"] == "ready":
                break
            assert time.monotonic() < deadline, f"regrade never ready: {preview}"
            time.sleep(0.5)
        assert (preview["graded"], preview["errors"], preview["to_failed"]) == (1, 0, 1)
        # Nothing changed before apply; the live submission's runs are its own.
        again = client.get(f"/api/submissions/{passed['id']}", headers=student).json()
        assert again["verdict"] == "passed" and again["runs"] == passed["runs"]
        applied = client.post(f"/api/regrades/{regrade_id}/apply", headers=teacher)
        assert applied.status_code == 200, applied.text
        after = client.get(f"/api/submissions/{passed['id']}", headers=student).json()
        assert after["verdict"] == "wrong_output"
        # A live submission after it is graded as usual, against the new expected output.
        live = finished(client, student, submit(client, student, SOLUTION))
        assert live["verdict"] == "wrong_output"
    runs = stack_sql(stack, "SELECT count(*) FROM submission_runs WHERE regrade_id IS NULL")
    assert int(runs[0][0]) == 4  # two live submissions, cpu and cuda each: none from the regrade
