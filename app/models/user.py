from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import BigInteger, ForeignKey, String
from sqlalchemy.engine.default import DefaultExecutionContext
from sqlalchemy.orm import Mapped, mapped_column

from app.models.base import Base, state_column_type, utcnow
from app.models.login import LoginAttempt
from app.models.states import Role

DISPLAY_NAME_MAX = 80
EMAIL_MAX = 254


def _named_after_username(context: DefaultExecutionContext) -> str:
    """An account made without a display name is shown by its username."""
    try:
        return str(context.get_current_parameters()["username"])
    except KeyError:
        # A multi-row VALUES insert of the entity (insert(User).values([...])): SQLAlchemy
        # looks its row's values up under the table's name ("users.username_m0") and misses
        # them; the statement's own names are "username_m0", "username_m1", ...
        raw = context.get_current_parameters(isolate_multiinsert_groups=False)
        column: Any = context.current_column
        row = column.index + 1 if getattr(column, "_is_multiparam_column", False) else 0
        return str(raw[f"username_m{row}"])


class User(Base):
    __tablename__ = "users"

    id: Mapped[int] = mapped_column(primary_key=True)
    username: Mapped[str] = mapped_column(String(32), unique=True)
    # The name people see (any script, "Şükrü Öztürk"); the username stays the log-in.
    display_name: Mapped[str] = mapped_column(
        String(DISPLAY_NAME_MAX), default=_named_after_username, server_default=""
    )
    # Only accounts a teacher's roster import made by e-mail carry one (lowercase): a second
    # import of the same list finds them instead of making them again.
    email: Mapped[str | None] = mapped_column(
        String(EMAIL_MAX), index=True, unique=True, default=None
    )
    password_hash: Mapped[str] = mapped_column(String(255))
    role: Mapped[Role] = mapped_column(state_column_type(Role, 16), default=Role.STUDENT)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    # Bytes this user's submissions keep stored (code, and each run's stdout, stderr and
    # diff), kept up to date in the transactions that store or cut them, so /metrics
    # never sums the submissions table.
    stored_bytes: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    # A disabled account cannot log in, and its sessions and tokens stop working.
    active: Mapped[bool] = mapped_column(default=True, server_default="1")
    # Signed into every session cookie and checked on each request: bumping it (log out
    # everywhere, a new password, a new role, disabling) ends every session at once.
    session_version: Mapped[int] = mapped_column(default=0, server_default="0")


class ApiToken(Base):
    __tablename__ = "api_tokens"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    name: Mapped[str] = mapped_column(String(100), default="", server_default="")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    # Always set by the app; nullable only because SQLite cannot add a NOT NULL column
    # without a default (the migration gives older tokens one).
    expires_at: Mapped[datetime | None]
    # Updated at most every few minutes (app/auth/tokens.py), so reads stay reads.
    last_used_at: Mapped[datetime | None]


class LoginFailure(LoginAttempt, Base):
    """A failed log-in, kept for a while to throttle password guessing (app/auth/throttle.py)."""

    __tablename__ = "login_failures"


class PasswordLink(Base):
    """A one-time set-password link: how an account a teacher's roster import made gets its
    first password (app/auth/password_links.py). Only the link token's digest is kept."""

    __tablename__ = "password_links"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    expires_at: Mapped[datetime]
    # Set when the link is used: a link works once.
    used_at: Mapped[datetime | None] = mapped_column(default=None)
