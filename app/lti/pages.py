"""The browser's side of an LTI 1.3 launch: the OIDC login the platform starts (GET or
POST /lti/login) and the launch it posts back (POST /lti/launch). Neither takes the CSRF
token: they arrive from the platform's site, and carry a single-use state and a signed
id_token instead (app/lti/launch.py)."""

from __future__ import annotations

import logging

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response

from app.auth import sessions
from app.auth.arrival import safe_next
from app.auth.dependencies import log_in
from app.db import SessionDep
from app.i18n import N_, gettext
from app.lti import handoff, launch, service
from app.lti.cookies import LTI_SESSION
from app.lti.keys import platform_keys
from app.models import utcnow
from app.templating import render

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
            session=session, payload=payload, base_url=settings.effective_public_base_url
        )
    except launch.LaunchRefused as exc:
        return _refused(request, exc)
    key = await sessions.start_session(
        session=session, user=arrival.user, max_age_s=settings.session_max_age_s
    )
    log_in(request, arrival.user, key)
    request.session[LTI_SESSION] = True
    target = f"/lessons/{arrival.lesson_slug}" if arrival.lesson_slug else "/"
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
