"""LTI rules: registering platforms, starting an OIDC login, and what a valid launch does
(the LMS user signed in as an account keyed by issuer + subject; the course as a class its
instructors own and its learners join; the linked lesson found)."""

from __future__ import annotations

import contextlib
import hashlib
import re
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlencode, urlsplit

import httpx
from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from app.auth.security import token_digest
from app.classes import service as classes
from app.db import insert_for
from app.i18n import N_
from app.lessons import catalog
from app.lessons.catalog import is_live
from app.lti import claims, grades, roster
from app.lti.launch import LaunchRefused
from app.lti.tokens import ServiceError
from app.models import (
    ClassMember,
    Classroom,
    ClassTeacher,
    Exercise,
    LtiAccount,
    LtiContext,
    LtiDeployment,
    LtiLogin,
    LtiPlatform,
    Role,
    User,
)

LOGIN_EXPIRES = timedelta(minutes=10)
# Never a valid Argon2 hash: an account made by a launch has no password to log in with.
NO_PASSWORD = "!lti"
CLASS_NAME_MAX = 100


class PlatformExists(Exception):
    pass


@dataclass
class PlatformRow:
    platform: LtiPlatform
    deployment_ids: list[str]


async def add_platform(
    *,
    session: AsyncSession,
    issuer: str,
    client_id: str,
    deployment_ids: list[str],
    auth_url: str,
    token_url: str,
    jwks_url: str,
) -> LtiPlatform:
    platform = LtiPlatform(
        issuer=issuer,
        client_id=client_id,
        auth_url=auth_url,
        token_url=token_url,
        jwks_url=jwks_url,
    )
    session.add(platform)
    try:
        async with session.begin_nested():
            await session.flush()
    except IntegrityError as exc:
        raise PlatformExists(f"{issuer} with client id {client_id}") from exc
    for deployment_id in dict.fromkeys(deployment_ids):
        session.add(LtiDeployment(platform_id=platform.id, deployment_id=deployment_id))
    await session.flush()
    return platform


async def list_platforms(*, session: AsyncSession) -> list[PlatformRow]:
    platforms = await session.scalars(select(LtiPlatform).order_by(LtiPlatform.id))
    rows = {
        platform.id: PlatformRow(platform=platform, deployment_ids=[]) for platform in platforms
    }
    deployments = await session.execute(
        select(LtiDeployment.platform_id, LtiDeployment.deployment_id).order_by(LtiDeployment.id)
    )
    for platform_id, deployment_id in deployments:
        rows[platform_id].deployment_ids.append(deployment_id)
    return list(rows.values())


async def remove_platform(*, session: AsyncSession, issuer: str, client_id: str) -> bool:
    """Remove a registration (its deployments and logins in flight go with it; accounts
    and classes made by launches stay)."""
    platform_id = await session.scalar(
        select(LtiPlatform.id).where(
            LtiPlatform.issuer == issuer, LtiPlatform.client_id == client_id
        )
    )
    if platform_id is None:
        return False
    await session.execute(delete(LtiDeployment).where(LtiDeployment.platform_id == platform_id))
    await session.execute(delete(LtiLogin).where(LtiLogin.platform_id == platform_id))
    await session.execute(delete(LtiPlatform).where(LtiPlatform.id == platform_id))
    return True


async def start_login(
    *,
    session: AsyncSession,
    params: dict[str, str],
    redirect_uri: str,
    now: datetime,
) -> str:
    """The platform's authorization URL to send the browser to, for a third-party
    initiated login; a fresh state and nonce are stored for the launch to use once."""
    issuer, login_hint = params.get("iss", ""), params.get("login_hint", "")
    if not issuer or not login_hint:
        missing = "iss" if not issuer else "login_hint"
        raise LaunchRefused(
            N_("The login request has no %(field)s; start it from your course."), field=missing
        )
    query = select(LtiPlatform).where(LtiPlatform.issuer == issuer)
    if client_id := params.get("client_id"):
        query = query.where(LtiPlatform.client_id == client_id)
    platforms = list(await session.scalars(query.limit(2)))
    if not platforms:
        raise LaunchRefused(
            N_("No platform %(issuer)s with client id %(client_id)s is registered with this tool.")
            if client_id
            else N_("No platform %(issuer)s is registered with this tool."),
            issuer=repr(issuer),
            client_id=repr(client_id),
        )
    if len(platforms) > 1:
        raise LaunchRefused(
            N_("Several registrations of %(issuer)s exist; the login must name its client_id."),
            issuer=repr(issuer),
        )
    platform = platforms[0]
    await session.execute(delete(LtiLogin).where(LtiLogin.expires_at <= now))
    state, nonce = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
    session.add(
        LtiLogin(
            state_hash=token_digest(state),
            nonce=nonce,
            platform_id=platform.id,
            expires_at=now + LOGIN_EXPIRES,
        )
    )
    await session.flush()
    request: dict[str, str] = {
        "scope": "openid",
        "response_type": "id_token",
        "response_mode": "form_post",
        "prompt": "none",
        "client_id": platform.client_id,
        "redirect_uri": redirect_uri,
        "login_hint": login_hint,
        "state": state,
        "nonce": nonce,
    }
    if message_hint := params.get("lti_message_hint"):
        request["lti_message_hint"] = message_hint
    separator = "&" if urlsplit(platform.auth_url).query else "?"
    return f"{platform.auth_url}{separator}{urlencode(request)}"


