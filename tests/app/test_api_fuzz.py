"""The public API fuzzed from its own OpenAPI document (schemathesis, property-based): every
operation, as an anonymous visitor, as a student in a class and as the teacher who owns it.
No answer may be a 5xx, and each status, content type and body must be one the document
declares for that operation: what docs/api.md promises is what a client gets.

A real web process (SQLite, the embedded grader) answers over HTTP, so what runs is what
users run, middleware and all."""

from __future__ import annotations

import os
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from starlette.routing import compile_path

from app.config import REPO_ROOT
from tests.processes import PYTHON, Web

pytestmark = pytest.mark.xdist_group("api-fuzz")

PASSWORD = "correct horse battery"
# Ending every session of the account the fuzzer signs in with would leave the remaining
# examples anonymous; those operations are covered by tests/app/auth.
ENDS_ITS_OWN_SESSION = {("POST", "/api/me/logout-all"), ("DELETE", "/api/me/tokens/{token_id}")}


class Party:
    def __init__(self, web: Web, data_dir: Path) -> None:
        self.web = web
        self.headers: dict[str, dict[str, str]] = {"anonymous": {}}
        with httpx.Client(base_url=web.url, timeout=30) as client:
            teacher = f"t{uuid.uuid4().hex[:10]}"
            subprocess.run(
                [PYTHON, "-m", "app", "create-user", "--role", "teacher", "--username", teacher],
                env=dict(os.environ) | {"DATA_DIR": str(data_dir), "APP_USER_PASSWORD": PASSWORD},
                cwd=REPO_ROOT,
                check=True,
                capture_output=True,
                timeout=60,
            )
            self.headers["teacher"] = self._token(client, teacher, register=False)
            student = f"s{uuid.uuid4().hex[:10]}"
            self.headers["student"] = self._token(client, student, register=True)
            made = client.post(
                "/api/classes", json={"name": "Fuzz"}, headers=self.headers["teacher"]
            )
            assert made.status_code == 201, made.text
            joined = client.post(
                "/api/classes/join",
                json={"join_code": made.json()["join_code"]},
                headers=self.headers["student"],
            )
            assert joined.status_code in (200, 201), joined.text

    @staticmethod
    def _token(client: httpx.Client, username: str, *, register: bool) -> dict[str, str]:
        body = {"username": username, "password": PASSWORD}
        response = client.post("/api/auth/register" if register else "/api/auth/token", json=body)
        assert response.status_code in (200, 201), response.text
        return {"Authorization": f"Bearer {response.json()['token']}"}


@pytest.fixture(scope="module")
def party(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Party]:
    tmp = tmp_path_factory.mktemp("fuzz")
    data = tmp / "data"
    web = Web(
        tmp,
        {
            "DATA_DIR": str(data),
            "GRADER_WORKERS": "1",
            # The fuzzer sends hundreds of requests from one address within seconds.
            **{
                name: "100000"
                for name in (
                    "SUBMISSIONS_PER_MINUTE",
                    "RUNS_PER_MINUTE",
                    "ANSWERS_PER_MINUTE",
                    "MAX_QUEUED_PER_USER",
                    "SIGNUPS_PER_ADDRESS",
                    "JOIN_GUESSES_PER_USER",
                    "JOIN_GUESSES_PER_ADDRESS",
                    "LOGIN_SUCCESSES_PER_USER_PER_MINUTE",
                    "LOGIN_SUCCESSES_PER_ADDRESS_PER_MINUTE",
                    "LOGIN_ADDRESS_FAILURE_LIMIT",
                    "LONG_POLLS_PER_USER",
                )
            },
        },
    ).start()
    try:
        yield Party(web, data)
    finally:
        web.stop()


@pytest.fixture(scope="module")
def api_schema(party: Party) -> Any:
    loaded = schemathesis.openapi.from_url(f"{party.web.url}/openapi.json")
    return loaded.exclude(
        func=lambda ctx: (ctx.operation.method.upper(), ctx.operation.path) in ENDS_ITS_OWN_SESSION
    )


schema = schemathesis.pytest.from_fixture("api_schema")


FUZZ = settings(
    max_examples=int(os.environ.get("FUZZ_EXAMPLES", "8")),
    deadline=None,
    suppress_health_check=list(HealthCheck),
)


# Left out: "schema-valid data is accepted". The API refuses, by its rules, requests the
# schema allows (a weak password, a taken username, a lesson that does not exist), and says
# so with a documented 4xx, which the other checks hold it to.
BY_DESIGN = [schemathesis.checks.positive_data_acceptance]


def shadowed(path: str, paths: list[str]) -> bool:
    """Whether another path's template also matches `path` (`/api/classes/join` and
    `/api/classes/{class_id}`): a method the literal path lacks is then the templated
    route's to answer (a 401 or a 422 for the id), not a 405, and the Allow header of a 405
    there names the templated route's methods too."""
    return any(
        other != path and compile_path(other)[0].fullmatch(path) is not None for other in paths
    )


def answers_as_documented(case: Any, party: Party, role: str) -> None:
    paths = list(case.operation.schema.raw_schema["paths"])
    excluded = list(BY_DESIGN)
    if shadowed(case.operation.path, paths):
        excluded += [
            schemathesis.checks.unsupported_method,
            schemathesis.checks.allow_header_conformance,
        ]
    case.call_and_validate(
        base_url=party.web.url,
        headers=party.headers[role],
        excluded_checks=excluded,
        timeout=60,
    )


# One test per role: schemathesis's lazily loaded schema cannot be combined with pytest's
# parametrization.
@schema.parametrize()
@FUZZ
def test_as_an_anonymous_visitor(case: Any, party: Party) -> None:
    answers_as_documented(case, party, "anonymous")


@schema.parametrize()
@FUZZ
def test_as_a_student_in_a_class(case: Any, party: Party) -> None:
    answers_as_documented(case, party, "student")


@schema.parametrize()
@FUZZ
def test_as_the_teacher_who_owns_the_class(case: Any, party: Party) -> None:
    answers_as_documented(case, party, "teacher")
