"""Who may call what: every endpoint and page of the classes feature, for five callers.

anonymous: 401 from the API, a redirect to the log-in page from pages;
member: a student in the class; outsider: a student in another teacher's class;
teacher: the class's teacher; other_teacher: a teacher with a class of their own.

A wrong role answers 403; a class or student the caller may not see answers 404, the same
as one that does not exist, so ids cannot be probed.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

from app.classes import service
from app.db import Database
from tests.app.classes.conftest import LESSON, OTHER_LESSON, World, add_submission, build_world
from tests.helpers import csrf_from

ROLES = ("anonymous", "member", "outsider", "teacher", "other_teacher")


@dataclass(frozen=True)
class Case:
    method: str
    path: str  # {cid} the class, {sid} its student, {code} its join code, {slug} a lesson
    expected: tuple[int, int, int, int, int]  # in the order of ROLES
    json: dict[str, Any] | None = None
    form: dict[str, str] | None = None

    @property
    def page(self) -> bool:
        return not self.path.startswith("/api/")


# The class's teacher only: students are the wrong role (403), another teacher gets 404.
def api(method: str, path: str, ok: int = 200, json: dict[str, Any] | None = None) -> Case:
    return Case(method, path, (401, 403, 403, ok, 404), json=json)


def page(method: str, path: str, ok: int = 200, form: dict[str, str] | None = None) -> Case:
    return Case(method, path, (303, 403, 403, ok, 404), form=form)


CASES = {
    # the API, as in the contract
    "create class": Case("POST", "/api/classes", (401, 403, 403, 201, 201), json={"name": "A"}),
    "join": Case(
        "POST", "/api/classes/join", (401, 200, 200, 403, 403), json={"join_code": "{code}"}
    ),
    "progress": api("GET", "/api/classes/{cid}/progress"),
    "progress csv": api("GET", "/api/classes/{cid}/progress.csv"),
    "student submissions": api("GET", "/api/classes/{cid}/students/{sid}/submissions"),
    "student submission": api("GET", "/api/classes/{cid}/students/{sid}/submissions/{subid}"),
    # the API, added
    "list classes": Case("GET", "/api/classes", (401, 403, 403, 200, 200)),
    "joined classes": Case("GET", "/api/classes/joined", (401, 200, 200, 403, 403)),
    "class detail": api("GET", "/api/classes/{cid}"),
    "rename": api("PATCH", "/api/classes/{cid}", json={"name": "B"}),
    "archive": api("PATCH", "/api/classes/{cid}", json={"archived": True}),
    "regenerate code": api("POST", "/api/classes/{cid}/join-code"),
    "remove student": api("DELETE", "/api/classes/{cid}/students/{sid}", ok=204),
    "student number": api(
        "PATCH", "/api/classes/{cid}/students/{sid}", json={"student_number": "7"}
    ),
    "list assignments": api("GET", "/api/classes/{cid}/assignments"),
    "assign": api("PUT", f"/api/classes/{{cid}}/assignments/{OTHER_LESSON}", json={}),
    "unassign": api("DELETE", "/api/classes/{cid}/assignments/{slug}", ok=204),
    "drill-down": api("GET", "/api/classes/{cid}/students/{sid}/lessons/{slug}"),
    "insight": api("GET", "/api/classes/{cid}/insight"),
    "needs attention": api("GET", "/api/classes/{cid}/attention"),
    "gradebook": api("GET", "/api/classes/{cid}/gradebook.csv"),
    "extend": api(
        "PUT",
        "/api/classes/{cid}/assignments/{slug}/extensions/{sid}",
        json={"due_at": "2031-01-01"},
    ),
    "remove extension": api(
        "DELETE", "/api/classes/{cid}/assignments/{slug}/extensions/{sid}", ok=204
    ),
    # pages
    "home page": Case("GET", "/", (200, 200, 200, 200, 200)),
    "classes page": Case("GET", "/classes", (303, 200, 200, 200, 200)),
    "create form": Case("POST", "/classes", (303, 403, 403, 303, 303), form={"name": "A"}),
    "join form": Case("POST", "/join", (303, 303, 303, 403, 403), form={"join_code": "{code}"}),
    "join link page": Case("GET", "/join/{code}", (303, 200, 200, 403, 403)),
    "join link form": Case("POST", "/join/{code}", (303, 303, 303, 403, 403)),
    "class page": page("GET", "/classes/{cid}"),
    "rename form": page("POST", "/classes/{cid}/rename", 303, {"name": "B"}),
    "archive form": page("POST", "/classes/{cid}/archive", 303, {"archived": "1"}),
    "regenerate form": page("POST", "/classes/{cid}/join-code", 303),
    "confirm removal page": page("GET", "/classes/{cid}/students/{sid}/remove"),
    "remove form": page("POST", "/classes/{cid}/students/{sid}/remove", 303),
    "assign form": page("POST", "/classes/{cid}/assignments", 303, {"lesson_slug": OTHER_LESSON}),
    "confirm unassign page": page("GET", "/classes/{cid}/assignments/{slug}/remove"),
    "unassign form": page("POST", "/classes/{cid}/assignments/{slug}/remove", 303),
    "grid page": page("GET", "/classes/{cid}/progress"),
    "drill-down page": page("GET", "/classes/{cid}/students/{sid}/lessons/{slug}"),
    "insight page": page("GET", "/classes/{cid}/insight"),
    "needs attention page": page("GET", "/classes/{cid}/attention"),
    "comment form": page(
        "POST",
        "/classes/{cid}/students/{sid}/lessons/{slug}/comments",
        303,
        {"submission_id": "{subid}", "text": "Look at the shapes."},
    ),
    "extension form": page(
        "POST",
        "/classes/{cid}/students/{sid}/lessons/{slug}/extension",
        303,
        {"due_date": "2031-01-01"},
    ),
    "remove extension form": page(
        "POST", "/classes/{cid}/students/{sid}/lessons/{slug}/extension/remove", 303
    ),
    # the roster's pages (app/classes/roster_pages.py)
    "import page": page("GET", "/classes/{cid}/import"),
    "import preview": page("POST", "/classes/{cid}/import", 200, {"text": "Ann,1,ann.access"}),
    "import confirm": page(
        "POST", "/classes/{cid}/import/confirm", 200, {"text": "Ann,1,ann.access"}
    ),
    "number form": page(
        "POST", "/classes/{cid}/students/{sid}/number", 303, {"student_number": "7"}
    ),
    "undo removal form": page("POST", "/classes/{cid}/students/{sid}/restore", 303),
    "confirm new code page": page("GET", "/classes/{cid}/join-code"),
    "undo new code form": page("POST", "/classes/{cid}/join-code/undo", 303),
    "new password link form": page("POST", "/classes/{cid}/students/{sid}/password-link", 303),
}


@pytest.fixture
async def world(db: Database) -> World:
    """The shared world, and a submission of the member's for the endpoints that read one."""
    world = await build_world(db)
    world.extra["submission"] = await add_submission(
        db, user_id=world.member.id, exercise_id="tensor-basics-grid", verdict="passed"
    )
    async with db.sessionmaker() as session:  # for the endpoints that remove one
        await service.set_extension(
            session=session,
            class_id=world.class_id,
            lesson_slug=LESSON,
            student_id=world.member.id,
            due_at=datetime(2031, 1, 1, tzinfo=UTC),
        )
        await session.commit()
    return world


