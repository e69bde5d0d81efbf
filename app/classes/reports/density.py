"""The progress grid's density, remembered per teacher's browser in a cookie.

"comfortable" (two-line cells: counts, then attempts, last activity and lateness; 100
students a page) or "compact" (one-line cells, the rest in each cell's tooltip and hidden
label; every student of the class on one page), so a class of 120 fits a laptop screen.
A choice made with `?density=` is remembered; without one, the cookie's stands.
"""

from __future__ import annotations

from typing import Literal

from starlette.responses import Response

Density = Literal["comfortable", "compact"]
DENSITIES: tuple[Density, ...] = ("comfortable", "compact")
COOKIE = "grid_density"
COOKIE_PATH = "/classes"
COOKIE_MAX_AGE_S = 365 * 24 * 3600


def chosen(asked: str, cookie: str | None) -> Density:
    """The density asked for in the query, else the remembered one, else comfortable."""
    for candidate in (asked, cookie):
        for density in DENSITIES:
            if candidate == density:
                return density
    return "comfortable"


def remember(response: Response, asked: str, density: Density, cookie: str | None) -> None:
    """Keep an explicit choice (a query's `density`) for the teacher's next visits."""
    if asked == density and cookie != density:
        response.set_cookie(
            COOKIE,
            density,
            max_age=COOKIE_MAX_AGE_S,
            path=COOKIE_PATH,
            httponly=True,
            samesite="lax",
        )
