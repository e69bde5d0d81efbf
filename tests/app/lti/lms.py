"""An LTI 1.3 platform we did not write, run as a process of its own on loopback for the
tests: the `lti1p3platform` package (its Registration, OIDC login and message launch)
behind a few routes, with its own RSA key. Its FastAPI helpers import pkg_resources, which
this environment lacks, so the two abstract classes are completed here (a redirect, and
the auto-posting form every platform sends).

    python tests/app/lti/lms.py PORT TOOL_BASE_URL CLIENT_ID DEPLOYMENT_ID

GET /start?user=..&role=Learner|Instructor[&lesson=..][&tamper=..] begins a launch (the
platform's side of "a user clicks the link"): a redirect to the tool's login initiation.
Its `lineitem=ID` gives the link a gradebook column (the AGS claim), `exercise=ID` the
custom parameter of a deep-linked exercise, `deep_link=1` makes it an
LtiDeepLinkingRequest; every launch in a course names its roster (the NRPS claim).

LTI Advantage services, each the library's own handling (token requests, score posts,
memberships, deep-linking responses): POST /token, POST /lineitems/ID/scores,
GET /memberships/CONTEXT, POST /deep-link-return. For the tests: GET /scores/ID (the
scores received), GET /deep-links (the content items received), PUT /roster/CONTEXT (the
course's members), PUT /tool-keys (the tool's JWKS, as an administrator pastes it when
the platform cannot reach the tool's JWKS URL).
GET /course?user=..&role=..&lesson=.. is a course page showing that launch in an iframe.
GET /auth is the OIDC authorization endpoint the tool sends the browser to; it answers
the form that posts id_token and state to the tool. `tamper` makes a token the tool must
refuse: bad_signature, wrong_audience, unknown_deployment, expired."""

from __future__ import annotations

import html
import json
import secrets
import sys
import typing as t
from dataclasses import dataclass
from urllib.parse import urlencode

import uvicorn
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse
from lti1p3platform.ltiplatform import LTI1P3PlatformConfAbstract
from lti1p3platform.membership import Context
from lti1p3platform.message_launch import LTIAdvantageMessageLaunchAbstract
from lti1p3platform.oidc_login import OIDCLoginAbstract
from lti1p3platform.registration import Registration
from lti1p3platform.request import Request as LtiRequest
from lti1p3platform.request import TRequest
from lti1p3platform.score import UpdateScoreStatus
from lti1p3platform.service_connector import (
    AssignmentsGradesService,
    NamesRoleProvisioningService,
    TPage,
)

MEMBERSHIP = "http://purl.imsglobal.org/vocab/lis/v2/membership#"
ISSUER_PATH = ""  # the issuer is the platform's own base URL


def _pem_pair() -> tuple[str, str]:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()
    public = (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )
    return private, public


@dataclass
class Launch:
    user: str
    role: str
    lesson: str | None
    tamper: str | None
    context: str
    lineitem: str | None = None
    exercise: str | None = None
    deep_link: bool = False


class TamperingRegistration(Registration):
    """The library's registration; `forged_key` signs with a key the platform does not
    publish, under the kid of the one it does (a forged or corrupted signature)."""

    forged_key: str | None = None

    def platform_encode_and_sign(
        self, payload: dict[str, t.Any], expiration: int | None = None
    ) -> str:
        if self.forged_key is None:
            return super().platform_encode_and_sign(payload, expiration=expiration)
        return Registration.encode_and_sign(
            payload, self.forged_key, {"kid": self.get_kid()}, expiration=expiration
        )


class Platform(LTI1P3PlatformConfAbstract):
    def init_platform_config(self, **kwargs: t.Any) -> None:
        self.registration: TamperingRegistration = kwargs["registration"]

    def get_registration_by_params(self, **kwargs: t.Any) -> Registration:
        return self.registration


class Login(OIDCLoginAbstract):
    def set_lti_message_hint(self, **kwargs: t.Any) -> None:
        self._lti_message_hint = kwargs["hint"]

    def get_redirect(self, url: str) -> RedirectResponse:
        return RedirectResponse(url)


class MessageLaunch(LTIAdvantageMessageLaunchAbstract):
    def get_preflight_response(self) -> dict[str, t.Any]:
        assert isinstance(self._request, dict)
        return self._request

    def render_launch_form(self, launch_data: dict[str, t.Any], **kwargs: t.Any) -> HTMLResponse:
        fields = "".join(
            f'<input type="hidden" name="{name}" value="{html.escape(str(launch_data[name]))}">'
            for name in ("id_token", "state")
        )
        action = html.escape(str(launch_data["launch_url"]))
        return HTMLResponse(
            f'<form method="post" action="{action}" id="launch">{fields}</form>'
            "<script>document.getElementById('launch').submit()</script>"
        )


