"""Text that is not valid Unicode: JSON may spell a lone surrogate ("\\ud800" is valid JSON,
but no UTF-8 text can hold it), and a multipart form may declare a charset that decodes to one.
Every JSON endpoint and every form answers 422 naming the field, and stores nothing; before,
most answered 500 (storing or echoing the text failed)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from sqlalchemy import func, select

from app.db import Database
from app.models import (
    ClassAssignment,
    ClassMember,
    Classroom,
    QuestionAttempt,
    Submission,
    User,
)
from tests.helpers import browser_signup, csrf_from, make_student, make_teacher

EXERCISE = "gpu-support-device-independent"
QUESTION = "gpu-support-move-to"  # fill in one blank
LESSON = "tensor-basics"
STORED = (Submission, QuestionAttempt, User, Classroom, ClassMember, ClassAssignment)


async def counts(db: Database) -> dict[str, int]:
    async with db.sessionmaker() as session:
        return {
            model.__name__: await session.scalar(select(func.count()).select_from(model)) or 0
            for model in STORED
        }


@pytest.fixture
async def people(client: httpx.AsyncClient, db: Database) -> dict[str, Any]:
    student, _ = await make_student(db)
    teacher, _ = await make_teacher(db)
    created = await client.post("/api/classes", json={"name": "Odd input"}, headers=teacher)
    assert created.status_code == 201, created.text
    return {"student": student, "teacher": teacher, "class": created.json()}


# (who, method, path, raw JSON body, the location the 422 must name)
CASES: dict[str, tuple[str | None, str, str, bytes, list[Any]]] = {
    "submission code": (
        "student",
        "POST",
        f"/api/exercises/{EXERCISE}/submissions",
        b'{"code": "\\ud800"}',
        ["body", "code"],
    ),
    "try-out code": (
        "student",
        "POST",
        f"/api/exercises/{EXERCISE}/runs",
        b'{"code": "print(1)  # \\udfff"}',
        ["body", "code"],
    ),
    "an answer": (
        "student",
        "POST",
        f"/api/questions/{QUESTION}/answers",
        b'{"answer": "\\ud800"}',
        ["body", "answer"],
    ),
    "an answer deep in a list": (
        "student",
        "POST",
        f"/api/questions/{QUESTION}/answers",
        b'{"answer": [["to", "\\ud800"]]}',
        ["body", "answer", 0, 1],
    ),
    "an answer's key": (
        "student",
        "POST",
        f"/api/questions/{QUESTION}/answers",
        b'{"answer": {"\\ud800": "to"}}',
        ["body", "answer", "\\ud800"],
    ),
    "register username": (
        None,
        "POST",
        "/api/auth/register",
        b'{"username": "\\ud800abc", "password": "correct horse"}',
        ["body", "username"],
    ),
    "register password": (
        None,
        "POST",
        "/api/auth/register",
        b'{"username": "oddpassword", "password": "correct horse \\ud800"}',
        ["body", "password"],
    ),
    "token password": (
        None,
        "POST",
        "/api/auth/token",
        b'{"username": "nobody", "password": "\\ud800"}',
        ["body", "password"],
    ),
    "class name": ("teacher", "POST", "/api/classes", b'{"name": "\\ud800"}', ["body", "name"]),
    "class rename": (
        "teacher",
        "PATCH",
        "/api/classes/{class_id}",
        b'{"name": "Renamed \\ud800"}',
        ["body", "name"],
    ),
    "join code": (
        "student",
        "POST",
        "/api/classes/join",
        b'{"join_code": "\\ud800"}',
        ["body", "join_code"],
    ),
    "assignment due date": (
        "teacher",
        "PUT",
        f"/api/classes/{{class_id}}/assignments/{LESSON}",
        b'{"due_at": "2030-01-01\\ud800"}',
        ["body", "due_at"],
    ),
    "an unknown key": (
        "student",
        "POST",
        f"/api/exercises/{EXERCISE}/submissions",
        b'{"code": "print(1)", "\\udc00": 1}',
        ["body", "\\udc00"],
    ),
}


@pytest.mark.parametrize("case", CASES)
async def test_a_lone_surrogate_is_a_422_naming_the_field(
    client: httpx.AsyncClient, db: Database, people: dict[str, Any], case: str
) -> None:
    who, method, path, body, loc = CASES[case]
    before = await counts(db)
    response = await client.request(
        method,
        path.format(class_id=people["class"]["id"]),
        content=body,
        headers={"content-type": "application/json", **(people[who] if who else {})},
    )
    assert response.status_code == 422, response.text
    [error] = response.json()["detail"]
    assert error["loc"] == loc
    assert error["type"] == "string_unicode"
    assert "lone surrogate" in error["msg"] and "UTF-8" in error["msg"]
    assert await counts(db) == before
    if case == "class rename":
        got = await client.get(f"/api/classes/{people['class']['id']}", headers=people["teacher"])
        assert got.json()["name"] == "Odd input"


async def test_a_body_without_a_content_type_is_read_as_json_and_refused(
    client: httpx.AsyncClient, db: Database, people: dict[str, Any]
) -> None:
    response = await client.post(
        f"/api/exercises/{EXERCISE}/submissions",
        content=b'{"code": "\\ud800"}',
        headers={**people["student"], "content-type": ""},
    )
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["body", "code"]


async def test_a_surrogate_pair_is_one_valid_character(
    client: httpx.AsyncClient, people: dict[str, Any]
) -> None:
    """An escaped pair (an emoji beyond the first 65,536 code points) decodes to one
    character: valid text, accepted."""
    response = await client.post(
        "/api/classes",
        content=b'{"name": "Class \\ud83d\\ude00"}',
        headers={"content-type": "application/json", **people["teacher"]},
    )
    assert response.status_code == 201, response.text
    assert response.json()["name"] == "Class \U0001f600"


async def test_a_body_that_is_not_json_is_still_the_endpoints_business(
    client: httpx.AsyncClient, people: dict[str, Any]
) -> None:
    response = await client.post(
        "/api/classes",
        content=b'{"name": "\\ud800',
        headers={"content-type": "application/json", **people["teacher"]},
    )
    assert response.status_code == 422
    assert response.json()["detail"][0]["type"] == "json_invalid"


def multipart(fields: dict[str, str], charset: str) -> tuple[bytes, dict[str, str]]:
    """A multipart form whose fields are written as given, declaring `charset`."""
    boundary = "oddinputboundary"
    parts = [
        f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'
        for name, value in fields.items()
    ]
    body = ("".join(parts) + f"--{boundary}--\r\n").encode("ascii")
    return body, {"content-type": f"multipart/form-data; boundary={boundary}; charset={charset}"}


@pytest.mark.parametrize("accept", ["text/html", "application/json"])
async def test_a_form_decoding_to_a_lone_surrogate_is_a_422(
    client: httpx.AsyncClient, db: Database, accept: str
) -> None:
    """A multipart form may declare any charset; unicode_escape turns the six characters
    \\ud800 into a lone surrogate. The page's form answers 422 and stores nothing."""
    await browser_signup(client)
    page = await client.get(f"/lessons/{LESSON}")
    before = await counts(db)
    body, headers = multipart(
        {"csrf_token": csrf_from(page.text), "code": "print(1)  # \\ud800"}, "unicode_escape"
    )
    response = await client.post(
        f"/exercises/{EXERCISE}/submissions",
        content=body,
        headers={**headers, "accept": accept},
    )
    assert response.status_code == 422, response.text
    if accept == "application/json":
        assert response.json()["detail"][0]["loc"] == ["body", "code"]
    assert await counts(db) == before


