"""The browser's side of an LTI 1.3 launch: the OIDC login the platform starts (GET or
POST /lti/login) and the launch it posts back (POST /lti/launch). Neither takes the CSRF
token: they arrive from the platform's site, and carry a single-use state and a signed
id_token instead (app/lti/launch.py)."""

from __future__ import annotations

import logging
from typing import Any
from urllib.parse import urlsplit

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response
from sqlalchemy.ext.asyncio import AsyncSession

from app.auth import sessions
from app.auth.arrival import safe_next
from app.auth.dependencies import log_in
from app.classes import service as classes
from app.db import SessionDep
from app.i18n import DEFAULT_LANGUAGE, N_, gettext
from app.lessons import catalog
from app.lti import claims, deep_linking, handoff, launch, service
from app.lti.cookies import LTI_SESSION
from app.lti.keys import platform_keys
from app.middleware import content_security_policy
from app.models import Exercise, Lesson, LtiPlatform, utcnow
from app.web.templating import render

log = logging.getLogger("app")
router = APIRouter(include_in_schema=False)


def _refused(request: Request, refusal: launch.LaunchRefused) -> Response:
    log.info("LTI launch refused: %s", refusal)  # the reason only: never a token
    reason = gettext(refusal.message)
    if refusal.fields:
        reason %= refusal.fields
    return render(request, "lti/refused.html", {"reason": reason}, status_code=400)


async def _params(request: Request) -> dict[str, str]:
    values = dict(request.query_params)
    if request.method == "POST":
        form = await request.form()
        values |= {name: value for name, value in form.items() if isinstance(value, str)}
    return values


@router.api_route("/lti/login", methods=["GET", "POST"])
async def login(request: Request, session: SessionDep) -> Response:
    settings = request.app.state.settings
    try:
        url = await service.start_login(
            session=session,
            params=await _params(request),
            redirect_uri=f"{settings.effective_public_base_url}/lti/launch",
            now=utcnow(),
        )
    except launch.LaunchRefused as exc:
        return _refused(request, exc)
    return RedirectResponse(url, status_code=302)


@router.post("/lti/launch")
async def launch_page(request: Request, session: SessionDep) -> Response:
    params = await _params(request)
    if "error" in params:  # the platform answered the login with an OAuth error
        refusal = launch.LaunchRefused(
            N_("The platform refused the login: %(error)s."), error=params["error"][:200]
        )
        return _refused(request, refusal)
    id_token, state = params.get("id_token", ""), params.get("state", "")
    if not id_token or not state:
        return _refused(
            request, launch.LaunchRefused(N_("The launch has no id_token or no state."))
        )
    settings = request.app.state.settings
    try:
        login = await launch.take_login(session=session, state=state, now=utcnow())
        payload = await launch.verified_claims(
            session=session, id_token=id_token, login=login, keys=platform_keys
        )
        arrival = await service.arrive(
            session=session,
            payload=payload,
            base_url=settings.effective_public_base_url,
            platform_id=login.platform_id,
        )
        if payload.get(claims.MESSAGE_TYPE) == claims.DEEP_LINKING_REQUEST:
            return await _picker(request, session, payload, login.platform_id)
    except launch.LaunchRefused as exc:
        return _refused(request, exc)
    key = await sessions.start_session(
        session=session, user=arrival.user, max_age_s=settings.session_max_age_s
    )
    log_in(request, arrival.user, key)
    request.session[LTI_SESSION] = True
    target = arrival.target
    if request.headers.get("sec-fetch-dest") != "iframe":
        return RedirectResponse(target, status_code=303)
    # In a frame the cookie may not have been kept: the page finds out, and goes on to the
    # lesson or offers a new window (app/lti/handoff.py, app/static/lti.js).
    token = handoff.make(
        request, user_id=arrival.user.id, version=arrival.user.session_version, key=key, to=target
    )
    return render(request, "lti/arrived.html", {"target": target, "handoff": token})


