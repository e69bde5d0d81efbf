"""The live-content queries (app/lessons/catalog.py): a retired track, lesson, question or
exercise is left out of every one of them, and a live one is kept."""

from collections.abc import Awaitable, Callable

import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db import Database
from app.lessons import catalog
from app.models import Exercise, Lesson, Question, Track

Content = type[Track] | type[Lesson] | type[Question] | type[Exercise]
KINDS: list[Content] = [Track, Lesson, Question, Exercise]


def _key(row: Track | Lesson | Question | Exercise) -> str:
    return row.slug if isinstance(row, Track | Lesson) else row.id


@pytest.mark.parametrize("model", KINDS, ids=lambda model: model.__name__)
async def test_live_rows_leave_out_the_retired_ones(db: Database, model: Content) -> None:
    async with db.sessionmaker() as session:
        rows = (await session.scalars(catalog.live(model))).all()
        assert len(rows) >= 2, "the course has at least two of each"
        gone, kept = rows[0], rows[1]
        gone.retired = True
        await session.flush()

        live = [_key(row) for row in (await session.scalars(catalog.live(model))).all()]
        assert _key(gone) not in live
        assert _key(kept) in live
        assert live == [_key(row) for row in rows[1:]], "the order stays"
        counted = await session.scalar(select(func.count()).where(catalog.is_live(model)))
        assert counted == len(rows) - 1


Lookup = Callable[[AsyncSession, str], Awaitable[object | None]]
LOOKUPS: dict[str, tuple[type[Lesson] | type[Question] | type[Exercise], Lookup]] = {
    "lesson": (Lesson, lambda session, key: catalog.live_lesson(session=session, slug=key)),
    "question": (
        Question,
        lambda session, key: catalog.live_question(session=session, question_id=key),
    ),
    "exercise": (
        Exercise,
        lambda session, key: catalog.live_exercise(session=session, exercise_id=key),
    ),
}


@pytest.mark.parametrize("kind", LOOKUPS)
async def test_a_retired_row_is_not_found_by_its_key(db: Database, kind: str) -> None:
    model, lookup = LOOKUPS[kind]
    async with db.sessionmaker() as session:
        row = (await session.scalars(catalog.live(model))).first()
        assert row is not None
        key = _key(row)
        assert await lookup(session, key) is row
        row.retired = True
        await session.flush()
        assert await lookup(session, key) is None
        assert await lookup(session, "no-such-" + kind) is None
