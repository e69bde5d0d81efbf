"""Inbound text must be valid Unicode. JSON may spell a lone surrogate ("\\ud800" is valid
JSON), and a multipart form may declare a charset (unicode_escape, utf-7) that decodes to one.
Such a string cannot be encoded as UTF-8: storing it, or echoing it in an error, fails. So
every request's JSON body and form fields are looked at once, before any endpoint or schema
sees them, and a lone surrogate anywhere (a value, a key, however deeply nested) is a 422
naming the field, like any other invalid field."""

from __future__ import annotations

from typing import Any

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from starlette.datastructures import UploadFile

FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")
BODYLESS_METHODS = {"GET", "HEAD", "OPTIONS"}

Loc = tuple[str | int, ...]


async def refuse_invalid_text(request: Request) -> None:
    """An app-wide dependency: 422 if the JSON body or a form field holds text that cannot be
    encoded as UTF-8. It reads what FastAPI reads (the request caches the parsed body)."""
    if request.method in BODYLESS_METHODS:
        return
    content_type = request.headers.get("content-type", "")
    if content_type.startswith(FORM_TYPES):
        form = await request.form()
        for name, value in form.multi_items():
            text = (value.filename or "") if isinstance(value, UploadFile) else value
            if not _encodable(name):
                _refuse(("body", _escaped(name)), name, "a field name")
            if not _encodable(text):
                _refuse(("body", name), text, "this field")
        return
    if not _parsed_as_json(content_type) or not await request.body():
        return
    try:
        data = await request.json()
    except (ValueError, RecursionError):
        return  # not JSON: the endpoint's own validation answers (or ignores the body)
    found = unencodable(data)
    if found is not None:
        loc, text, what = found
        _refuse(("body", *loc), text, what)


def unencodable(value: Any) -> tuple[Loc, str, str] | None:
    """The first string in decoded JSON (a value or a key) that cannot be encoded as UTF-8:
    its location, the string, and whether it is "this field" or "a key". Iterative, so
    that no nesting the JSON decoder accepted can exhaust the stack here."""
    # Each entry: a value and its trail (key, parent trail): no path is copied per value.
    stack: list[tuple[Any, tuple[Any, ...]]] = [(value, ())]
    while stack:
        item, trail = stack.pop()
        if isinstance(item, str):
            if not _encodable(item):
                return _loc(trail), item, "this field"
        elif isinstance(item, list):
            stack.extend(
                (child, (index, trail)) for index, child in reversed(list(enumerate(item)))
            )
        elif isinstance(item, dict):
            for key in item:
                if not _encodable(key):
                    return (*_loc(trail), _escaped(key)), key, "a key"
            stack.extend((child, (key, trail)) for key, child in reversed(item.items()))
    return None


def _parsed_as_json(content_type: str) -> bool:
    """Whether FastAPI decodes a body of this type as JSON: no type, or application/json or
    application/*+json."""
    media = content_type.split(";", 1)[0].strip().lower()
    if not media:
        return True
    maintype, _, subtype = media.partition("/")
    return maintype == "application" and (subtype == "json" or subtype.endswith("+json"))


def _encodable(text: str) -> bool:
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _escaped(text: str) -> str:
    """`text` with each lone surrogate written as its escape, e.g. "\\ud800"."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _loc(trail: tuple[Any, ...]) -> Loc:
    keys: list[str | int] = []
    while trail:
        key, trail = trail
        keys.append(key)
    return tuple(reversed(keys))


def _refuse(loc: Loc, text: str, what: str) -> None:
    surrogate = next(char for char in text if "\ud800" <= char <= "\udfff")
    raise RequestValidationError(
        [
            {
                "type": "string_unicode",
                "loc": loc,
                "msg": f"Text must be valid Unicode: {what} holds a lone surrogate "
                f"(\\u{ord(surrogate):04x}), which cannot be encoded as UTF-8.",
            }
        ]
    )
