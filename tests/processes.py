"""Real processes for end-to-end tests: a private Redis, grader workers and web servers,
all on this machine's loopback, each test with its own database and key namespace."""

from __future__ import annotations

import http.client
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import cast

import httpx
import redis

from app.config import REPO_ROOT

PYTHON = sys.executable


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def local_status(port: int, path: str) -> int | None:
    """The status a GET of `path` on this machine's `port` answers, None while nothing does.
    Plain http.client: a process's readiness is asked ten times a second while it starts,
    and an httpx client builds an SSL context each time one is made (tens of ms of CPU)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
    try:
        connection.request("GET", path)
        return connection.getresponse().status
    except (OSError, http.client.HTTPException):
        return None
    finally:
        connection.close()


def wait_until(check: Callable[[], bool], seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out after {seconds} s waiting for {what}")


class Service:
    def __init__(self, args: list[str], env: dict[str, str], log: Path) -> None:
        self.args, self.env, self.log = args, env, log
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> Service:
        handle = self.log.open("ab")
        self.process = subprocess.Popen(
            self.args,
            env=self.env,
            cwd=REPO_ROOT,
            stdout=handle,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # so kill() takes its children (the sandboxes) too
        )
        return self

    def kill(self) -> None:
        """SIGKILL the whole process group: no clean-up, as a crash would be."""
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(10)

    def terminate(self) -> None:
        """SIGTERM to the main process only, as `docker stop` and a rolling restart send it
        (its children, the sandboxes, are its to stop)."""
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.kill()

    def output(self) -> str:
        return self.log.read_text(errors="replace")[-4000:]


def stream_entries(client: redis.Redis, stream: str) -> list[tuple[bytes, dict[bytes, bytes]]]:
    """Every entry of a Redis stream (redis-py types its sync client's replies loosely)."""
    return cast(list[tuple[bytes, dict[bytes, bytes]]], client.xrange(stream))


def psql(sql: str, database: str = "postgres") -> list[list[str]]:
    """Run SQL on the local server; the rows it printed, fields split."""
    output = subprocess.run(
        ["psql", "-h", "127.0.0.1", "-U", "postgres", "-d", database, "-qAtc", sql],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return [line.split("|") for line in output.splitlines() if line]


class PrivateRedis(Service):
    def __init__(self, tmp: Path) -> None:
        self.port = free_port()
        super().__init__(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(tmp),
            ],
            dict(os.environ),
            tmp / f"redis-{self.port}.log",
        )

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> PrivateRedis:
        super().start()
        wait_until(self._answers, 10, "redis to answer")
        return self

    def _answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as sock:
                sock.sendall(b"PING\r\n")
                return sock.recv(16).startswith(b"+PONG")
        except OSError:
            return False


def worker(tmp: Path, redis_url: str, namespace: str, threads: int = 2) -> Service:
    env = dict(os.environ) | {
        "REDIS_URL": redis_url,
        "GRADER_NAMESPACE": namespace,
        "GRADER_WORKERS": str(threads),
        "GRADER_WORKER_ID": f"w-{uuid.uuid4().hex[:6]}",
        "PYTHONUNBUFFERED": "1",
    }
    return Service([PYTHON, "-m", "grader.worker"], env, tmp / f"worker-{uuid.uuid4().hex[:6]}.log")


class Web(Service):
    def __init__(self, tmp: Path, env: dict[str, str]) -> None:
        self.port = free_port()
        super().__init__(
            [PYTHON, "-m", "app", "serve", "--port", str(self.port)],
            dict(os.environ) | env | {"PYTHONUNBUFFERED": "1"},
            tmp / f"web-{self.port}.log",
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> Web:
        super().start()
        wait_until(self._ready, 60, f"the web process to be ready:\n{self.output()}")
        return self

    def _ready(self) -> bool:
        return local_status(self.port, "/readyz") == 200


class WebPool(Web):
    """`size` web processes on one port (`python -m app serve --workers`), as a host runs
    them to restart them one by one with SIGHUP without refusing a connection."""

    def __init__(self, tmp: Path, env: dict[str, str], size: int = 2) -> None:
        super().__init__(tmp, env)
        self.size = size
        self.args = [*self.args, "--workers", str(size)]

    def children(self) -> set[int]:
        """The web processes now serving (the supervisor's children)."""
        assert self.process is not None
        found = subprocess.run(
            ["pgrep", "-P", str(self.process.pid), "-f", "spawn_main"],
            capture_output=True,
            text=True,
        ).stdout
        return {int(pid) for pid in found.split()}

    def start(self) -> WebPool:
        Service.start(self)
        # Slower than one: the supervisor migrates first, then each process starts.
        wait_until(self._ready, 120, f"the web processes to be ready:\n{self.output()}")
        wait_until(lambda: len(self.children()) == self.size, 60, "the web processes")
        return self

    def rolling_restart(self, seconds: float = 240) -> None:
        """SIGHUP: each process replaced in turn, the new one serving before the old one is
        told to stop (SIGTERM); returns once none of the old ones is left."""
        assert self.process is not None
        old = self.children()
        os.kill(self.process.pid, signal.SIGHUP)
        wait_until(
            lambda: not old & self.children() and len(self.children()) == self.size,
            seconds,
            f"the web processes to be replaced:\n{self.output()}",
        )


def sign_up_student(client: httpx.Client) -> dict[str, str]:
    """A new student signed up through a live web process's API: their bearer header."""
    response = client.post(
        "/api/auth/register",
        json={"username": f"s{uuid.uuid4().hex[:10]}", "password": "correct horse"},
    )
    assert response.status_code == 201, response.text
    return {"Authorization": f"Bearer {response.json()['token']}"}
