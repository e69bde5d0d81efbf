"""Roster import: a teacher's CSV of students (name, number, e-mail or username) read into a
plan, shown as a preview, then carried out at once. Never commits.

Each line becomes one planned row: an existing student joins the class (or, already in
it, gets the number), anyone else gets a new account with a one-time set-password link
(app/auth/password_links.py), and a line that cannot be used says why. The plan is made
again when the teacher confirms (the class or the accounts may have changed since the
preview), and it is carried out only if no line is refused: the request's one
transaction then adds every row or, on any failure, none.

A student who made their own account is found by username (accounts keep no e-mail of
their own); an e-mail finds only an account an earlier import made with it, so importing
the same list twice makes nothing twice.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from pydantic import TypeAdapter, ValidationError
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import InstrumentedAttribute

from app.auth import password_links
from app.auth.schemas import (
    USERNAME_MAX,
    USERNAME_PATTERN,
    DisplayName,
    fold_for_search,
    fold_username,
)
from app.classes import service
from app.i18n import N_
from app.models import ClassMember, Role, User, utcnow
from app.models.user import EMAIL_MAX

MAX_ROWS = 1000
MAX_BYTES = 200_000
EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
# A first line whose third cell is one of these names the columns; it is skipped (and the
# preview says so).
HEADER_WORDS = {
    "email",
    "e-mail",
    "e-posta",
    "eposta",
    "username",
    "user name",
    "kullanici adi",
    "e-mail or username",
    "email or username",
    "e-posta veya kullanici adi",
}

NO_IDENTIFIER = N_("No e-mail or username in the third column.")
BAD_EMAIL = N_("“%(value)s” is not an e-mail address.")
BAD_USERNAME = N_(
    "“%(value)s” is not a username (3 to 32 characters: a–z, digits, _ . -) nor an e-mail."
)
BAD_NAME = N_("The name is not valid (1 to 80 characters, no control characters).")
LONG_NUMBER = N_("The student number is longer than %(max)s characters.")
TOO_MANY_COLUMNS = N_("This line has %(count)s columns; use 3: name, number, e-mail or username.")
REPEATED = N_("Line %(line)s has the same e-mail or username.")
NOT_A_STUDENT = N_("“%(value)s” is a teacher's or administrator's account, not a student's.")
DISABLED = N_("The account “%(value)s” is disabled.")


class ImportRefused(Exception):
    """The whole input is unusable (empty, too long, not text); the message says why."""


class Action(StrEnum):
    ADD = "add"  # an existing student joins the class
    ALREADY = "already"  # already in the class: only the number is set
    CREATE = "create"  # a new account, with a set-password link
    REFUSED = "refused"


@dataclass
class PlannedRow:
    line: int
    name: str
    number: str
    identifier: str
    action: Action = Action.REFUSED
    # The account's username: the existing one's, or the one a new account gets.
    username: str = ""
    user_id: int | None = None
    email: str | None = None
    # Why the line is refused: a message id and its values, translated where shown.
    reason: str = ""
    values: dict[str, object] = field(default_factory=dict)


@dataclass
class Plan:
    rows: list[PlannedRow]
    header_skipped: bool = False

    @property
    def refused(self) -> list[PlannedRow]:
        return [row for row in self.rows if row.action is Action.REFUSED]

    def count(self, action: Action) -> int:
        return sum(1 for row in self.rows if row.action is action)


@dataclass
class CreatedAccount:
    name: str
    username: str
    number: str
    link: str  # a path: /set-password/<token>


def decode(data: bytes) -> str:
    """An uploaded file as text: UTF-8 (with or without Excel's BOM), else Windows-1254,
    the encoding Excel in Turkish saves "CSV" in."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("cp1254", errors="replace")


def read_lines(text: str) -> list[tuple[int, list[str]]]:
    """(line number, cells) of each non-blank line; the separator (comma, semicolon or tab)
    is the one the first line uses most."""
    if len(text.encode()) > MAX_BYTES:
        raise ImportRefused(N_("The list is too long: import at most 1000 students at a time."))
    text = text.lstrip("\ufeff")
    first = next((line for line in text.splitlines() if line.strip()), "")
    delimiter = max(",;\t", key=first.count) if first else ","
    lines = [
        (number, [cell.strip() for cell in cells])
        for number, cells in enumerate(csv.reader(io.StringIO(text), delimiter=delimiter), 1)
        if any(cell.strip() for cell in cells)
    ]
    if not lines:
        raise ImportRefused(N_("The list is empty: paste lines or choose a CSV file."))
    if len(lines) > MAX_ROWS + 1:
        raise ImportRefused(N_("The list is too long: import at most 1000 students at a time."))
    return lines


def _is_header(cells: list[str]) -> bool:
    return len(cells) >= 3 and fold_for_search(cells[2]) in HEADER_WORDS


_display_name = TypeAdapter(DisplayName)


def _read_row(line: int, cells: list[str]) -> PlannedRow:
    """A line's own checks (no database): columns, name, number, e-mail or username."""
    padded = [*cells, "", "", ""]
    row = PlannedRow(line=line, name=padded[0], number=padded[1], identifier=padded[2])
    if any(cells[3:]):
        row.reason, row.values = TOO_MANY_COLUMNS, {"count": len(cells)}
    elif not row.identifier:
        row.reason = NO_IDENTIFIER
    elif "@" in row.identifier:
        email = row.identifier.lower()
        if len(email) > EMAIL_MAX or not EMAIL.match(email):
            row.reason, row.values = BAD_EMAIL, {"value": row.identifier}
        row.email = email
    else:
        username = fold_username(row.identifier)
        if not (3 <= len(username) <= USERNAME_MAX and re.match(USERNAME_PATTERN, username)):
            row.reason, row.values = BAD_USERNAME, {"value": row.identifier}
        row.username = username
    if not row.reason and row.name:
        try:
            row.name = _display_name.validate_python(row.name)
        except ValidationError:
            row.reason = BAD_NAME
    if not row.reason and len(row.number) > service.STUDENT_NUMBER_MAX:
        row.reason, row.values = LONG_NUMBER, {"max": service.STUDENT_NUMBER_MAX}
    return row


def _username_from_email(email: str) -> str:
    """A username made of an e-mail's local part: "şükrü.öztürk@okul" is "sukru.ozturk"."""
    local = fold_for_search(email.split("@", 1)[0])
    name = re.sub(r"[^a-z0-9_.-]+", ".", local).strip("._-")[: USERNAME_MAX - 4]
    return name if len(name) >= 3 else f"student.{name}".strip(".")


async def plan_import(*, session: AsyncSession, class_id: int, text: str) -> Plan:
    """What importing `text` into the class would do, line by line (ImportRefused if the
    whole of it is unusable)."""
    lines = read_lines(text)
    header = _is_header(lines[0][1])
    rows = [_read_row(line, cells) for line, cells in lines[1 if header else 0 :]]
    if len(rows) > MAX_ROWS:
        raise ImportRefused(N_("The list is too long: import at most 1000 students at a time."))
    seen: dict[str, int] = {}
    for row in rows:
        key = row.email or row.username
        if not row.reason and key in seen:
            row.reason, row.values = REPEATED, {"line": seen[key]}
        seen.setdefault(key, row.line)
    usable = [row for row in rows if not row.reason]
    by_username = await _accounts(session, User.username, {r.username for r in usable})
    by_email = await _accounts(session, User.email, {r.email for r in usable if r.email})
    members = set(
        await session.scalars(
            select(ClassMember.student_id).where(
                ClassMember.class_id == class_id, ClassMember.removed_at.is_(None)
            )
        )
    )
    taken = set(by_username)
    for row in usable:
        user = by_email.get(row.email) if row.email else by_username.get(row.username)
        if user is not None:
            _existing(row, user, members)
        else:
            row.action = Action.CREATE
            if row.email:
                row.username = await _free_username(session, _username_from_email(row.email), taken)
            taken.add(row.username)
            row.name = row.name or row.username
    return Plan(rows=rows, header_skipped=header)


def _existing(row: PlannedRow, user: User, members: set[int]) -> None:
    row.username, row.user_id = user.username, user.id
    if user.role != Role.STUDENT:
        row.reason, row.values = NOT_A_STUDENT, {"value": row.identifier}
    elif not user.active:
        row.reason, row.values = DISABLED, {"value": row.identifier}
    else:
        row.action = Action.ALREADY if user.id in members else Action.ADD
        row.name = user.display_name  # the student's own name stays theirs


async def _accounts(
    session: AsyncSession, column: InstrumentedAttribute[Any], keys: set[str]
) -> dict[str, User]:
    """The accounts whose `column` (username or e-mail) is one of `keys`, by that value."""
    if not keys:
        return {}
    found = await session.scalars(select(User).where(column.in_(keys)))
    return {getattr(user, column.key): user for user in found}


async def _free_username(session: AsyncSession, base: str, taken: set[str]) -> str:
    """`base`, or `base` with the smallest number after it that no account has."""
    prefix = base[: USERNAME_MAX - 4]
    existing = (
        set(
            await session.scalars(
                select(User.username).where(func.substr(User.username, 1, len(prefix)) == prefix)
            )
        )
        | taken
    )
    if base not in existing:
        return base
    return next(f"{prefix}{n}" for n in range(2, 10_000) if f"{prefix}{n}" not in existing)


async def carry_out(*, session: AsyncSession, class_id: int, plan: Plan) -> list[CreatedAccount]:
    """Every row of a plan with no refused line: joins, numbers, new accounts and their
    links (returned: the only time a link is seen)."""
    if plan.refused:
        raise ValueError("a plan with refused lines is shown again, never carried out")
    created: list[CreatedAccount] = []
    now = utcnow()
    for row in plan.rows:
        if row.action is Action.CREATE:
            user = await password_links.create_invited(
                session=session, username=row.username, display_name=row.name, email=row.email
            )
            token, _ = await password_links.issue_link(session=session, user_id=user.id, now=now)
            created.append(
                CreatedAccount(row.name, row.username, row.number, password_links.link_path(token))
            )
            row.user_id = user.id
        assert row.user_id is not None
        await service.add_member(session=session, class_id=class_id, student_id=row.user_id)
        if row.number or row.action is not Action.ALREADY:
            await service.set_student_number(
                session=session,
                class_id=class_id,
                student_id=row.user_id,
                number=row.number or None,
            )
    return created
