"""LTI 1.3: the learning platforms (LMSs) registered with this tool, the tool's own signing
keys, logins in flight, and the LMS users and courses linked to accounts and classes.

An LMS user is known by issuer + subject (the LTI spec makes `sub` unique per issuer), an
LMS course by issuer + context id. LTI Advantage adds the platforms' gradebook columns
(line items) the tool sends scores to, and the outbox of scores not yet delivered."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Float, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.models.base import Base, utcnow

URL_LENGTH = 1000


class LtiPlatform(Base):
    __tablename__ = "lti_platforms"
    __table_args__ = (UniqueConstraint("issuer", "client_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    issuer: Mapped[str] = mapped_column(String(255))
    client_id: Mapped[str] = mapped_column(String(255))
    auth_url: Mapped[str] = mapped_column(String(URL_LENGTH))
    token_url: Mapped[str] = mapped_column(String(URL_LENGTH))
    jwks_url: Mapped[str] = mapped_column(String(URL_LENGTH))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class LtiDeployment(Base):
    """A deployment of the tool in the platform: launches naming another are refused."""

    __tablename__ = "lti_deployments"
    __table_args__ = (UniqueConstraint("platform_id", "deployment_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    platform_id: Mapped[int] = mapped_column(ForeignKey("lti_platforms.id", ondelete="CASCADE"))
    deployment_id: Mapped[str] = mapped_column(String(255))


class LtiToolKey(Base):
    """The tool's RSA key pair, published (public half) at /lti/jwks.json. The newest
    unretired key signs; a retired key stays published for a while after a rotation."""

    __tablename__ = "lti_tool_keys"

    id: Mapped[int] = mapped_column(primary_key=True)
    kid: Mapped[str] = mapped_column(String(64), unique=True)
    private_jwk: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    retired_at: Mapped[datetime | None] = mapped_column(default=None)


class LtiLogin(Base):
    """An OIDC login in flight: its state (hashed) and nonce, used once, before expiry."""

    __tablename__ = "lti_logins"

    id: Mapped[int] = mapped_column(primary_key=True)
    state_hash: Mapped[str] = mapped_column(String(64), unique=True)
    nonce: Mapped[str] = mapped_column(String(64))
    platform_id: Mapped[int] = mapped_column(ForeignKey("lti_platforms.id", ondelete="CASCADE"))
    expires_at: Mapped[datetime] = mapped_column(index=True)


class LtiAccount(Base):
    __tablename__ = "lti_accounts"
    __table_args__ = (UniqueConstraint("issuer", "subject"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    issuer: Mapped[str] = mapped_column(String(255))
    subject: Mapped[str] = mapped_column(String(255))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class LtiContext(Base):
    """An LMS course, as the class its instructors own and its learners join."""

    __tablename__ = "lti_contexts"
    __table_args__ = (UniqueConstraint("issuer", "context_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    issuer: Mapped[str] = mapped_column(String(255))
    context_id: Mapped[str] = mapped_column(String(255))
    class_id: Mapped[int] = mapped_column(ForeignKey("classes.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    # Names and Role Provisioning Services: the platform whose launch named the roster URL.
    platform_id: Mapped[int | None] = mapped_column(
        ForeignKey("lti_platforms.id", ondelete="SET NULL"), default=None
    )
    memberships_url: Mapped[str | None] = mapped_column(String(URL_LENGTH), default=None)
    roster_synced_at: Mapped[datetime | None] = mapped_column(default=None)


class LtiLineItem(Base):
    """A column of a platform's gradebook (its AGS line item URL), for a lesson or for one
    exercise of it (`exercise_id`), learnt from launches whose link carries it."""

    __tablename__ = "lti_line_items"
    __table_args__ = (UniqueConstraint("platform_id", "url"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    platform_id: Mapped[int] = mapped_column(ForeignKey("lti_platforms.id", ondelete="CASCADE"))
    url: Mapped[str] = mapped_column(String(URL_LENGTH))
    lesson_slug: Mapped[str] = mapped_column(String(80), index=True)
    exercise_id: Mapped[str | None] = mapped_column(String(80), default=None)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class LtiLineItemLearner(Base):
    """A user who launched through a link with this line item: their scores go to it."""

    __tablename__ = "lti_line_item_learners"
    __table_args__ = (UniqueConstraint("line_item_id", "user_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    line_item_id: Mapped[int] = mapped_column(ForeignKey("lti_line_items.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    subject: Mapped[str] = mapped_column(String(255))


class LtiScore(Base):
    """The outbox: a score for a line item, written in the same transaction as the progress
    that made it, and delivered afterwards (app/lti/outbox.py), oldest first, until the
    platform takes it. `sent_at` set: delivered; `failed_at` set: the platform refused it
    for good (the reason in `last_error`)."""

    __tablename__ = "lti_scores"

    id: Mapped[int] = mapped_column(primary_key=True)
    line_item_id: Mapped[int] = mapped_column(
        ForeignKey("lti_line_items.id", ondelete="CASCADE"), index=True
    )
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    subject: Mapped[str] = mapped_column(String(255))
    score_given: Mapped[float] = mapped_column(Float)
    activity_progress: Mapped[str] = mapped_column(String(20))
    grading_progress: Mapped[str] = mapped_column(String(20))
    timestamp: Mapped[datetime]
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_attempt_at: Mapped[datetime] = mapped_column(default=utcnow)
    claimed_until: Mapped[datetime | None] = mapped_column(default=None)
    sent_at: Mapped[datetime | None] = mapped_column(default=None, index=True)
    failed_at: Mapped[datetime | None] = mapped_column(default=None)
    last_error: Mapped[str | None] = mapped_column(String(300), default=None)
