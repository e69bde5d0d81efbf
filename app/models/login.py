"""Browser sessions and successful log-ins: what app/auth keeps to end sessions and to
throttle log-ins across processes."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from sqlalchemy import ForeignKey, Index, String
from sqlalchemy.orm import Mapped, declared_attr, mapped_column

from app.models.base import Base, utcnow


class LoginSession(Base):
    """One browser's log-in. The cookie carries a random key whose digest is stored here:
    logging out deletes the row, so a copy of the cookie stops working too."""

    __tablename__ = "login_sessions"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    key_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class LoginAttempt:
    """A log-in tried with a username from a client's address, at a time: what
    app/auth/throttle.py counts, per username and per address, over a recent while (each
    table indexed for both)."""

    if TYPE_CHECKING:
        __tablename__: str

    id: Mapped[int] = mapped_column(primary_key=True)
    username: Mapped[str] = mapped_column(String(64))
    client: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    @declared_attr.directive
    def __table_args__(cls) -> tuple[Index, ...]:
        table = cls.__tablename__
        return (
            Index(f"ix_{table}_username_at", "username", "created_at"),
            Index(f"ix_{table}_client_at", "client", "created_at"),
        )


class LoginSuccess(LoginAttempt, Base):
    """A successful log-in, kept for a minute to cap log-ins (each an Argon2 hash) per user
    and per address."""

    __tablename__ = "login_successes"
