"""Jinja2 set-up shared by every domain's pages, with the i18n extension: templates call
`_("...")`, `ngettext(...)` or `{% trans %}`, translated into the request's language."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlencode

import jinja2
from fastapi import Request
from fastapi.templating import Jinja2Templates
from markupsafe import Markup, escape
from starlette.responses import HTMLResponse

from app import i18n
from app.auth.dependencies import CSRF_FIELD, csrf_token
from app.config import REPO_ROOT
from app.i18n import N_
from app.lessons import workbench
from app.middleware import CSP_NONCE
from app.submissions import diff, present

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
env.globals["verdict_label"] = workbench.verdict_label
env.globals["run_label"] = workbench.run_label
env.globals["try_out_matches"] = workbench.try_out_matches
env.globals["try_out_label"] = workbench.try_out_label
env.globals["comparison_rows"] = diff.rows_for
env.globals["trim_lines"] = workbench.trim_lines
env.globals["hidden_checks"] = workbench.hidden_checks
env.globals["run_detail"] = present.run_detail
env.globals["shows_exit_code"] = present.shows_exit_code


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
