"""The first administrator, in a real browser: the setup token in the server's log makes an
account the administrator, who then makes a teacher; the token is spent. axe audits every
page. A server of this module's own: another module's tests may have an administrator made
on theirs already (`create_teacher`)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from tests.browser.conftest import VisitorFactory, serving, sign_up_here, unique
from tests.processes import Web


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Web]:
    yield from serving(tmp_path_factory, workers=1)


def test_the_first_administrator_comes_from_the_setup_token(
    visitor_factory: VisitorFactory, server: Web
) -> None:
    log = server.log.read_text(errors="replace")
    found = re.search(r"setup token to become the administrator: ([A-Z0-9-]+)", log)
    assert found, "no setup token in the server's log"
    # The announcement names this server's own address (`serve --port` is the port it names).
    assert f"log in at {server.url}/setup and enter this one-time setup token" in log

    v = visitor_factory("en")
    page = v.go("/setup")
    v.audit("setup-visitor")
    page.locator("main").get_by_role("link", name="Sign up").click()
    admin = unique("admin")
    sign_up_here(v, admin)
    page.wait_for_url(v.base + "/setup")
    v.audit("setup")
    page.fill("#setup-token", found.group(1).lower())
    page.locator("main form button[type=submit]").click()
    page.wait_for_url(v.base + "/admin")
    assert "administrator" in page.locator("main .alert").inner_text()
    nav = page.locator('header nav[aria-label="Main"]')
    assert nav.get_by_role("link", name="Administration").count() == 1
    v.audit("admin")

    teacher = unique("teach")
    page.fill("#teacher-username", teacher)
    page.fill("#teacher-password", "a long teacher secret")
    page.locator("form[action='/admin/teachers'] button[type=submit]").click()
    page.wait_for_url(v.base + "/admin")
    assert teacher in page.locator("table.staff").inner_text()
    v.shot("admin")

    # The token is spent: the page says there is an administrator.
    other = visitor_factory("en")
    page = other.go("/setup")
    assert "has an administrator already" in page.locator("main").inner_text()
