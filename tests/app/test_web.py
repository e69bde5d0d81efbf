"""The page layer every domain shares (app/web): flash messages in one shape, shown once; the
log-in address; template helpers handed over by the domains."""

from typing import Any

import pytest
from starlette.requests import Request

from app.web.flash import flash, take_flash
from app.web.login import login_url
from app.web.templating import add_globals, env


def _request(session: dict[str, Any] | None = None) -> Request:
    return Request({"type": "http", "method": "GET", "path": "/", "session": session or {}})


def test_a_flash_message_is_shown_once_in_one_shape() -> None:
    request = _request()
    flash(request, "Class renamed.")
    assert take_flash(request) == {
        "kind": "success",
        "message": "Class renamed.",
        "undo": "",
        "about": "",
    }
    assert take_flash(request) is None
    flash(request, "Not an answer.", kind="error", about="q-1")
    shown = take_flash(request)
    assert shown is not None and (shown["kind"], shown["about"]) == ("error", "q-1")


def test_a_message_in_a_shape_this_version_does_not_write_is_dropped() -> None:
    """A session cookie from before (the administrator's page kept a bare string)."""
    request = _request({"flash": "Platform registered."})
    assert take_flash(request) is None
    assert "flash" not in request.session


def test_the_log_in_address_carries_the_page_and_its_query_encoded() -> None:
    assert login_url("/classes/3/progress?q=a b&page=2") == (
        "/login?next=/classes/3/progress%3Fq%3Da%20b%26page%3D2"
    )


def test_a_template_helper_name_is_given_once() -> None:
    def helper() -> str:
        return ""

    def other() -> str:
        return ""

    name = "test_web_helper"
    try:
        add_globals({name: helper})
        add_globals({name: helper})  # the same helper again (another app): nothing changes
        with pytest.raises(ValueError, match=name):
            add_globals({name: other})
        assert env.globals[name] is helper
    finally:
        env.globals.pop(name, None)