@dataclass
class Arrival:
    """Who a launch signed in, the class of its course (if any) and where to go."""

    user: User
    class_id: int | None
    lesson_slug: str | None
    exercise_id: str | None = None

    @property
    def target(self) -> str:
        if self.lesson_slug is None:
            return "/"
        anchor = f"#exercise-{self.exercise_id}" if self.exercise_id else ""
        return f"/lessons/{self.lesson_slug}{anchor}"


async def arrive(
    *, session: AsyncSession, payload: dict[str, Any], base_url: str, platform_id: int
) -> Arrival:
    """What a verified launch does: account, class, lesson; and the line item the link
    sends scores to, if it has one (app/lti/grades.py)."""
    teaching = claims.teaches(payload.get(claims.ROLES))
    user = await _account(session=session, payload=payload, teaching=teaching)
    class_id = await _class(
        session=session, payload=payload, user=user, teaching=teaching, platform_id=platform_id
    )
    if payload.get(claims.MESSAGE_TYPE) == claims.DEEP_LINKING_REQUEST:
        return Arrival(user=user, class_id=class_id, lesson_slug=None)
    lesson_slug, exercise_id = await _lesson(session=session, payload=payload, base_url=base_url)
    if not teaching:
        await grades.learnt_from_launch(
            session=session,
            payload=payload,
            platform_id=platform_id,
            user_id=user.id,
            lesson_slug=lesson_slug,
            exercise_id=exercise_id,
        )
    return Arrival(user=user, class_id=class_id, lesson_slug=lesson_slug, exercise_id=exercise_id)


async def _account(*, session: AsyncSession, payload: dict[str, Any], teaching: bool) -> User:
    user = await _linked_user(session=session, payload=payload, teaching=teaching)
    if not user.active:
        raise LaunchRefused(N_("This account has been disabled by an administrator here."))
    if teaching and user.role == Role.STUDENT:
        user.role = Role.TEACHER  # an instructor in the course runs its class here
        await session.flush()
    return user


async def _linked_user(*, session: AsyncSession, payload: dict[str, Any], teaching: bool) -> User:
    """The account of the LMS user `payload` names (iss, sub, names), made if new."""
    issuer, subject = str(payload["iss"]), str(payload["sub"])
    user = await session.scalar(
        select(User)
        .join(LtiAccount, LtiAccount.user_id == User.id)
        .where(LtiAccount.issuer == issuer, LtiAccount.subject == subject)
    )
    if user is None:
        user = User(
            username=await _free_username(session=session, payload=payload),
            password_hash=NO_PASSWORD,
            role=Role.TEACHER if teaching else Role.STUDENT,
        )
        session.add(user)
        await session.flush()
        session.add(LtiAccount(issuer=issuer, subject=subject, user_id=user.id))
        await session.flush()
    return user


async def _free_username(*, session: AsyncSession, payload: dict[str, Any]) -> str:
    """A readable username from the LMS's name for the user, made unique by a short
    fingerprint of issuer + subject (usernames: a-z, 0-9, _ . -; at most 32)."""
    wanted = str(payload.get("preferred_username") or payload.get("name") or "learner")
    stem = re.sub(r"[^a-z0-9_.-]+", "-", wanted.lower()).strip("-.")[:20] or "learner"
    digest = hashlib.sha256(f"{payload['iss']}\n{payload['sub']}".encode()).hexdigest()
    for length in (6, 10, 11):
        name = f"{stem}-{digest[:length]}"
        if await session.scalar(select(User.id).where(User.username == name)) is None:
            return name
    return f"lti-{secrets.token_hex(8)}"


async def _class(
    *,
    session: AsyncSession,
    payload: dict[str, Any],
    user: User,
    teaching: bool,
    platform_id: int,
) -> int | None:
    """The course's class: made by the first instructor who launches (who owns it), run
    by every instructor who launches it (co-teachers); learners join it. A learner who
    arrives before any instructor joins on a later launch."""
    context = payload.get(claims.CONTEXT)
    if not isinstance(context, dict) or not context.get("id"):
        return None
    issuer, context_id = str(payload["iss"]), str(context["id"])
    link = await session.scalar(
        select(LtiContext).where(LtiContext.issuer == issuer, LtiContext.context_id == context_id)
    )
    if link is None:
        if not teaching:
            return None
        title = str(context.get("title") or context.get("label") or "Course")
        classroom = await classes.create_class(
            session=session, teacher_id=user.id, name=title[:CLASS_NAME_MAX]
        )
        link = LtiContext(issuer=issuer, context_id=context_id, class_id=classroom.id)
        session.add(link)
        roster.learnt_from_launch(link=link, payload=payload, platform_id=platform_id)
        await session.flush()
        return classroom.id
    roster.learnt_from_launch(link=link, payload=payload, platform_id=platform_id)
    joined = await session.get(Classroom, link.class_id)
    if teaching:
        if joined is not None and joined.teacher_id != user.id:
            # The course's other instructors run its class beside the first one.
            await session.execute(
                insert_for(session)(ClassTeacher)
                .values(class_id=joined.id, teacher_id=user.id)
                .on_conflict_do_nothing(index_elements=["class_id", "teacher_id"])
            )
    elif joined is not None:
        # An archived class takes no one; the lesson still opens.
        with contextlib.suppress(classes.JoinRefused):
            await classes.join(session=session, student_id=user.id, code=joined.join_code)
    return link.class_id


