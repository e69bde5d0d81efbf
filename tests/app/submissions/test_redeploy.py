"""Graceful redeploy (issue 13), with real PostgreSQL, Redis, web and worker processes: two
web processes on one port and two workers are restarted one by one while students keep
submitting and following their submissions as the browser does. Nothing is lost, nothing is
graded twice or wrongly, and no request fails that a browser would not send again by itself.

What a browser sends again by itself: a poll (the page's script retries a GET that failed or
answered 5xx), and any request on a kept-alive connection that the server closed before
answering (browsers resend those, POST too). Anything else that fails counts."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Any

import httpx

from app import migrations
from app.db import Database
from app.main import load_content
from tests.app.submissions.stack import (
    EXERCISE,
    SOLUTION,
    stack_sql,
    start_web,
    start_worker,
    submit,
    workers_ready,
)
from tests.conftest import test_settings
from tests.processes import Service, WebPool, psql, sign_up_student, wait_until

WRONG = "print('not the answer')\n"
STUDENTS = 6


class Stream:
    """Students submitting in turn (two right, one wrong, each run a little slow so that
    some are running at every restart) and following each to its verdict."""

    def __init__(self, url: str, students: list[dict[str, str]]) -> None:
        self.url = url
        self.students = students
        self.stopping = threading.Event()
        self.accepted: list[tuple[int, bool, dict[str, str]]] = []  # (id, right, headers)
        self.failures: list[str] = []
        self.resent = 0  # requests a browser would have sent again, and were
        self.lock = threading.Lock()
        self.threads = [
            threading.Thread(target=self.student, args=(h, i), daemon=True)
            for i, h in enumerate(students)
        ]

    def start(self) -> None:
        for thread in self.threads:
            thread.start()

    def stop(self) -> None:
        self.stopping.set()
        for thread in self.threads:
            thread.join(120)

    def fail(self, what: str) -> None:
        with self.lock:
            self.failures.append(what)

    def send(self, client: httpx.Client, method: str, url: str, **kwargs: Any) -> httpx.Response:
        """One request as a browser sends it: again when the connection was closed before an
        answer came (RemoteProtocolError: no response at all) or could not be opened, and when
        a kept-alive connection was reset before any answer: a stopping process closes its
        idle connections, and a request that reaches one as it closes is answered with a
        reset, unread (Chromium resends on a reused connection then, POST too; a request the
        server did read and then resent would show as a doubled submission below)."""
        opened: list[str] = []  # httpcore's trace of the attempt under way

        def trace(event: str, info: object) -> None:
            opened.append(event)

        for attempt in range(3):
            opened.clear()
            try:
                return client.request(method, url, extensions={"trace": trace}, **kwargs)
            except (httpx.RemoteProtocolError, httpx.ConnectError):
                if attempt == 2:
                    raise
            except httpx.ReadError as error:
                new_connection = any(e.startswith("connection.connect_tcp") for e in opened)
                if attempt == 2 or new_connection or not _reset(error):
                    raise
            with self.lock:
                self.resent += 1
        raise AssertionError("unreachable")

    def student(self, headers: dict[str, str], index: int) -> None:
        with httpx.Client(base_url=self.url, timeout=30, headers=headers) as client:
            turn = index
            while not self.stopping.is_set():
                right = turn % 3 != 2
                turn += 1
                code = ("import time\ntime.sleep(0.4)\n" + SOLUTION) if right else WRONG
                path = f"/api/exercises/{EXERCISE}/submissions"
                try:
                    sent = self.send(client, "POST", path, json={"code": code})
                except httpx.HTTPError as exc:
                    self.fail(f"POST {path}: {exc!r}")
                    continue
                if sent.status_code == 429:
                    time.sleep(float(sent.headers.get("Retry-After", "1")))
                    continue
                if sent.status_code != 202:
                    self.fail(f"POST {path}: {sent.status_code} {sent.text[:200]}")
                    continue
                ident = int(sent.json()["id"])
                with self.lock:
                    self.accepted.append((ident, right, headers))
                self.follow(client, ident)

    def follow(self, client: httpx.Client, ident: int) -> None:
        """Polls as the page does (?wait=2), retrying what failed, until it is finished."""
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                got = self.send(client, "GET", f"/api/submissions/{ident}?wait=2")
            except httpx.HTTPError:
                time.sleep(0.5)  # the page shows "offline" and tries again
                continue
            if got.status_code >= 500:
                time.sleep(0.5)
                continue
            if got.status_code != 200:
                self.fail(f"GET {ident}: {got.status_code} {got.text[:200]}")
                return
            if got.json()["status"] in ("done", "error"):
                return
        self.fail(f"submission {ident} had no verdict within 120 s")


def _reset(error: BaseException) -> bool:
    """Whether the connection was reset by the other end (ECONNRESET), in the chain of causes."""
    cause: BaseException | None = error
    while cause is not None:
        if isinstance(cause, ConnectionResetError):
            return True
        cause = cause.__cause__ or cause.__context__
    return False


def test_restarting_web_processes_and_workers_one_by_one_loses_nothing(
    tmp_path: Path,
    stack: dict,
) -> None:
    web = WebPool(tmp_path, stack["env"])
    stack["services"].append(web)  # before it starts: stopped even if the start times out
    web.start()
    workers: list[Service] = [start_worker(tmp_path, stack), start_worker(tmp_path, stack)]
    with httpx.Client(base_url=web.url, timeout=30) as client:
        students = [sign_up_student(client) for _ in range(STUDENTS)]
        workers_ready(client, 2)
    stream = Stream(web.url, students)

    def more(count: int = 4) -> None:
        target = len(stream.accepted) + count
        wait_until(lambda: len(stream.accepted) >= target, 60, "more submissions")

    stream.start()
    try:
        wait_until(lambda: len(stream.accepted) >= 10, 60, "the stream to get going")
        web.rolling_restart()
        for index, old in enumerate(list(workers)):
            more()
            workers[index] = start_worker(tmp_path, stack)
            old.terminate()  # as `docker stop` does: it finishes its runs first
            assert old.process is not None
            old.process.wait(40)
        more()
        web.rolling_restart()
        more()
    finally:
        stream.stop()

    assert not stream.failures, stream.failures[:10]
    # Every accepted submission is in the database once, finished, with the right verdict.
    accepted = {ident: right for ident, right, _ in stream.accepted}
    rows = stack_sql(stack, "SELECT id, status, verdict, attempts FROM submissions ORDER BY id")
    assert sorted(int(r[0]) for r in rows) == sorted(accepted), "a submission lost or doubled"
    wrong = {
        int(ident): (status, verdict)
        for ident, status, verdict, _ in rows
        if (status, verdict) != ("done", "passed" if accepted[int(ident)] else "wrong_output")
    }
    assert not wrong, wrong
    runs = stack_sql(
        stack,
        "SELECT submission_id, count(*) FROM submission_runs WHERE regrade_id IS NULL"
        " GROUP BY submission_id",
    )
    assert {int(i): int(n) for i, n in runs} == dict.fromkeys(accepted, 2)  # cpu and cuda
    print(f"{len(accepted)} submissions, {stream.resent} requests resent as a browser would")


def test_a_stopping_web_process_answers_its_long_polls_at_once(
    tmp_path: Path,
    stack: dict,
) -> None:
    """A long poll (`?wait=25`) held by a process told to stop answers at once with the
    submission as it stands, instead of holding the process until uvicorn's graceful
    timeout (10 s) cuts it off with an error."""
    web = start_web(tmp_path, stack)  # no worker: the submission stays queued
    with httpx.Client(base_url=web.url, timeout=30) as client:
        headers = sign_up_student(client)
        ident = submit(client, headers, SOLUTION)
        answer: dict[str, Any] = {}

        def poll() -> None:
            started = time.monotonic()
            try:
                got = client.get(f"/api/submissions/{ident}?wait=25", headers=headers)
                answer.update(status=got.status_code, body=got.json())
            except httpx.HTTPError as exc:
                answer.update(error=repr(exc))
            answer["seconds"] = time.monotonic() - started

        holder = threading.Thread(target=poll)
        holder.start()
        time.sleep(2)  # the poll is held by now
        stopped_at = time.monotonic()
        web.terminate()
        holder.join(30)
        assert web.process is not None
        web.process.wait(20)
    assert answer.get("status") == 200, answer
    assert answer["body"]["status"] == "queued"
    assert answer["seconds"] < 2 + 5, answer  # not the 25 s asked, nor the 10 s grace
    assert time.monotonic() - stopped_at < 15


async def test_web_processes_starting_together_on_an_empty_database_all_start(
    tmp_path: Path,
    database_url: str,
) -> None:
    """Three processes' start-up content load at once on a fresh database (as `uvicorn
    --workers` starts them): none fails with a duplicate row. Before, one did, and uvicorn's
    supervisor stopped every process: `bench/rush.py`'s "connection refused" at sign-up."""
    settings = test_settings(tmp_path, database_url=database_url)
    await asyncio.to_thread(migrations.upgrade, settings.effective_database_url)
    databases = [Database.from_url(settings.effective_database_url) for _ in range(3)]
    try:
        await asyncio.gather(*(load_content(settings, db) for db in databases))
    finally:
        for db in databases:
            await db.dispose()
    [[tracks]] = psql("SELECT count(*) FROM tracks", database_url.rsplit("/", 1)[1])
    assert int(tracks) > 0
