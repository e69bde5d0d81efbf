"""An independent LTI 1.3 platform (lti1p3platform, tests/app/lti/lms.py) in a process
of its own on loopback, registered with the tool under test; and a browser-like client
that speaks to both: the tool in process (http://testserver), the platform over HTTP."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI

from app.db import Database
from app.lti import keys, service
from app.models import utcnow
from tests.app.lti.flow import RunningPlatform
from tests.helpers import refuse_server_errors
from tests.processes import free_port, local_status

CLIENT_ID = "tensorcamp-client"
DEPLOYMENT_ID = "deployment-1"
TOOL = "http://testserver"


@contextmanager
def running_platform(tool: str, port: int | None = None) -> Iterator[RunningPlatform]:
    """The platform process, for the tool at `tool`, until the block ends."""
    port = port or free_port()
    script = Path(__file__).with_name("lms.py")
    process = subprocess.Popen(
        [sys.executable, str(script), str(port), tool, CLIENT_ID, DEPLOYMENT_ID]
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            if local_status(port, "/jwks") == 200:
                break
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the LTI platform process did not start")
            time.sleep(0.1)
        yield RunningPlatform(url)
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture(scope="session")
def platform() -> Iterator[RunningPlatform]:
    with running_platform(TOOL) as running:
        yield running


@pytest.fixture
async def registered(db: Database, platform: RunningPlatform) -> RunningPlatform:
    """The platform registered with the tool, as `lti add-platform` does."""
    async with db.sessionmaker() as session, session.begin():
        await service.add_platform(
            session=session,
            issuer=platform.url,
            client_id=CLIENT_ID,
            deployment_ids=[DEPLOYMENT_ID],
            auth_url=f"{platform.url}/auth",
            token_url=f"{platform.url}/token",
            jwks_url=f"{platform.url}/jwks",
        )
    return platform


async def give_tool_keys(db: Database, platform: RunningPlatform) -> None:
    """The tool's public keys given to the platform, as an administrator pastes them where
    the platform cannot reach the tool's JWKS URL (the tool under test is in process)."""
    async with db.sessionmaker() as session, session.begin():
        await keys.ensure_key(session=session)
        published = await keys.published_jwks(session=session, now=utcnow())
    async with httpx.AsyncClient() as client:
        answer = await client.put(f"{platform.url}/tool-keys", json=published)
        answer.raise_for_status()


@pytest.fixture
async def advantage(db: Database, registered: RunningPlatform) -> RunningPlatform:
    """The registered platform, holding the tool's keys (for its token URL and deep links)."""
    await give_tool_keys(db, registered)
    return registered


@pytest.fixture
async def browser(app: FastAPI, platform: RunningPlatform) -> AsyncIterator[httpx.AsyncClient]:
    """One cookie jar for both sites, as a browser has; redirects followed by hand."""
    mounts = {
        TOOL: httpx.ASGITransport(app=app),
        platform.url: httpx.AsyncHTTPTransport(),
    }
    async with httpx.AsyncClient(
        mounts=mounts, base_url=TOOL, event_hooks={"response": [refuse_server_errors]}
    ) as client:
        yield client
