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

from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from app.auth.security import token_digest
from app.classes import service as classes
from app.i18n import N_
from app.lti import claims
from app.lti.launch import LaunchRefused
from app.models import (
    Classroom,
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


async def arrive(*, session: AsyncSession, payload: dict[str, Any], base_url: str) -> Arrival:
    """What a verified launch does: account, class, lesson."""
    teaching = claims.teaches(payload.get(claims.ROLES))
    user = await _account(session=session, payload=payload, teaching=teaching)
    class_id = await _class(session=session, payload=payload, user=user, teaching=teaching)
    lesson_slug = await _lesson(session=session, payload=payload, base_url=base_url)
    return Arrival(user=user, class_id=class_id, lesson_slug=lesson_slug)


async def _account(*, session: AsyncSession, payload: dict[str, Any], teaching: bool) -> User:
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
    if not user.active:
        raise LaunchRefused(N_("This account has been disabled by an administrator here."))
    if teaching and user.role == Role.STUDENT:
        user.role = Role.TEACHER  # an instructor in the course runs its class here
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
    *, session: AsyncSession, payload: dict[str, Any], user: User, teaching: bool
) -> int | None:
    """The course's class: made by the first instructor who launches (who owns it);
    learners join it. A learner who arrives before any instructor joins on a later launch."""
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
        session.add(LtiContext(issuer=issuer, context_id=context_id, class_id=classroom.id))
        await session.flush()
        return classroom.id
    if not teaching:
        joined = await session.get(Classroom, link.class_id)
        if joined is not None:
            # An archived class takes no one; the lesson still opens.
            with contextlib.suppress(classes.JoinRefused):
                await classes.join(session=session, student_id=user.id, code=joined.join_code)
    return link.class_id


async def _lesson(*, session: AsyncSession, payload: dict[str, Any], base_url: str) -> str | None:
    """The lesson the link names: the custom parameter `lesson`, else the target link URI's
    /lessons/<slug> on this site. LaunchRefused if it names one that does not exist."""
    custom = payload.get(claims.CUSTOM)
    slug = custom.get("lesson") if isinstance(custom, dict) else None
    if not slug:
        target = urlsplit(str(payload.get(claims.TARGET_LINK_URI) or ""))
        ours = urlsplit(base_url)
        match = re.fullmatch(r"/lessons/([^/]+)/?", target.path)
        if match and (not target.netloc or target.netloc == ours.netloc):
            slug = match.group(1)
    if not slug:
        return None
    if await classes.live_lesson(session=session, slug=str(slug)) is None:
        raise LaunchRefused(
            N_("The linked lesson %(lesson)s does not exist on this site."), lesson=repr(slug)
        )
    return str(slug)
