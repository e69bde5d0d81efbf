"""Errors of the HTML forms, in one voice: each names its field and the rule that was broken,
once (the help text under a field gives way to its error), in the page's language. A form
never fails with the generic error page: its fields take any text (the body size limit bounds
it) and the page answers with the form again, as it was typed (never a password)."""

from __future__ import annotations

from pydantic_core import ErrorDetails

from app.i18n import N_, gettext

FILL_IN = N_("%(field)s: fill this in.")
AT_LEAST = N_("%(field)s: use at least %(min)s characters (this has %(count)s).")
AT_MOST = N_("%(field)s: use at most %(max)s characters (this has %(count)s).")
NOT_VALID = N_("%(field)s: this value is not valid.")


def length_error(
    label: str, text: str, *, min_length: int = 1, max_length: int | None = None
) -> str | None:
    """Why `text` is refused for its length, or None. `label`: the field as the form names it
    (translated)."""
    count = len(text)
    if not text.strip():
        return gettext(FILL_IN) % {"field": label}
    if count < min_length:
        return gettext(AT_LEAST) % {"field": label, "min": min_length, "count": count}
    if max_length is not None and count > max_length:
        return gettext(AT_MOST) % {"field": label, "max": max_length, "count": count}
    return None


def describe(label: str, error: ErrorDetails) -> str:
    """A pydantic error of one field as a sentence (length rules; anything else is "not
    valid": a schema's own wording comes from its custom error, which callers show)."""
    given = error.get("input")
    text = given if isinstance(given, str) else ""
    ctx = error.get("ctx") or {}
    found = length_error(
        label,
        text,
        min_length=int(ctx.get("min_length", 1)),
        max_length=int(ctx["max_length"]) if "max_length" in ctx else None,
    )
    return found or gettext(NOT_VALID) % {"field": label}