def _fill(text: str, world: World) -> str:
    return (
        text.replace("{cid}", str(world.class_id))
        .replace("{sid}", str(world.member.id))
        .replace("{code}", world.join_code)
        .replace("{slug}", LESSON)
        .replace("{subid}", str(world.extra["submission"]))
    )


async def call(client: httpx.AsyncClient, world: World, case: Case, role: str) -> httpx.Response:
    person = world.person(role)
    headers = dict(person.headers) if person else {}
    if case.page:
        headers["accept"] = "text/html"
    kwargs: dict = {"headers": headers}
    if case.json is not None:
        kwargs["json"] = {
            k: _fill(v, world) if isinstance(v, str) else v for k, v in case.json.items()
        }
    if case.page and case.method == "POST":
        kwargs["data"] = {k: _fill(v, world) for k, v in (case.form or {}).items()}
        if person is None:  # a browser: forms carry the session's CSRF token
            kwargs["data"]["csrf_token"] = csrf_from((await client.get("/login")).text)
    return await client.request(case.method, _fill(case.path, world), **kwargs)


async def check(client: httpx.AsyncClient, world: World, case: Case, role: str) -> list[str]:
    """The problems with one cell of the matrix (none: as expected)."""
    expected = case.expected[ROLES.index(role)]
    response = await call(client, world, case, role)
    if response.status_code != expected:
        return [f"{role}: {response.status_code}, expected {expected}: {response.text[:200]}"]
    problems = []
    location = response.headers.get("location", "")
    if role == "anonymous" and expected == 303 and not location.startswith("/login?next=/"):
        problems.append(f"{role}: redirected to {response.headers['location']}")
    if not case.page and expected >= 400 and not isinstance(response.json()["detail"], str):
        problems.append(f"{role}: no detail sentence")
    if expected == 404:
        # The same answer as for a class that does not exist.
        missing = Case(
            case.method, case.path.replace("{cid}", "2147483647"), case.expected, case.json
        )
        other = await call(client, world, missing, role)
        if other.status_code != 404 or (not case.page and other.json() != response.json()):
            problems.append(f"{role}: a missing class answers {other.status_code} {other.text}")
    return problems