async def _lesson(
    *, session: AsyncSession, payload: dict[str, Any], base_url: str
) -> tuple[str | None, str | None]:
    """The lesson the link names, and the exercise if it names one: the custom parameter
    `exercise` (its lesson), else `lesson`, else the target link URI's /lessons/<slug> on
    this site. LaunchRefused if it names one that does not exist."""
    custom = payload.get(claims.CUSTOM)
    custom = custom if isinstance(custom, dict) else {}
    if exercise_id := custom.get("exercise"):
        lesson_slug = await session.scalar(
            select(Exercise.lesson_slug).where(Exercise.id == str(exercise_id), is_live(Exercise))
        )
        if lesson_slug is None:
            raise LaunchRefused(
                N_("The linked exercise %(exercise)s does not exist on this site."),
                exercise=repr(exercise_id),
            )
        return lesson_slug, str(exercise_id)
    slug = custom.get("lesson")
    if not slug:
        target = urlsplit(str(payload.get(claims.TARGET_LINK_URI) or ""))
        ours = urlsplit(base_url)
        match = re.fullmatch(r"/lessons/([^/]+)/?", target.path)
        if match and (not target.netloc or target.netloc == ours.netloc):
            slug = match.group(1)
    if not slug:
        return None, None
    if await catalog.live_lesson(session=session, slug=str(slug)) is None:
        raise LaunchRefused(
            N_("The linked lesson %(lesson)s does not exist on this site."), lesson=repr(slug)
        )
    return str(slug), None


ROSTER_SYNC_EVERY = timedelta(hours=24)


class RosterUnavailable(LaunchRefused):
    """The class has no roster at the platform, or the platform did not give it now (a
    reason in words, as a LaunchRefused's)."""


async def sync_roster(
    *, session: AsyncSession, class_id: int, client: httpx.AsyncClient, now: datetime
) -> int:
    """The learners of the course's roster (Names and Role Provisioning Services) as
    students of its class, accounts made for those who have not launched yet. Learners the
    teacher removed from the class stay removed; no one is removed by a sync. Returns how
    many joined."""
    link = await session.scalar(select(LtiContext).where(LtiContext.class_id == class_id))
    platform = (
        await session.get(LtiPlatform, link.platform_id)
        if link is not None and link.platform_id is not None
        else None
    )
    if link is None or platform is None or not link.memberships_url:
        raise RosterUnavailable(
            N_("This class has no roster to sync: an instructor launches it from the course first.")
        )
    classroom = await session.get_one(Classroom, class_id)
    try:
        members = await roster.members(
            session=session, platform=platform, url=link.memberships_url, client=client
        )
    except ServiceError as exc:
        raise RosterUnavailable(
            N_("The platform did not give the roster: %(reason)s."), reason=str(exc)
        ) from exc
    joined = 0
    for member in members:
        if member.teaching or not member.active:
            continue
        user = await _linked_user(
            session=session,
            payload={"iss": platform.issuer, "sub": member.user_id, "name": member.name},
            teaching=False,
        )
        if not user.active or user.role != Role.STUDENT:
            continue
        before = await session.scalar(
            select(ClassMember).where(
                ClassMember.class_id == class_id, ClassMember.student_id == user.id
            )
        )
        if before is not None:
            continue  # in the class already, or removed by the teacher
        with contextlib.suppress(classes.JoinRefused):
            await classes.join(session=session, student_id=user.id, code=classroom.join_code)
            joined += 1
    link.roster_synced_at = now
    await session.flush()
    return joined


@dataclass
class RosterState:
    synced_at: datetime | None


async def roster_state(*, session: AsyncSession, class_id: int) -> RosterState | None:
    """For the class page: None unless the class has a roster at an LMS to sync."""
    link = await session.scalar(
        select(LtiContext).where(
            LtiContext.class_id == class_id, LtiContext.memberships_url.is_not(None)
        )
    )
    return RosterState(synced_at=link.roster_synced_at) if link is not None else None


async def rosters_due(*, session: AsyncSession, now: datetime) -> list[int]:
    """Classes whose course roster was never synced, or not for ROSTER_SYNC_EVERY."""
    return list(
        await session.scalars(
            select(LtiContext.class_id)
            .where(
                LtiContext.memberships_url.is_not(None),
                LtiContext.platform_id.is_not(None),
                (LtiContext.roster_synced_at.is_(None))
                | (LtiContext.roster_synced_at <= now - ROSTER_SYNC_EVERY),
            )
            .order_by(LtiContext.id)
        )
    )
