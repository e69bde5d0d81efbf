"""A long program sent through the plain HTML form (no JavaScript) is never lost: refused, it
comes back in the editor with the reason; taken, it is the editor's code after the redirect.
Before, a refused form kept the code in the session cookie, and browsers drop cookies over
~4 KB: the code and the reason were silently gone."""

from __future__ import annotations

from typing import Any

from tests.browser.conftest import PASSWORD, unique
from tests.processes import Web

EXERCISE = "gpu-support-device-independent"


def program(kib: int) -> str:
    """Valid Python of about `kib` KiB: the solution's idea, then comment lines."""
    head = (
        'import torch\ndevice = "cuda" if torch.cuda.is_available() else "cpu"\n'
        "print(torch.ones(2).to(device).sum().item())\n"
    )
    filler = "# " + "x" * 76 + "\n"
    return head + filler * ((kib * 1024 - len(head)) // len(filler))


def sign_up_without_scripts(browser: Any, server: Web) -> Any:
    context = browser.new_context(java_script_enabled=False, base_url=server.url)
    context.set_default_timeout(30_000)
    page = context.new_page()
    page.goto(server.url + "/signup")
    page.fill("#username", unique("draft"))
    page.fill("#password", PASSWORD)
    page.locator("main form button[type=submit]").click()
    page.wait_for_url(server.url + "/")
    return page


def submit(page: Any, code: str) -> Any:
    form = page.locator(f'form[action="/exercises/{EXERCISE}/submissions"]')
    form.locator("textarea").fill(code)
    with page.expect_navigation() as navigation:
        form.locator("button.submit").click()
    return navigation.value


def test_a_refused_long_program_comes_back_with_the_reason(browser: Any, server: Web) -> None:
    page = sign_up_without_scripts(browser, server)
    page.goto(server.url + "/lessons/gpu-support")
    code = program(70)  # over the 64 KiB a submission may have
    response = submit(page, code)
    assert response.status == 413
    editor = page.locator(f"#code-{EXERCISE}")
    assert editor.input_value() == code
    assert "64 KiB" in page.locator(f"#exercise-{EXERCISE} .alert.error").inner_text()
    cookies = page.context.cookies()
    assert all(len(cookie["value"]) < 1024 for cookie in cookies), cookies
    page.context.close()


def test_a_taken_long_program_is_in_the_editor_after_the_redirect(
    browser: Any, server: Web
) -> None:
    page = sign_up_without_scripts(browser, server)
    page.goto(server.url + "/lessons/gpu-support")
    code = program(60)
    response = submit(page, code)
    assert response.status == 200 and "/lessons/gpu-support" in page.url
    assert page.locator(f"#code-{EXERCISE}").input_value() == code
    page.context.close()
