"""Jinja2 set-up shared by every domain's pages, with the i18n extension: templates call
`_("...")`, `ngettext(...)` or `{% trans %}`, translated into the request's language.

The helpers a domain's templates call (a verdict's label, a run's detail) are the domain's
own; the app factory hands them over with `add_globals` (app/main.py), so this module
imports no domain."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import urlencode

import jinja2
from fastapi import Request
from fastapi.templating import Jinja2Templates
from markupsafe import Markup, escape
from starlette.responses import HTMLResponse

from app import i18n
from app.config import REPO_ROOT
from app.i18n import N_
from app.web.csrf import CSRF_FIELD, csrf_token
from app.web.flash import take_flash

env = jinja2.Environment(
    loader=jinja2.FileSystemLoader(REPO_ROOT / "app" / "templates"),
    autoescape=True,
    extensions=["jinja2.ext.i18n"],
)
templates = Jinja2Templates(env=env)
env.policies["ext.i18n.trimmed"] = True
# The callables read the language of the request being rendered (a context variable), so
# concurrent requests in other languages never see each other's catalog.
env.install_gettext_callables(  # type: ignore[attr-defined]
    gettext=i18n.gettext, ngettext=i18n.ngettext, newstyle=True
)
env.globals["csrf_field"] = CSRF_FIELD
# Where a request's Content-Security-Policy style nonce is kept (request.state): made by
# SecurityHeaders (app/middleware.py), handed to the page here.
CSP_NONCE = "csp_nonce"
_CODE_SPAN = re.compile(r"`([^`]+)`")


def code_spans(text: str) -> Markup:
    """A plain-text title whose code is written `like this` (app.classes.answers.plain keeps
    a prompt's inline code so) as HTML: escaped, each span in <code>."""
    return Markup(_CODE_SPAN.sub(r"<code>\1</code>", str(escape(text))))


@jinja2.pass_context
def url_for(context: dict[str, Any], name: str, /, **params: Any) -> str:
    """A route's path, where Starlette's `url_for` makes an absolute URL from the request's
    Host header (which the client chooses)."""
    request: Request = context["request"]
    return request.scope.get("root_path", "") + str(request.app.url_path_for(name, **params))


env.globals["url_for"] = url_for
# A page that shows the message a form left for it (app/web/flash.py) takes it so.
env.globals["take_flash"] = take_flash
env.globals["languages"] = i18n.LANGUAGES
LEVEL_NAMES = {
    "beginner": N_("Beginner"),
    "intermediate": N_("Intermediate"),
    "advanced": N_("Advanced"),
}
env.filters["level_name"] = lambda level: i18n.gettext(LEVEL_NAMES.get(level, level.title()))
env.filters["when"] = i18n.format_when
env.filters["share"] = i18n.format_share  # 0.47 -> "47%" ("%47" in Turkish)
env.filters["number"] = i18n.format_number  # 2 -> "2.0" ("2,0"); number(0) for integers
env.filters["code_spans"] = code_spans  # `code` in a plain-text title shown as code
# Translate a message made elsewhere (an error's detail); unknown messages stay as they are.
env.filters["t"] = i18n.gettext


def add_globals(helpers: Mapping[str, Callable[..., Any]]) -> None:
    """Make a domain's template helpers callable by name in every template. Adding the same
    helper again (another app in the same process) changes nothing; another helper under a
    name taken is a mistake, refused."""
    for name, helper in helpers.items():
        if env.globals.setdefault(name, helper) is not helper:
            raise ValueError(f"template global {name!r} is taken")


def language_links(request: Request) -> list[dict[str, Any]]:
    """The switcher's links: the same page in each language, without its query (which
    could carry anything a crafted link put there); a page answering a form post cannot be
    fetched again, so those link to the home page."""
    path = request.url.path if request.method == "GET" else "/"
    return [
        {"code": code, "name": name, "url": f"{path}?{urlencode({'lang': code})}"}
        for code, name in i18n.LANGUAGES.items()
    ]


def render(
    request: Request,
    name: str,
    context: dict[str, Any] | None = None,
    *,
    status_code: int = 200,
) -> HTMLResponse:
    context = dict(context or {})
    language = getattr(request.state, "language", None) or i18n.DEFAULT_LANGUAGE
    i18n.set_language(language)
    context.setdefault("user", getattr(request.state, "user", None))
    context["csrf_token"] = csrf_token(request)
    # The Content-Security-Policy's style nonce for this answer (app/middleware.py).
    context["csp_nonce"] = getattr(request.state, CSP_NONCE, "")
    context["lang"] = language
    context["language_links"] = language_links(request)
    context["js_messages"] = i18n.js_messages()
    return templates.TemplateResponse(request, name, context, status_code=status_code)
