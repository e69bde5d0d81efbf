"""For every app test: cheap Argon2 (unless a test asks for the real parameters) and a
client that fails the test on any 5xx answer."""

import httpx
import pytest

from tests.helpers import cheap_password_hashing, refuse_server_errors


@pytest.fixture(autouse=True)
def _cheap_password_hashing(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    if "real_password_hashing" not in request.fixturenames:
        cheap_password_hashing(monkeypatch)


@pytest.fixture
def client(client: httpx.AsyncClient) -> httpx.AsyncClient:
    """The shared client, failing the test on any 5xx answer."""
    client.event_hooks["response"].append(refuse_server_errors)
    return client


@pytest.fixture
def real_password_hashing() -> None:
    """Ask for it to keep the production Argon2 parameters in a test."""
