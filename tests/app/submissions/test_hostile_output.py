"""Hostile output through the web app in embedded mode: grading runs in a thread of the web
process, and comparing holds the GIL, so a slow comparison would stall every other request.
Before, one output line of 64 KiB of digits held the process for minutes."""

from __future__ import annotations

import asyncio
import time

import httpx

from tests.helpers import bearer, register

EXERCISE = "tensor-basics-mean-std"  # compared in numeric mode, three lines
# About 64 KiB in all (the output limit): "1111…1x" made the old numeric tokenizer backtrack
# through every split of the digits.
HOSTILE = 'print("mean " + "1" * 65000 + "x")\nprint("std 2.1381")\nprint("population std 2.0")\n'


async def test_a_hostile_output_leaves_the_server_answering(live: httpx.AsyncClient) -> None:
    _, token = await register(live)
    headers = bearer(token)
    response = await live.post(
        f"/api/exercises/{EXERCISE}/submissions", json={"code": HOSTILE}, headers=headers
    )
    assert response.status_code == 202, response.text
    submission_id = response.json()["id"]
    started = time.monotonic()
    slowest = 0.0
    while True:
        asked = time.monotonic()
        assert (await live.get("/healthz")).status_code == 200
        slowest = max(slowest, time.monotonic() - asked)
        body = (await live.get(f"/api/submissions/{submission_id}", headers=headers)).json()
        if body["status"] in ("done", "error"):
            break
        assert time.monotonic() - started < 30, body
        await asyncio.sleep(0.02)
    assert body["verdict"] == "wrong_output", body
    cpu = body["runs"][0]
    assert cpu["verdict"] == "wrong_output"
    assert cpu["diff"].startswith("--- expected")
    # The old tokenizer held the process for minutes; a busy machine (parallel tests) may
    # still delay one answer a little.
    assert slowest < 2.0
