"""Interface languages: gettext catalogs (Babel) per request, chosen from `?lang=`, the
`lang` cookie or the browser's Accept-Language, in that order.

Strings in Python that reach users are marked with `gettext` (`_`), which translates into
the language of the request being handled (a context variable, set by `LanguageMiddleware`),
or with `N_` where the string must stay English in one place (the JSON API) and is
translated where it is shown (a page: `_(message)` in the template).
"""

from __future__ import annotations

import gettext as _gettext
import logging
from contextvars import ContextVar
from datetime import UTC, date, datetime
from functools import cache, lru_cache
from http.cookies import SimpleCookie
from io import BytesIO
from pathlib import Path
from urllib.parse import parse_qs

from babel.dates import format_date, format_datetime
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.numbers import format_decimal, format_percent
from babel.support import Translations
from starlette.datastructures import MutableHeaders
from starlette.types import Message, Receive, Scope, Send

from app.asgi import HttpMiddleware

log = logging.getLogger("app.i18n")

TRANSLATIONS_DIR = Path(__file__).parent / "translations"
DOMAIN = "messages"
DEFAULT_LANGUAGE = "en"
# Each language in its own words, for the switcher.
LANGUAGES: dict[str, str] = {"en": "English", "tr": "Türkçe"}
COOKIE = "lang"
COOKIE_MAX_AGE_S = 365 * 24 * 3600

_language: ContextVar[str] = ContextVar("language", default=DEFAULT_LANGUAGE)


def N_(message: str) -> str:
    """Mark a string for the catalogs without translating it here."""
    return message


@cache
def translations(language: str) -> _gettext.NullTranslations:
    """The compiled catalog (`make` builds the .mo files); a missing or stale .mo is
    compiled in memory from the .po, so a fresh checkout works before any build step."""
    if language == DEFAULT_LANGUAGE or language not in LANGUAGES:
        return _gettext.NullTranslations()
    folder = TRANSLATIONS_DIR / language / "LC_MESSAGES"
    po, mo = folder / f"{DOMAIN}.po", folder / f"{DOMAIN}.mo"
    if mo.is_file() and (not po.is_file() or mo.stat().st_mtime >= po.stat().st_mtime):
        with mo.open("rb") as handle:
            return Translations(handle, domain=DOMAIN)
    if not po.is_file():
        log.warning("no catalog for %s in %s; showing English", language, folder)
        return _gettext.NullTranslations()
    with po.open("rb") as handle:
        catalog = read_po(handle, locale=language)
    buffer = BytesIO()
    write_mo(buffer, catalog)
    buffer.seek(0)
    return Translations(buffer, domain=DOMAIN)


def current_language() -> str:
    return _language.get()


def set_language(language: str) -> None:
    _language.set(language if language in LANGUAGES else DEFAULT_LANGUAGE)


def gettext(message: str) -> str:
    return translations(_language.get()).gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    return translations(_language.get()).ngettext(singular, plural, n)


_ = gettext


def parse_accept_language(header: str) -> list[str]:
    """Primary language tags in order of preference (q-values), e.g. 'tr-TR,en;q=0.5'."""
    ranked: list[tuple[float, int, str]] = []
    for index, part in enumerate(header.split(",")):
        tag, _sep, params = part.strip().partition(";")
        tag = tag.strip().lower()
        if not tag:
            continue
        quality = 1.0
        for param in params.split(";"):
            key, _eq, value = param.strip().partition("=")
            if key == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        if quality > 0:
            ranked.append((-quality, index, tag.split("-")[0]))
    return [tag for _q, _i, tag in sorted(ranked)]


def choose_language(query_lang: str | None, cookie: str | None, accept: str | None) -> str:
    for candidate in (query_lang, cookie):
        if candidate and candidate in LANGUAGES:
            return candidate
    for tag in parse_accept_language(accept or ""):
        if tag in LANGUAGES:
            return tag
    return DEFAULT_LANGUAGE