class ServiceRequest(LtiRequest):
    """A request as the library's services read it."""

    def build_metadata(self, request: t.Any) -> TRequest:
        return t.cast(TRequest, request)


async def service_request(request: Request) -> ServiceRequest:
    body = await request.body()
    return ServiceRequest(
        {
            "method": request.method,
            "form_data": {},
            "get_data": dict(request.query_params),
            "headers": request.headers,
            "content_type": request.headers.get("content-type"),
            "path": request.url.path,
            "json": json.loads(body) if body else None,
        }
    )


class Gradebook(AssignmentsGradesService):
    """Line items made on demand (a platform that keeps its gradebook elsewhere), scores
    kept in the order they arrive."""

    scores: t.ClassVar[dict[str, list[dict[str, t.Any]]]] = {}

    def find_lineitems(self, **kwargs: t.Any) -> TPage:
        return {"content": [], "has_next": False}

    def find_lineitem(self, line_item_id: str) -> t.Any:
        return {"id": line_item_id, "scoreMaximum": 100, "label": line_item_id}

    def create_lineitem(self, creation_data: t.Any) -> t.Any:
        return creation_data

    def update_lineitem(self, update_data: t.Any) -> t.Any:
        return update_data

    def delete_lineitem(self, line_item_id: str) -> None:
        return None

    def update_score(self, line_item_id: str, score: t.Any) -> UpdateScoreStatus:
        self.scores.setdefault(line_item_id, []).append(dict(score))
        return UpdateScoreStatus.SUCCESS

    def get_results(self, line_item_id: str, **kwargs: t.Any) -> TPage:
        return {"content": [], "has_next": False}


class Roster(NamesRoleProvisioningService):
    members: t.ClassVar[dict[str, list[dict[str, t.Any]]]] = {}
    context_id = ""

    def get_member_data_page(self, **kwargs: t.Any) -> TPage:
        return {
            "content": [dict(m) for m in self.members.get(self.context_id, [])],
            "has_next": False,
        }

    def get_context_by_id(self) -> Context:
        return Context(id=self.context_id, label=self.context_id, title=f"Course {self.context_id}")


def answer_of(response: t.Any) -> JSONResponse:
    if response.code == 204 or response.result is None:
        return JSONResponse({"message": response.message}, status_code=response.code)
    return JSONResponse(response.result, status_code=response.code, media_type=response.media_type)


