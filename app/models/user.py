from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, ForeignKey, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from app.models.base import Base, state_column_type, utcnow
from app.models.states import Role


class User(Base):
    __tablename__ = "users"

    id: Mapped[int] = mapped_column(primary_key=True)
    username: Mapped[str] = mapped_column(String(32), unique=True)
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


class LoginFailure(Base):
    """A failed log-in, kept for a while to throttle password guessing (app/auth/throttle.py)."""

    __tablename__ = "login_failures"
    __table_args__ = (
        Index("ix_login_failures_username_at", "username", "created_at"),
        Index("ix_login_failures_client_at", "client", "created_at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    username: Mapped[str] = mapped_column(String(64))
    client: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