class LanguageMiddleware(HttpMiddleware):
    """Chooses the language of each request, keeps it in `request.state.language` and in the
    context variable `gettext` reads, and remembers an explicit `?lang=` in a cookie."""

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = {
            name.decode("latin-1"): value.decode("latin-1") for name, value in scope["headers"]
        }
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        asked = (query.get("lang") or [None])[0]
        cookies = SimpleCookie()
        try:
            cookies.load(headers.get("cookie", ""))
        except Exception:  # a malformed Cookie header: no preference from it
            cookies = SimpleCookie()
        cookie = cookies[COOKIE].value if COOKIE in cookies else None
        language = choose_language(asked, cookie, headers.get("accept-language"))
        scope.setdefault("state", {})["language"] = language
        token = _language.set(language)
        remember = asked in LANGUAGES and asked != cookie

        async def send_with_language(message: Message) -> None:
            if message["type"] == "http.response.start":
                response_headers = MutableHeaders(scope=message)
                if "text/html" in response_headers.get("content-type", ""):
                    response_headers["Content-Language"] = language
                    response_headers.append("Vary", "Accept-Language, Cookie")
                if remember:
                    response_headers.append(
                        "Set-Cookie",
                        f"{COOKIE}={language}; Path=/; Max-Age={COOKIE_MAX_AGE_S}; SameSite=Lax",
                    )
            await send(message)

        try:
            await self.app(scope, receive, send_with_language)
        finally:
            _language.reset(token)


# Formats of dates and times on pages, in the reader's language (Babel's CLDR data).
_FORMATS = {
    "date": "dd MMM y",
    "long_date": "dd MMMM y",
    "datetime": "dd MMM y HH:mm",
    "time": "dd MMM HH:mm:ss",
    "short_date": "dd MMM",
}


def format_when(value: datetime | None, kind: str = "datetime") -> str:
    if value is None:
        return "—"
    if kind in _DAY_FORMATS:  # a grid of 1,500 cells shows a few dozen distinct days
        return _format_day(value.astimezone(UTC).date(), kind, current_language())
    return format_datetime(value, _FORMATS[kind], tzinfo=UTC, locale=current_language())


_DAY_FORMATS = frozenset({"date", "long_date", "short_date"})


@lru_cache(maxsize=4096)
def _format_day(day: date, kind: str, language: str) -> str:
    return format_date(day, _FORMATS[kind], locale=language)


# Numbers on pages, in the reader's language (the one place they are formatted): a share as
# a whole percentage ("47%", in Turkish "%47"), a count or mean with `digits` decimals
# ("2.0", in Turkish "2,0"). None is a dash, as for dates.
def format_share(value: float | None) -> str:
    if value is None:
        return "—"
    return format_percent(value, locale=current_language())


def format_number(value: float | None, digits: int = 1, fixed: bool = True) -> str:
    """`fixed`: always `digits` decimals ("2.0"); else at most that many ("87.5", "100")."""
    if value is None:
        return "—"
    pattern = "#,##0." + ("0" if fixed else "#") * digits if digits else "#,##0"
    return format_decimal(value, format=pattern, locale=current_language())


