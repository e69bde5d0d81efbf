"""Typed states (app/models/states.py): one enum per concept, the strings stored and shown
unchanged, and no string literal standing in for a state anywhere else in `app/`."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import get_args

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import select, text
from sqlalchemy.ext.asyncio import AsyncEngine

import grader
from app.content.schema import ComparisonFile, ExerciseFile, LimitsFile
from app.db import Database
from app.grading.jobs import summarize
from app.models import (
    Base,
    Exercise,
    RevealReason,
    Role,
    RunVerdict,
    SolutionReveal,
    Submission,
    SubmissionMode,
    SubmissionStatus,
    User,
    Verdict,
)
from app.submissions.schemas import RunOut, SubmissionOut

APP = Path(__file__).resolve().parents[2] / "app"
ENUMS = (SubmissionStatus, Verdict, RunVerdict, SubmissionMode, Role, RevealReason)
STATE_STRINGS = frozenset(member.value for enum in ENUMS for member in enum)
# What holds a state: `x.status`, `status`, `run["verdict"]`, `run.get("verdict")`.
STATE_NAMES = frozenset({"status", "verdict", "mode", "role", "reason"})


def _names_a_state(node: ast.AST) -> bool:
    match node:
        case ast.Attribute(attr=attr) | ast.Name(id=attr):
            return attr in STATE_NAMES
        case ast.Subscript(slice=ast.Constant(value=key)):
            return key in STATE_NAMES
        case ast.Call(func=ast.Attribute(attr="get"), args=[ast.Constant(value=key), *_]):
            return key in STATE_NAMES
    return False


def _state_literal(node: ast.AST | None) -> bool:
    """A state's string, or a tuple, list or set holding one."""
    match node:
        case ast.Constant(value=str(value)):
            return value in STATE_STRINGS
        case ast.Tuple(elts=items) | ast.List(elts=items) | ast.Set(elts=items):
            return any(_state_literal(item) for item in items)
    return False


