"""The session cookie of a session an LTI launch started is sent inside the platform's
iframe too: SameSite=None instead of Lax. Browsers take SameSite=None only with Secure,
so this applies only where the cookie is Secure (COOKIE_SECURE, served over HTTPS); every
other session keeps SameSite=Lax. Requests in such a session are still guarded by the
CSRF token (app/web/csrf.py require_csrf), which does not depend on SameSite."""

from __future__ import annotations

from starlette.datastructures import MutableHeaders
from starlette.types import Message, Receive, Scope, Send

from app.asgi import HttpMiddleware
from app.web.credentials import SESSION_COOKIE

LTI_SESSION = "lti"  # set in the session by a launch (app/lti/pages.py)


class LtiSessionCookie(HttpMiddleware):
    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:

        async def send_with_cookie(message: Message) -> None:
            if message["type"] == "http.response.start" and scope.get("session", {}).get(
                LTI_SESSION
            ):
                headers = MutableHeaders(scope=message)
                cookies = headers.getlist("set-cookie")
                if any(cookie.startswith(f"{SESSION_COOKIE}=") for cookie in cookies):
                    del headers["set-cookie"]
                    for cookie in cookies:
                        headers.append("set-cookie", cross_site(cookie))
            await send(message)

        await self.app(scope, receive, send_with_cookie)


def cross_site(cookie: str) -> str:
    """The session cookie as SameSite=None, if it is Secure; any other cookie as it is."""
    parts = [part.strip() for part in cookie.split(";")]
    if not parts[0].startswith(f"{SESSION_COOKIE}=") or "secure" not in {
        part.lower() for part in parts
    }:
        return cookie
    kept = [part for part in parts if not part.lower().startswith("samesite=")]
    return "; ".join([*kept, "samesite=none"])
