"""Absolute addresses of this site, made from PUBLIC_BASE_URL and never from a request's Host
header, which the client chooses (a link built from it could point anywhere)."""

from __future__ import annotations

from fastapi import Request
from starlette.types import Scope

from app.config import Settings


def public_url(request: Request, path: str, query: str = "") -> str:
    """The absolute URL of `path` as the app's routes see it, e.g. `/join/ABC123`."""
    settings: Settings = request.app.state.settings
    url = settings.effective_public_base_url + path
    return f"{url}?{query}" if query else url


def route_path(scope: Scope) -> str:
    """The request's path as the app's routes see it: without the prefix a proxy mounts the
    app under (the root path, which PUBLIC_BASE_URL holds)."""
    path: str = scope["path"]
    root: str = scope.get("root_path", "")
    return path[len(root) :] if root and path.startswith(root + "/") else path