async def test_percent_encoded_surrogate_bytes_in_a_form_are_replaced_not_a_500(
    client: httpx.AsyncClient,
) -> None:
    """A urlencoded %ED%A0%80 is not UTF-8 (the bytes of a surrogate): the form parser
    decodes it as replacement characters, which the username rules then refuse."""
    page = await client.get("/signup")
    response = await client.post(
        "/signup",
        content=(
            f"username=%ED%A0%80abc&password=correct+horse&csrf_token={csrf_from(page.text)}"
        ).encode(),
        headers={"content-type": "application/x-www-form-urlencoded"},
    )
    assert response.status_code < 500
    assert response.status_code != 303  # not signed up


@pytest.mark.parametrize(
    "body", [b"\xff\xfe{", b'{"username": "\xe9"}', b"\x80"], ids=["bom", "latin1", "stray"]
)
async def test_a_body_that_is_not_utf8_is_a_422_naming_the_body(
    client: httpx.AsyncClient, body: bytes
) -> None:
    """FastAPI answers a body it cannot decode with a 400 that no operation documents; every
    other malformed body is a 422, so this one is too."""
    response = await client.post(
        "/api/auth/token", content=body, headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 422, response.text
    assert response.json()["detail"][0]["loc"] == ["body"]


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        ("PUT", "/api/me/tokens", {"GET", "POST"}),  # two routes, declared apart
        ("DELETE", "/api/exercises/x/submissions", {"GET", "POST"}),
        ("POST", "/api/classes/1", {"GET", "PATCH"}),
    ],
)
async def test_a_405_names_every_method_the_path_has(
    client: httpx.AsyncClient, method: str, path: str, allowed: set[str]
) -> None:
    response = await client.request(method, path)
    assert response.status_code == 405
    named = {m.strip() for m in response.headers["allow"].split(",")} - {"HEAD"}
    assert named == allowed


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/api/me/tokens", {"name": "x", "expires_in_days": True}),
        ("/api/me/tokens", {"name": "x", "expires_in_days": "30"}),
    ],
)
async def test_a_number_field_takes_numbers_only(
    client: httpx.AsyncClient, db: Database, path: str, body: dict[str, Any]
) -> None:
    """JSON's true is not the number 1, nor "30" the number 30: found by the API fuzzer
    (a boolean was accepted as a token's lifetime)."""
    headers, _ = await make_teacher(db)
    response = await client.post(path, json=body, headers=headers)
    assert response.status_code == 422, response.text
    assert response.json()["detail"][0]["loc"][:2] == ["body", "expires_in_days"]