def create_platform(base: str, tool: str, client_id: str, deployment_id: str) -> FastAPI:
    private, public = _pem_pair()
    registration = TamperingRegistration()
    registration.set_iss(base).set_client_id(client_id).set_deployment_id(deployment_id)
    registration.set_oidc_login_url(f"{tool}/lti/login").set_launch_url(f"{tool}/lti/launch")
    registration.set_platform_private_key(private).set_platform_public_key(public)
    registration.set_deeplink_launch_url(f"{tool}/lti/launch")
    registration.set_tool_key_set_url(f"{tool}/lti/jwks.json")
    launches: dict[str, Launch] = {}
    deep_links: list[dict[str, t.Any]] = []
    app = FastAPI()

    @app.put("/tool-keys")
    async def tool_keys(request: Request) -> JSONResponse:
        registration.set_tool_key_set(await request.json())
        return JSONResponse({"ok": True})

    @app.post("/token")
    async def token(request: Request) -> JSONResponse:
        form = {name: str(value) for name, value in (await request.form()).items()}
        platform = Platform(registration=registration)
        platform.get_registration()
        try:
            return JSONResponse(dict(platform.get_access_token(form)))
        except Exception as exc:  # the library raises several kinds for a bad request
            return JSONResponse(
                {"error": "invalid_client", "error_description": str(exc)}, status_code=400
            )

    def gradebook(request: ServiceRequest) -> Gradebook:
        platform = Platform(registration=registration)
        platform.get_registration()
        return Gradebook(request, platform, f"{base}/lineitems")

    @app.post("/lineitems/{line_item_id}/scores")
    async def scores_in(line_item_id: str, request: Request) -> JSONResponse:
        service = gradebook(await service_request(request))
        return answer_of(
            service.handle_resp(service.handle_update_score, line_item_id=line_item_id)
        )

    @app.get("/scores/{line_item_id}")
    async def scores_out(line_item_id: str) -> JSONResponse:
        return JSONResponse(Gradebook.scores.get(line_item_id, []))

    @app.get("/memberships/{context}")
    async def memberships(context: str, request: Request) -> JSONResponse:
        platform = Platform(registration=registration)
        platform.get_registration()
        service = Roster(await service_request(request), platform, f"{base}/memberships/{context}")
        service.context_id = context
        return answer_of(service.handle_resp(service.handle_get_members))

    @app.put("/roster/{context}")
    async def set_roster(context: str, request: Request) -> JSONResponse:
        Roster.members[context] = await request.json()
        return JSONResponse({"ok": True})

    @app.post("/deep-link-return")
    async def deep_link_return(request: Request) -> HTMLResponse:
        form = await request.form()
        platform = Platform(registration=registration)
        platform.get_registration()
        try:
            items = platform.validate_deeplinking_resp({"JWT": str(form.get("JWT", ""))})
        except Exception as exc:
            return HTMLResponse(f"refused: {html.escape(str(exc))}", status_code=400)
        deep_links.extend(items)
        return HTMLResponse(f"<p>{len(items)} activities added</p>")

    @app.get("/deep-links")
    async def received_deep_links() -> JSONResponse:
        return JSONResponse(deep_links)

    @app.get("/jwks")
    async def jwks() -> JSONResponse:
        return JSONResponse({"keys": registration.get_jwks()})

    @app.post("/rotate")
    async def rotate() -> JSONResponse:
        """A new platform key (and kid): tokens from now on are signed with it."""
        new_private, new_public = _pem_pair()
        registration.set_platform_private_key(new_private).set_platform_public_key(new_public)
        return JSONResponse({"kid": registration.get_kid()})

    @app.get("/course")
    async def course(user: str, role: str, lesson: str = "", deep_link: str = "") -> HTMLResponse:
        """A course page with the tool in an iframe, as an LMS shows an activity (or, with
        `deep_link`, its activity picker)."""
        params = {"user": user, "role": role} | ({"lesson": lesson} if lesson else {})
        params |= {"deep_link": "1"} if deep_link else {}
        query = html.escape(urlencode(params))
        return HTMLResponse(
            f'<!doctype html><html lang="en"><title>Course</title><h1>Course</h1>'
            f'<iframe src="/start?{query}" title="Tensorcamp" width="1000" height="700">'
            "</iframe></html>"
        )

    @app.get("/start")
    async def start(
        user: str,
        role: str,
        lesson: str | None = None,
        tamper: str | None = None,
        context: str = "course-1",
        lineitem: str | None = None,
        exercise: str | None = None,
        deep_link: bool = False,
    ) -> RedirectResponse:
        hint = secrets.token_urlsafe(8)
        launches[hint] = Launch(user, role, lesson, tamper, context, lineitem, exercise, deep_link)
        login = Login(None, Platform(registration=registration))
        login.set_lti_message_hint(hint=hint)
        if lesson:
            login.set_launch_url(f"{tool}/lessons/{lesson}")
        redirect: RedirectResponse = login.initiate_login(user)
        return redirect

    @app.get("/auth")
    async def auth(request: Request) -> HTMLResponse:
        params = dict(request.query_params)
        found = launches.pop(params.get("lti_message_hint", ""), None)
        if found is None or params.get("login_hint") != found.user:
            return HTMLResponse("unknown launch", status_code=400)
        launch = MessageLaunch(params, Platform(registration=registration))
        launch.set_user_data(
            found.user,
            [MEMBERSHIP + found.role],
            full_name=f"User {found.user}",
            preferred_username=found.user,
        )
        launch.set_resource_link_claim(f"link-{found.lesson or 'home'}", title="Lesson")
        launch.set_launch_context_claim(
            found.context, context_title=f"Course {found.context}", context_label=found.context
        )
        if found.lesson:
            launch.set_launch_url(f"{tool}/lessons/{found.lesson}")
        if found.lineitem:
            launch.set_ags(f"{base}/lineitems", f"{base}/lineitems/{found.lineitem}")
        if found.exercise:
            launch.set_custom_parameters_claim({"exercise": found.exercise})
        launch.set_nrps(f"{base}/memberships/{found.context}")
        if found.deep_link:
            launch.set_dl(
                f"{base}/deep-link-return",
                title="Add an activity",
                accept_types={"ltiResourceLink"},
                extra_data={"course": found.context},
            )
        tampered = {
            "wrong_audience": {"aud": "someone-else", "azp": "someone-else"},
            "unknown_deployment": {
                "https://purl.imsglobal.org/spec/lti/claim/deployment_id": "not-registered"
            },
        }.get(found.tamper or "")
        if tampered:
            launch.set_extra_claims(tampered)
        if found.tamper == "expired":
            launch.set_id_token_expiration(-600)
        registration.forged_key = _pem_pair()[0] if found.tamper == "bad_signature" else None
        try:
            response: HTMLResponse = launch.lti_launch()
        finally:
            registration.forged_key = None
        return response

    return app


if __name__ == "__main__":
    port, tool, client_id, deployment_id = sys.argv[1:5]
    base = f"http://127.0.0.1:{port}"
    uvicorn.run(
        create_platform(base, tool, client_id, deployment_id),
        host="127.0.0.1",
        port=int(port),
        log_level="warning",
    )
