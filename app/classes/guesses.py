"""Join codes tried by students, throttled per student and per address (app/limits.py).

A code no class has counts against both; a code a class has (archived or not) does not,
so a whole class joining from behind one school address is never refused for being
many. Once either limit is reached every code is refused, the right one too, so the
answer tells a guesser nothing. A join link sends a visitor who is not logged in to log in
first; that page names the class (`class_for_visitor`), counted against the address alone
the same way. Teachers are refused (403) whatever the code."""

from __future__ import annotations

from app import limits
from app.classes import service
from app.config import Settings
from app.db import Database


async def check_guess(
    *, database: Database, settings: Settings, student_id: int, address: str, code: str
) -> None:
    """Raise limits.LimitReached if this student or this address has tried too many wrong
    codes lately; else count `code` if no class has it. In a short transaction of its own,
    committed at once (the request's answer for a wrong code rolls its own work back), so
    call it before the request's unit of work writes. The address's count is locked before
    the student's, always in that order."""
    async with database.writer() as session, session.begin():
        spent = [
            await limits.take(
                session=session, limit=limits.join_guesses_by_address(settings), subject=address
            ),
            await limits.take(
                session=session, limit=limits.join_guesses_by_user(settings), subject=student_id
            ),
        ]
        if await service.class_for_code(session=session, code=code) is not None:
            for taken in spent:
                await limits.give_back(session=session, taken=taken)


async def class_for_visitor(
    *, database: Database, settings: Settings, address: str, code: str
) -> str | None:
    """The name of the class a join link is for, to tell a visitor who is not logged in
    which class they are about to join. Counted like a student's guess, against `address`
    only (there is no student yet); None for a code no class has, an archived class, or
    once the address has tried too many codes. In a short transaction of its own."""
    try:
        async with database.writer() as session, session.begin():
            taken = await limits.take(
                session=session, limit=limits.join_guesses_by_address(settings), subject=address
            )
            classroom = await service.class_for_code(session=session, code=code)
            if classroom is not None:
                await limits.give_back(session=session, taken=taken)
    except limits.LimitReached:
        return None
    if classroom is None or classroom.archived:
        return None
    return classroom.name
