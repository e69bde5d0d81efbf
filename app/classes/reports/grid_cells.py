"""The progress grid's cells as HTML, written in Python rather than by the template.

A compact grid of 500 students by 15 lessons has 7,500 cells; through Jinja each one cost
about forty escaped expressions and filter calls, most of the page's time. Here a page's
words are translated once (the state words, the marks, each plural count once), numbers
and fixed markup need no escaping, and only what a cell holds that could carry markup (the
lesson's slug, translated words and formatted dates) goes through `escape`. The markup is
the template's as it was (app/templates/classes/grid.html): the same classes, hidden labels
and, in the compact density, the same tooltip.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime
from typing import TypeVar

from markupsafe import Markup, escape

from app.classes.due import STATE_LABELS, STATE_SYMBOLS
from app.classes.reports.grid import Cell
from app.i18n import format_when, gettext, ngettext

K = TypeVar("K")


class CellWriter:
    """Writes the cells of one grid page: made per request, in the reader's language."""

    def __init__(self, *, class_id: int, compact: bool) -> None:
        self.compact = compact
        self.base = f"/classes/{class_id}/students/"
        self.words = {state: str(escape(gettext(label))) for state, label in STATE_LABELS.items()}
        self.symbols = {state: str(escape(symbol)) for state, symbol in STATE_SYMBOLS.items()}
        # Translations are markup, as a template's _() takes them.
        self.q_mark = gettext("q")
        self.e_mark = gettext("e")
        self._late: dict[float, str] = {}
        self._gave_up: dict[int, str] = {}
        self._requested: dict[int, str] = {}
        self._days: dict[datetime, str] = {}

    def __call__(self, student_id: int, cell: Cell) -> Markup:
        state = cell.state
        word = self.words[state]
        day = self.day(cell.last_activity_at) if cell.last_activity_at else ""
        late = None if cell.late_by_hours is None else self.late_by(cell.late_by_hours)
        extended = self.day(cell.extended_to) if cell.extended_to else ""
        details = [f"{cell.attempts}×"]
        if day:
            details.append(f" · {day}")
        if cell.exercises_given_up:
            details.append(self.gave_up(cell.exercises_given_up))
        if cell.answers_requested:
            details.append(self.requested(cell.answers_requested))
        if late is not None:
            details.append(f'<br><span class="late-by">{late}</span>')
        if extended:
            words = Markup(gettext("extended to %(date)s")) % {"date": Markup(extended)}
            details.append(
                f'<br><span class="extended"><span aria-hidden="true">⏱</span> {words}</span>'
            )
        title = ""
        if self.compact:
            tip = [f"{word} · {cell.attempts}×"]
            if day:
                tip.append(f" · {day}")
            if cell.exercises_given_up:
                tip.append(f" · ⚑{cell.exercises_given_up}")
            if late is not None:
                tip.append(f" · {late}")
            if extended:
                tip.append(f" · ⏱ {extended}")
            title = f' title="{"".join(tip)}"'
        slug = escape(cell.lesson_slug)
        return Markup(
            f'<td class="c s-{state}"><a href="{self.base}{student_id}/lessons/{slug}"{title}>'
            f'<b aria-hidden="true">{self.symbols[state]}</b>'
            f'<span class="visually-hidden">{word}:</span> '
            f"{cell.questions_correct}/{cell.questions_total}{self.q_mark} "
            f"{cell.exercises_passed}/{cell.exercises_total}{self.e_mark}"
            f"{'' if self.compact else '<br>'}"
            f'<small class="cell-details">{"".join(details)}</small></a></td>'
        )

    def row(self, student_id: int, cells: Iterable[Cell]) -> Markup:
        """A row's cells at once (one call from the template, not one a cell)."""
        return Markup("".join([self(student_id, cell) for cell in cells]))

    def day(self, when: datetime) -> str:
        found = self._days.get(when)
        if found is None:
            found = self._days[when] = str(escape(format_when(when, "short_date")))
        return found

    def late_by(self, hours: float) -> str:
        """As the late_by macro of app/templates/classes/_macros.html says it."""
        return _cached(self._late, hours, _late_words)

    def gave_up(self, n: int) -> str:
        return _cached(
            self._gave_up,
            n,
            lambda n: (
                ' · <span class="gave-up" aria-hidden="true">⚑'
                f'{n}</span><span class="visually-hidden">'
                + _plural("gave up on %(num)d exercise", "gave up on %(num)d exercises", n)
                + "</span>"
            ),
        )

    def requested(self, n: int) -> str:
        return _cached(
            self._requested,
            n,
            lambda n: (
                ' · <span class="answer-requested" aria-hidden="true">⚐'
                f'{n}</span><span class="visually-hidden">'
                + _plural(
                    "asked for the answer of %(num)d question",
                    "asked for the answers of %(num)d questions",
                    n,
                )
                + "</span>"
            ),
        )


def _cached(cache: dict[K, str], key: K, make: Callable[[K], str]) -> str:
    found = cache.get(key)
    if found is None:
        found = cache[key] = make(key)
    return found


def _plural(singular: str, plural: str, n: int) -> str:
    """As a template's ngettext: the translation is markup, the number is put in."""
    return str(Markup(ngettext(singular, plural, n)) % {"num": n})


def _late_words(hours: float) -> str:
    if hours >= 24:
        return _plural("%(num)d d late", "%(num)d d late", int(hours // 24))
    if hours >= 1:
        return _plural("%(num)d h late", "%(num)d h late", int(hours))
    return str(Markup(gettext("under 1 h late")))
