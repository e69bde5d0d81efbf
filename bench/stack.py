"""The distributed deployment on this machine, for the benches (bench/rush.py,
`bench/grading.py --stack`): a database of its own on the local PostgreSQL server
(127.0.0.1:5432, user postgres, as the tests), a private Redis, web processes behind one
port and grader workers, every process's output in a log file of the stack's folder.
Stopping it stops every process (and their sandboxes) and drops the database."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from pathlib import Path

import redis

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.processes import free_port, psql  # noqa: E402


class Stack:
    """`web_processes` web processes (`python -m app serve --workers`), `workers` grader
    workers of `sandboxes` sandboxes each; `env` is added to every process's environment."""

    def __init__(
        self, *, web_processes: int, workers: int, sandboxes: int, env: dict[str, str]
    ) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="bench-stack-"))
        self.database = f"tc_bench_{uuid.uuid4().hex[:10]}"
        self.port, self.redis_port = free_port(), free_port()
        self.web_processes, self.workers_wanted, self.sandboxes = web_processes, workers, sandboxes
        self.url = f"http://127.0.0.1:{self.port}"
        self.processes: list[subprocess.Popen[bytes]] = []
        (self.tmp / "metrics").mkdir()
        self.env = (
            dict(os.environ)
            | {
                "DATABASE_URL": f"postgresql://postgres@127.0.0.1:5432/{self.database}",
                "REDIS_URL": f"redis://127.0.0.1:{self.redis_port}/0",
                "DATA_DIR": str(self.tmp / "data"),
                "PROMETHEUS_MULTIPROC_DIR": str(self.tmp / "metrics"),
                "PYTHONUNBUFFERED": "1",
                "GRADER_WORKERS": str(sandboxes),
            }
            | env
        )

    def spawn(self, name: str, args: list[str], env: dict[str, str] | None = None) -> None:
        log = (self.tmp / f"{name}.log").open("ab")
        self.processes.append(
            subprocess.Popen(
                args, cwd=ROOT, env=self.env | (env or {}), stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # so that stopping takes the sandboxes too
            )
        )  # fmt: skip

    def start(self) -> str:
        psql(f'CREATE DATABASE "{self.database}"')
        redis_server = ["redis-server", "--port", str(self.redis_port), "--bind", "127.0.0.1"]
        no_disk = ["--save", "", "--appendonly", "no", "--dir", str(self.tmp)]
        self.spawn("redis", [*redis_server, *no_disk])
        migrate = [sys.executable, "-m", "app", "migrate"]
        subprocess.run(migrate, cwd=ROOT, env=self.env, check=True, capture_output=True)
        serve = [sys.executable, "-m", "app", "serve", "--host", "127.0.0.1"]
        self.spawn("web", [*serve, "--port", str(self.port), "--workers", str(self.web_processes)])
        for number in range(1, self.workers_wanted + 1):
            worker = [sys.executable, "-m", "grader.worker"]
            self.spawn(f"worker-{number}", worker, {"GRADER_WORKER_ID": f"bench-{number}"})
        self.wait_ready()
        return self.url

    def wait_ready(self) -> None:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"{self.url}/readyz", timeout=2) as answer:
                    if answer.status == 200 and self.workers() >= self.workers_wanted:
                        return
            except OSError:
                pass
            time.sleep(0.5)
        raise SystemExit(f"the stack did not become ready; logs in {self.tmp}")

    def workers(self) -> int:
        client = redis.Redis(port=self.redis_port)
        return int(client.zcount("tensorcamp:workers:cpu", time.time(), "+inf"))

    def queue_depth(self) -> int:
        return int(redis.Redis(port=self.redis_port).llen("tensorcamp:grade-cpu"))

    def unfinished(self, ids: set[int]) -> int:
        """How many of `ids` are not done or error (missing rows count too)."""
        if not ids:
            return 0
        listed = ",".join(str(i) for i in sorted(ids))
        finished = psql(
            f"SELECT count(*) FROM submissions WHERE id IN ({listed}) "
            "AND status IN ('done', 'error')",
            self.database,
        )
        return len(ids) - int(finished[0][0])

    def stop(self) -> None:
        for process in reversed(self.processes):
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in self.processes:
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
        psql(f'DROP DATABASE IF EXISTS "{self.database}" WITH (FORCE)')
        shutil.rmtree(self.tmp, ignore_errors=True)