@router.post("/lti/continue")
async def continue_in_window(request: Request, session: SessionDep) -> Response:
    """A new window's first page: the session of the launch, bound to this window's cookie."""
    params = await _params(request)
    fields = handoff.read(request, params.get("handoff", ""))
    user = None
    if fields is not None:
        user = await sessions.session_user(
            session=session,
            user_id=fields["uid"],
            version=fields["sv"],
            key=fields["sid"],
            max_age_s=request.app.state.settings.session_max_age_s,
            now=utcnow(),
        )
    if fields is None or user is None:
        refusal = launch.LaunchRefused(
            N_("The new window came too late; open the activity again from your course.")
        )
        return _refused(request, refusal)
    log_in(request, user, fields["sid"])
    request.session[LTI_SESSION] = True
    return RedirectResponse(safe_next(fields["to"]), status_code=303)


async def _picker(
    request: Request,
    session: AsyncSession,
    payload: dict[str, Any],
    platform_id: int,
) -> Response:
    """A deep-linking request: the catalog to pick from (instructors only). The page is
    the launch's answer itself, so it works in the platform's iframe without a cookie."""
    if not claims.teaches(payload.get(claims.ROLES)):
        raise launch.LaunchRefused(N_("Only an instructor of the course can add activities."))
    picking = deep_linking.picking_of(payload, platform_id=platform_id)
    if picking is None:
        raise launch.LaunchRefused(
            N_("The platform's deep-linking request has no return URL, or takes no LTI links.")
        )
    lessons = (await session.scalars(catalog.live(Lesson))).all()
    _questions, exercises = await classes.live_items(
        session=session, slugs=[lesson.slug for lesson in lessons]
    )
    by_lesson: dict[str, list[Exercise]] = {}
    for exercise in exercises:
        by_lesson.setdefault(exercise.lesson_slug, []).append(exercise)
    return render(
        request,
        "lti/pick.html",
        {
            "lessons": lessons,
            "exercises": by_lesson,
            "picking": deep_linking.seal(request, picking),
            "multiple": picking.accept_multiple,
        },
    )


@router.post("/lti/deep-link")
async def deep_link(request: Request, session: SessionDep) -> Response:
    """The teacher's choice, sent back to the platform as a signed LtiDeepLinkingResponse
    in a form that posts itself to the platform's return URL."""
    form = await request.form()
    picking = deep_linking.unseal(request, str(form.get("picking", "")))
    platform = await session.get(LtiPlatform, picking.platform_id) if picking is not None else None
    if picking is None or platform is None:
        refusal = launch.LaunchRefused(
            N_("The choice came too late; add the activity again from your course.")
        )
        return _refused(request, refusal)
    chosen = [value for value in form.getlist("item") if isinstance(value, str)]
    if not picking.accept_multiple:
        chosen = chosen[:1]
    settings = request.app.state.settings
    language = getattr(request.state, "language", None) or DEFAULT_LANGUAGE
    items = []
    for value in chosen:
        kind, _, name = value.partition(":")
        exercise = (
            await catalog.live_exercise(session=session, exercise_id=name)
            if kind == "exercise"
            else None
        )
        slug = exercise.lesson_slug if exercise is not None else name
        lesson = await catalog.live_lesson(session=session, slug=slug)
        if lesson is None or (kind == "exercise" and exercise is None):
            continue
        items.append(
            deep_linking.content_item(
                base_url=settings.effective_public_base_url,
                lesson=lesson,
                exercise=exercise,
                language=language,
            )
        )
    token = await deep_linking.response_jwt(
        session=session, platform=platform, picking=picking, items=items
    )
    answer = render(
        request,
        "lti/deep_link_return.html",
        {"return_url": picking.return_url, "jwt": token, "count": len(items)},
    )
    # The one form on this site that posts elsewhere: to the platform that asked.
    origin = "{0.scheme}://{0.netloc}".format(urlsplit(picking.return_url))
    answer.headers["content-security-policy"] = content_security_policy(settings).replace(
        "form-action 'self'", f"form-action 'self' {origin}"
    )
    return answer