@pytest.mark.parametrize("name", list(CASES))
async def test_access_matrix(client: httpx.AsyncClient, world: World, name: str) -> None:
    """One row of the matrix: the endpoint called by each of the five callers in turn
    (in ROLES order, so the class's teacher acts before the other teacher)."""
    case = CASES[name]
    problems = [p for role in ROLES for p in await check(client, world, case, role)]
    assert not problems, "\n".join([name, *problems])


def _route_path(path: str) -> str:
    return (
        path.replace("{cid}", "{class_id}")
        .replace("{sid}", "{student_id}")
        .replace("{slug}", "{lesson_slug}")
        .replace(OTHER_LESSON, "{lesson_slug}")
        .replace("{subid}", "{submission_id}")
    )


def test_every_route_of_the_feature_is_in_the_matrix() -> None:
    from app.classes import pages, report_pages, roster_pages, router

    covered = {(case.method, _route_path(case.path)) for case in CASES.values()}
    routes = {
        (method, route.path)
        for module in (router, pages, report_pages, roster_pages)
        for route in module.router.routes
        for method in getattr(route, "methods", set()) - {"HEAD"}
    }
    assert len(routes) > 25
    assert routes <= covered, routes - covered


# --- changing an id never reveals another person's data -------------------------------


async def test_a_teacher_cannot_read_a_student_of_another_class_through_their_own(
    client: httpx.AsyncClient, world: World
) -> None:
    """The outsider is in the other teacher's class: asking for them through one's own class
    answers 404, on every endpoint that takes a student id."""
    h = world.teacher.headers
    base = f"/api/classes/{world.class_id}/students/{world.outsider.id}"
    for method, path in (
        ("GET", f"{base}/submissions"),
        ("GET", f"{base}/submissions/{world.extra['submission']}"),
        ("GET", f"{base}/lessons/{LESSON}"),
        ("DELETE", base),
    ):
        response = await client.request(method, path, headers=h)
        assert response.status_code == 404, path
    page_response = await client.get(
        f"/classes/{world.class_id}/students/{world.outsider.id}/lessons/{LESSON}", headers=h
    )
    assert page_response.status_code == 404
    assert world.outsider.username not in page_response.text


async def test_a_teacher_cannot_reach_another_teachers_student_with_their_class_id(
    client: httpx.AsyncClient, world: World
) -> None:
    h = world.teacher.headers
    base = f"/api/classes/{world.other_class_id}"
    for path in (
        base,
        f"{base}/progress",
        f"{base}/progress.csv",
        f"{base}/insight",
        f"{base}/students/{world.outsider.id}/submissions",
        f"{base}/students/{world.outsider.id}/lessons/{LESSON}",
    ):
        response = await client.get(path, headers=h)
        assert response.status_code == 404, path
        assert world.outsider.username not in response.text
        assert world.other_join_code not in response.text


async def test_listings_show_only_ones_own(client: httpx.AsyncClient, world: World) -> None:
    mine = await client.get("/api/classes", headers=world.teacher.headers)
    assert [c["id"] for c in mine.json()] == [world.class_id]
    joined = await client.get("/api/classes/joined", headers=world.member.headers)
    assert [c["id"] for c in joined.json()] == [world.class_id]
    page_html = (await client.get("/classes", headers=world.teacher.headers)).text
    assert "Theirs" not in page_html
    assert world.other_join_code not in page_html


async def test_the_grid_never_lists_students_of_other_classes(
    client: httpx.AsyncClient, world: World
) -> None:
    grid = await client.get(
        f"/api/classes/{world.class_id}/progress", headers=world.teacher.headers
    )
    assert [s["id"] for s in grid.json()["students"]] == [world.member.id]
    assert {c["student_id"] for c in grid.json()["cells"]} == {world.member.id}