# Messages of the JavaScript bundle, handed to it as JSON by base.html. Keys are what the
# code asks for; `{name}` placeholders are filled in by the script.
def js_messages() -> dict[str, str]:
    return {
        "answer_every_part": _("Answer every part first."),
        "answer_restored": _("Your answer from before you logged in is back. Press Check."),
        "correct": _("Correct."),
        "not_quite": _("Not quite."),
        "the_answer": _("The answer:"),
        "distance_in_place": _("{in_place} of {total} lines in place;"),
        "distance_step": _("{count} step away."),
        "distance_steps": _("{count} steps away."),
        "offline": _("Could not reach the server; try again."),
        "queued": _("Queued"),
        "queued_position": _("Queued: number {position} in line"),
        "queued_wait": _("Queued: number {position} in line, about {seconds} s to wait"),
        "retrying_in": _("Many are sending code now; sending yours again in {seconds} s…"),
        "waiting_for_own": _("Waiting for your earlier submission to finish"),
        "running": _("Running…"),
        "running_on": _("Running on {devices}…"),
        "submitting": _("Sending your code…"),
        "step_queued": _("In line"),
        "step_running": _("Running"),
        "step_verdict": _("Verdict"),
        "progress_label": _("Grading progress"),
        "platform_error": _("Not graded (platform error)"),
        "platform_error_note": _(
            "The platform could not grade this; it does not count against you. Try again."
        ),
        "verdict_passed": _("Passed"),
        "verdict_wrong_output": _("Wrong output"),
        "verdict_runtime_error": _("Runtime error"),
        "verdict_timeout": _("Timeout"),
        "verdict_memory_limit": _("Memory limit"),
        "verdict_output_limit": _("Output limit"),
        "verdict_not_graded": _("Not graded: no such device here"),
        "verdict_error": _("Platform error"),
        "passed_all": _("Passed on every device that ran it. Well done!"),
        "ran": _("Ran"),
        "failed_some": _("Not yet: look at the runs below, fix the code and submit again."),
        "hidden_failed": _(
            "Passed the example, failed a hidden check: the grader also runs your code on "
            "inputs you do not see, so compute the output instead of printing what the example "
            "expects."
        ),
        "hidden_count": _("{passed} of {total} hidden checks passed."),
        "hidden_all_passed": _(
            "The hidden checks with other inputs passed too ({passed} of {total})."
        ),
        "expected": _("Expected"),
        "actual": _("Your output"),
        "differs": _("differs"),
        "diff_caption": _("Expected and actual output, side by side; differing lines marked"),
        "no_output": _("(no output)"),
        "error_output": _("Error output"),
        "line_left_out": _("{count} earlier line left out."),
        "lines_left_out": _("{count} earlier lines left out."),
        "output": _("Output"),
        "duration": _("{ms} ms"),
        "exit_code": _("exit code {code}"),
        "timeout_detail": _(
            "stopped after the time limit of {seconds} s; look for a loop that never ends"
        ),
        "history_title": _("Your submissions"),
        "show_more": _("Show {count} more"),
        "try_out_run": _("try-out run, not graded"),
        "show_code": _("Code"),
        "teacher_commented": _("Your teacher commented"),
        "teacher_comment": _("Comment from your teacher"),
        "teacher_wrote": _("Your teacher wrote"),
        "teacher_wrote_name": _("{name}, your teacher, wrote"),
        "output_hint": _("Hint from your teacher on this output"),
        "output_hint_by": _("A hint from {name}, your teacher, on this output"),
        "output_hint_anonymous": _("A hint from your teacher on this output"),
        "solution_title": _("Sample solution"),
        "solution_after_pass": _("You passed: compare your code with the sample solution."),
        "solution_after_give_up": _(
            "You gave up on this one: study the sample solution, then try to write it yourself."
        ),
        "run_title": _("Try-out run on the CPU (not graded)"),
        "run_passed": _("Ran without errors."),
        "run_matches": _(
            "Ran without errors, and the output matches the expected output. Submit it to "
            "have it graded."
        ),
        "run_differs": _("Ran without errors, but the output differs from the expected output."),
        "output_matches": _("Output matches the expected output"),
        "output_differs": _("Output differs from the expected output"),
        "output_unchecked": _("Ran; output not checked"),
        "run_failed": _("The run stopped: {verdict}."),
        "running_cpu": _("Running on the CPU…"),
        "too_many": _("Too many at once; try again in {seconds} s."),
        "too_large": _("The code is too long."),
        "draft_restored": _("Your unsaved draft was restored."),
        "reset_done": _("Starter code restored. Ctrl+Z brings your code back."),
        "editor_help": _(
            "Ctrl+Enter (⌘+Enter on a Mac) submits. Tab indents; press Escape, then Tab, "
            "to leave the editor."
        ),
        "race_steps": _("Steps per number"),
        "race_run": _("Run the race"),
        "race_ticks": _("{ticks} ticks"),
        "race_cpu_wins": _("The CPU wins: {cpu} ticks against {gpu}."),
        "race_gpu_wins": _("The GPU wins: {gpu} ticks against {cpu}."),
        "race_tie": _("A tie: {cpu} ticks each."),
        "race_prompt": _("Predict who finishes first, then press Run the race."),
    }


# Messages made in code that must stay English for the JSON API, shown translated on pages
# (`{{ message | t }}`): listed here so that the catalogs carry them. (A question kind marks
# its own with N_ in its module.)
KNOWN_MESSAGES = (
    N_("Lesson not found."),
    N_("Question not found."),
    N_("Exercise not found."),
    N_("Submission not found."),
    N_("Class not found."),
    N_("Student not found."),
    N_("Assignment not found."),
    N_("Not Found"),
    N_("Method Not Allowed"),
    N_("Only teachers may do this."),
    N_("Log in or send a bearer token."),
    N_("The form has expired or the CSRF token is missing; reload the page and try again."),
    N_("The grading queue is full; try again in a few seconds."),
    N_("Pass the exercise or give up to see the solution."),
)
