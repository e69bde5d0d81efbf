"""Pages of submission lists: newest first, `limit` at a time, the next page below an id.

The next page's address comes in the `Link` header (RFC 8288, `rel="next"`); the last page
has none. Ids only grow, so a page never repeats or skips a submission made meanwhile."""

from __future__ import annotations

from typing import Annotated

from fastapi import Query, Request, Response

from app.ids import id_query
from app.models import Submission
from app.urls import public_url, route_path

DEFAULT_LIMIT = 20
MAX_LIMIT = 100

Limit = Annotated[int, Query(ge=1, le=MAX_LIMIT, description="Submissions per page (at most 100).")]
Before = Annotated[
    int | None, id_query("Only submissions with a smaller id: the next page's cursor")
]


def one_page(
    rows: list[Submission], *, limit: int, request: Request, response: Response
) -> list[Submission]:
    """`rows` were read with `limit + 1`: keep `limit` of them and, when there was one more,
    point the `Link` header at the page that starts after the last one kept."""
    page = rows[:limit]
    if len(rows) > limit:
        query = request.url.include_query_params(limit=limit, before=page[-1].id).query
        url = public_url(request, route_path(request.scope), query)
        response.headers["Link"] = f'<{url}>; rel="next"'
    return page