def state_literals(source: str) -> list[int]:
    """Lines where a string literal stands in for a state: compared with one (`==`, `in`,
    `.in_(...)`), passed or assigned as one (`status="queued"`), or a default."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        found = False
        match node:
            case ast.Compare(left=left, comparators=comparators):
                operands = [left, *comparators]
                found = any(map(_names_a_state, operands)) and any(map(_state_literal, operands))
            case ast.Call(func=ast.Attribute(attr="in_" | "not_in" | "notin_") as func, args=args):
                found = _names_a_state(func.value) and any(map(_state_literal, args))
            case ast.keyword(arg=name, value=value):
                found = name in STATE_NAMES and _state_literal(value)
            case ast.Assign(targets=targets, value=value):
                found = any(map(_names_a_state, targets)) and _state_literal(value)
            case (
                ast.AnnAssign(target=target, value=value)
                | ast.AugAssign(target=target, value=value)
            ):
                found = _names_a_state(target) and _state_literal(value)
            case ast.Dict(keys=keys, values=values):
                found = any(
                    _names_a_state(ast.Subscript(value=ast.Name("_"), slice=key))
                    and _state_literal(value)
                    for key, value in zip(keys, values, strict=True)
                    if key is not None
                )
            case ast.Tuple(elts=items) | ast.List(elts=items) | ast.Set(elts=items):
                # A set of states spelled again (`FINISHED = ("done", "error")`): the enum
                # module has it, once (`SubmissionStatus.FINISHED`).
                found = len(items) > 1 and all(
                    isinstance(item, ast.Constant) and item.value in STATE_STRINGS for item in items
                )
            case ast.arguments():
                positional = [*node.posonlyargs, *node.args]
                pairs = [
                    *zip(
                        positional[len(positional) - len(node.defaults) :],
                        node.defaults,
                        strict=True,
                    ),
                    *zip(node.kwonlyargs, node.kw_defaults, strict=True),
                ]
                found = any(
                    arg.arg in STATE_NAMES and _state_literal(default) for arg, default in pairs
                )
        if found:
            lines.append(getattr(node, "lineno", 0) or _first_line(node))
    return sorted(set(lines))


def _first_line(node: ast.AST) -> int:
    return min((getattr(n, "lineno", 0) for n in ast.walk(node) if hasattr(n, "lineno")), default=0)


@pytest.mark.parametrize(
    "source",
    [
        'if submission.status == "queued": pass',
        'pending = s.status in ("queued", "running")',
        'q = Submission.status.in_(("queued", "running"))',
        'q = update(Submission).values(status="running")',
        'faults = [r for r in runs if r["verdict"] == "error"]',
        'ok = run.get("verdict") in ("passed", "not_graded")',
        'if user.role != "teacher": pass',
        'submission.status = "queued"',
        'def create(*, mode: str = "grade"): pass',
        'def create(mode="run"): pass',
        'summary = {"status": "done"}',
        'if "passed" == verdict: pass',
        'FINISHED = ("done", "error")',
        'parser.add_argument("--role", choices=["student", "teacher"])',
    ],
)
def test_the_scan_finds_a_state_written_as_a_string(source: str) -> None:
    assert state_literals(source) == [1]


@pytest.mark.parametrize(
    "source",
    [
        'if cell.state == "done": pass',  # an assignment's state in a class, not a submission's
        'if kind == "error": pass',
        "if submission.status == SubmissionStatus.QUEUED: pass",
        'labels = {"queued": "Queued", "running": "Running"}',
        'return "error", reason',
        'if comparison.mode == "patterns": pass',
        'STATES = ("done", "in_progress", "late", "not_started")',
        'for key in ("passed", "total", "failed"): pass',
    ],
)
def test_the_scan_leaves_other_strings_alone(source: str) -> None:
    assert state_literals(source) == []


def test_no_state_is_written_as_a_string_in_app() -> None:
    """Compare with `SubmissionStatus.DONE`, `Verdict.PASSED`, `Role.TEACHER`... (and
    `SubmissionStatus.UNFINISHED` for "queued or running"), never with the strings."""
    found = [
        f"{path.relative_to(APP.parent)}:{line}"
        for path in sorted(APP.rglob("*.py"))
        if path.name != "states.py"
        for line in state_literals(path.read_text())
    ]
    assert found == []


def test_templates_ask_the_submission_whether_it_is_unfinished() -> None:
    spelled = re.compile(r"status\s+(not\s+)?in\s*[(\[]")
    found = [
        str(path.relative_to(APP.parent))
        for path in sorted((APP / "templates").rglob("*.html"))
        if spelled.search(path.read_text())
    ]
    assert found == []


def test_the_stored_and_shown_strings_are_the_ones_the_api_documents() -> None:
    # The database and the public JSON hold exactly these; renaming a member is fine,
    # changing a value is a migration and an API break.
    assert [*map(str, SubmissionStatus)] == ["queued", "running", "done", "error"]
    assert [*map(str, Verdict)] == [
        "passed",
        "wrong_output",
        "runtime_error",
        "timeout",
        "memory_limit",
        "output_limit",
    ]
    assert [*map(str, SubmissionMode)] == ["grade", "run"]
    assert [*map(str, Role)] == ["student", "teacher", "admin"]
    assert [*map(str, RevealReason)] == ["passed", "gave_up"]


def test_unfinished_and_finished_split_the_statuses() -> None:
    assert {"queued", "running"} == SubmissionStatus.UNFINISHED
    assert {"done", "error"} == SubmissionStatus.FINISHED
    assert set(SubmissionStatus) == SubmissionStatus.UNFINISHED | SubmissionStatus.FINISHED
    assert Submission(status=SubmissionStatus.RUNNING).unfinished
    assert not Submission(status=SubmissionStatus.ERROR).unfinished


def test_run_verdicts_are_the_graders() -> None:
    assert set(RunVerdict) == set(get_args(grader.RunVerdict))
    # A submission's verdict is a run's, never "not graded" or a platform fault.
    assert set(Verdict) == set(RunVerdict) - {RunVerdict.NOT_GRADED, RunVerdict.ERROR}


def test_a_finished_outcome_is_made_of_members() -> None:
    # Written into the loaded row as they are, so the row holds members, not bare strings.
    run = grader.Run(
        device="cpu", verdict="timeout", stdout="", stderr="", exit_code=None, duration_ms=9
    )
    outcome = summarize("1", [run.model_dump()])
    assert outcome["status"] is SubmissionStatus.DONE
    assert outcome["verdict"] is Verdict.TIMEOUT
    broken = run.model_copy(update={"verdict": "error"})
    assert summarize("1", [broken.model_dump()])["status"] is SubmissionStatus.ERROR


def test_api_runs_are_the_graders_runs_without_hidden_checks() -> None:
    assert issubclass(RunOut, grader.Run)
    schema = SubmissionOut.model_json_schema(mode="serialization")
    run = schema["$defs"]["RunOut"]["properties"]
    assert "variant" not in run and "hidden_runs" not in run
    assert run["verdict"]["enum"] == list(get_args(grader.RunVerdict))
    assert schema["$defs"]["SubmissionStatus"]["enum"] == ["queued", "running", "done", "error"]
    assert schema["$defs"]["SubmissionMode"]["enum"] == ["grade", "run"]
    stored = grader.Run(
        device="cpu", verdict="passed", stdout="1\n", stderr="", exit_code=0, duration_ms=5
    ).model_dump()
    stored["hidden_runs"] = [{**stored, "stdout": "", "variant": "seed-7"}]
    assert RunOut.model_validate(stored).model_dump(mode="json") == {
        "device": "cpu",
        "verdict": "passed",
        "stdout": "1\n",
        "stderr": "",
        "exit_code": 0,
        "duration_ms": 5,
        "diff": "",
        "hint": None,
        "detail": None,
        "rows": None,
        "truncated": False,
        "output_matches": None,  # a try-out run's comparison; a graded run has none
    }


def test_content_limits_are_the_graders_tightened() -> None:
    assert issubclass(LimitsFile, grader.Limits)
    assert issubclass(ComparisonFile, grader.Comparison)
    assert LimitsFile().model_dump() == grader.Limits().model_dump()
    assert ExerciseFile.model_fields["limits"].annotation is LimitsFile
    content = LimitsFile.model_json_schema()["properties"]
    graders = grader.Limits.model_json_schema()["properties"]
    assert content.keys() == graders.keys()
    for name, bounds in content.items():
        # What content allows is within what the grader allows, at both ends.
        for side, sign in (("inimum", 1), ("aximum", -1)):
            theirs = _bound(graders[name], side, sign)
            if theirs is not None:
                ours = _bound(bounds, side, sign)
                assert ours is not None and ours >= theirs, (name, side)
    # The grader takes up to 600 s; one exercise may ask for 120 s at most.
    assert grader.Limits(wall_time_s=600).wall_time_s == 600
    with pytest.raises(ValueError, match="wall_time_s"):
        LimitsFile(wall_time_s=600)
    with pytest.raises(ValueError, match="extra_forbidden"):
        ComparisonFile.model_validate({"mode": "exact", "tolerance": 1})


def _bound(schema: dict[str, float], side: str, sign: int) -> tuple[float, bool] | None:
    """A JSON schema's lower (sign 1) or upper (-1) bound, as (value, exclusive) scaled by
    `sign`, so that a greater one is the tighter one."""
    bounds = [
        (sign * schema[key], exclusive)
        for key, exclusive in ((f"m{side}", False), (f"exclusiveM{side}", True))
        if key in schema
    ]
    return max(bounds, default=None)


async def test_the_database_keeps_the_plain_strings(db: Database) -> None:
    async with db.sessionmaker() as session:
        exercise_id = await session.scalar(select(Exercise.id).limit(1))
        user = User(username="states", password_hash="x", role=Role.TEACHER)
        session.add(user)
        await session.flush()
        session.add(
            Submission(
                user_id=user.id,
                exercise_id=exercise_id,
                code="print(1)",
                mode=SubmissionMode.RUN,
                status=SubmissionStatus.DONE,
                verdict=Verdict.WRONG_OUTPUT,
            )
        )
        session.add(
            SolutionReveal(user_id=user.id, exercise_id=exercise_id, reason=RevealReason.GAVE_UP)
        )
        await session.flush()
        raw = (
            await session.execute(
                text(
                    "SELECT u.role, s.mode, s.status, s.verdict, r.reason FROM users u"
                    " JOIN submissions s ON s.user_id = u.id"
                    " JOIN solution_reveals r ON r.user_id = u.id WHERE u.id = :id"
                ),
                {"id": user.id},
            )
        ).one()
        assert tuple(raw) == ("teacher", "run", "done", "wrong_output", "gave_up")
        assert all(type(value) is str for value in raw)
        # Written as plain strings (as the migrations and older code did), read as members.
        await session.execute(
            text("UPDATE submissions SET status = 'error', verdict = NULL WHERE user_id = :id"),
            {"id": user.id},
        )
        read = (
            await session.execute(
                select(Submission.status, Submission.mode, User.role)
                .join(User, User.id == Submission.user_id)
                .where(User.id == user.id)
            )
        ).one()
        assert read == (SubmissionStatus.ERROR, SubmissionMode.RUN, Role.TEACHER)
        assert isinstance(read.status, SubmissionStatus) and isinstance(read.role, Role)


async def test_state_columns_are_the_migrations_plain_text(engine: AsyncEngine) -> None:
    """The enums change no column: the migrated schema and the models agree on every state
    column's type (VARCHAR of the same length; no database enum, no CHECK)."""
    state_columns = {
        ("users", "role"),
        ("submissions", "mode"),
        ("submissions", "status"),
        ("submissions", "verdict"),
        ("solution_reveals", "reason"),
    }
    async with engine.connect() as connection:
        differences = await connection.run_sync(
            lambda sync: compare_metadata(
                MigrationContext.configure(sync, opts={"compare_type": True}), Base.metadata
            )
        )
    changed = [
        diff
        for entry in differences
        for diff in (entry if isinstance(entry, list) else [entry])
        if diff[0] == "modify_type" and (diff[2], diff[3]) in state_columns
    ]
    assert changed == []
