"""Ordering (Parsons) questions: put given lines of code into an order that works.

Some lines may not belong (distractors); with `indent: true` each line's indentation counts
too. Several orders can be right: each line comes after the lines it `depends` on, and an
answer is graded against that dependency graph, as PrairieLearn's order blocks are. A wrong
answer is told how far it is from the nearest right order (`distance`)."""

from __future__ import annotations

import heapq
from collections.abc import Mapping, Sequence
from graphlib import CycleError, TopologicalSorter
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, RootModel, StrictInt, StrictStr, field_validator
from starlette.datastructures import FormData

from app.i18n import N_
from app.quizzes.kinds.base import (
    AnswerView,
    ContentProblem,
    Distance,
    EmptyPart,
    Feedback,
    InvalidAnswer,
    QuestionKind,
    QuestionOut,
    QuestionSource,
    SourceModel,
    stable_digest,
)

MAX_LINES = 40
MAX_INDENT = 4
INDENT = "    "
# Shuffles tried until the lines are shown in an order that is not right (see `build`).
SHUFFLES = 50
LineId = Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9_-]{0,39}$")]

TAKES = N_(
    'This question takes a list of {"id", "indent"} objects: the lines of your program, in order.'
)
AT_LEAST_ONE = N_("Put at least one line in your program.")
UNKNOWN_LINE = N_("Every id must be one of the question's lines.")
LINE_TWICE = N_("A line is used twice.")
BAD_POSITION = N_("Choose a place for each line you use, or leave it out.")
SAME_POSITION = N_("Two lines have the same place; give each line its own.")
BAD_INDENT = N_("Indents run from 0 to 4.")


class Line(SourceModel):
    """One line as written. `depends` left out: the line comes after the line written before
    it (the order written is the only right one); `depends: []`: after no line in
    particular."""

    id: LineId
    code: str = Field(min_length=1)
    depends: list[LineId] | None = None
    indent: int = Field(default=0, ge=0, le=MAX_INDENT)
    distractor: bool = False


class Ordering(QuestionSource):
    kind: Literal["ordering"]
    lines: list[Line] = Field(min_length=2, max_length=MAX_LINES)
    # Whether the student sets each line's indentation and it is graded; if not, lines are
    # shown indented as written.
    indent: bool = False

    @field_validator("lines")
    @classmethod
    def _check_lines(cls, lines: list[Line]) -> list[Line]:
        ids = [line.id for line in lines]
        for values, what in ((ids, "id"), ([line.code for line in lines], "code")):
            twice = sorted({value for value in values if values.count(value) > 1})
            if twice:
                raise ValueError(f"every line needs its own {what}; used twice: {twice}")
        distractors = {line.id for line in lines if line.distractor}
        if len(lines) - len(distractors) < 2:
            raise ValueError("a right program needs at least two lines that are not distractors")
        for line in lines:
            if line.distractor and line.depends:
                raise ValueError(f"line {line.id!r} is a distractor: it depends on nothing")
            for other in line.depends or ():
                if other not in ids:
                    raise ValueError(f"line {line.id!r} depends on {other!r}, which is no line")
                if other in distractors:
                    raise ValueError(f"line {line.id!r} depends on {other!r}, a distractor")
                if other == line.id:
                    raise ValueError(f"line {line.id!r} depends on itself")
        try:
            tuple(TopologicalSorter(dependencies(lines)).static_order())
        except CycleError as exc:
            circle = " → ".join(exc.args[1])
            raise ValueError(f"lines depend on each other in a circle: {circle}") from None
        return lines


def dependencies(lines: Sequence[Line]) -> dict[str, list[str]]:
    """Each line of a right program (by its written id) -> the lines it must come after."""
    found: dict[str, list[str]] = {}
    previous: list[str] = []
    for line in lines:
        if line.distractor:
            continue
        found[line.id] = list(line.depends) if line.depends is not None else previous
        previous = [line.id]
    return found


class OrderLine(BaseModel):
    id: str
    code: str
    # The indentation shown, when the student does not set it (`indent: false`).
    indent: int | None


class OrderingPublic(BaseModel):
    lines: list[OrderLine]
    indent: bool

    @property
    def levels(self) -> range:
        """The indent levels a student may choose."""
        return range(MAX_INDENT + 1)

    def shown_indent(self, line_id: str) -> int:
        return next((line.indent or 0 for line in self.lines if line.id == line_id), 0)

    def placed(self, answer: Arrangement | None) -> dict[str, tuple[int, int]]:
        """Line id -> (position from 1, indent) in an answer, for the form's selects."""
        if answer is None:
            return {}
        return {p.id: (number, p.indent) for number, p in enumerate(answer.root, 1)}


class OrderingKey(BaseModel):
    # Every line of a right program (public id) -> the lines it must come after.
    depends: dict[str, list[str]]
    indents: dict[str, int]
    # One right order: the order written, where the dependencies allow it.
    order: list[str]
    indent: bool


class Placed(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: StrictStr
    indent: StrictInt = 0


class Arrangement(RootModel[list[Placed]]):
    """The lines of the student's program, in order, each with its indent level."""


class OrderingOut(QuestionOut):
    kind: Literal["ordering"] = "ordering"
    lines: list[OrderLine]
    indent: bool


def _public_id(question_id: str, line_id: str) -> str:
    """A function of the question and the line's written id alone: the same in every
    language, and kept when other lines are edited."""
    return "b" + stable_digest(question_id, line_id)[:8]


def _shuffled(question_id: str, ids: list[str], attempt: int) -> list[str]:
    return sorted(ids, key=lambda i: stable_digest(question_id, str(attempt), i))


def right_order(depends: Mapping[str, Sequence[str]], written: Sequence[str]) -> list[str]:
    """The right order that keeps closest to `written`: at each step, the first line written
    among those whose dependencies are placed."""
    sorter = TopologicalSorter(depends)
    sorter.prepare()
    rank = {line: index for index, line in enumerate(written)}
    ready: list[tuple[int, str]] = []
    order: list[str] = []
    while sorter.is_active():
        for line in sorter.get_ready():
            heapq.heappush(ready, (rank[line], line))
        _, line = heapq.heappop(ready)
        order.append(line)
        sorter.done(line)
    return order


def follows_dependencies(order: Sequence[str], depends: Mapping[str, Sequence[str]]) -> bool:
    """Whether every line comes after all the lines it depends on."""
    seen: set[str] = set()
    for line in order:
        if not set(depends.get(line, ())) <= seen:
            return False
        seen.add(line)
    return True


def _ancestors(depends: Mapping[str, Sequence[str]]) -> dict[str, set[str]]:
    """Each line -> every line it must come after, directly or through others."""
    found: dict[str, set[str]] = {}
    for line in TopologicalSorter(depends).static_order():
        found[line] = set(depends.get(line, ()))
        for parent in depends.get(line, ()):
            found[line] |= found[parent]
    return found


def largest_in_order(lines: Sequence[str], ancestors: Mapping[str, set[str]]) -> int:
    """How many of `lines` (in the student's order) can stay where they are: the largest set
    in which no line comes before one it must follow.

    Two lines conflict when the first must come after the second. Conflict is a transitive
    relation (a strict order), so the largest conflict-free set is its largest antichain,
    which by Dilworth's theorem is the number of lines less a maximum matching of the
    relation's bipartite graph: polynomial time, where PrairieLearn searches vertex covers."""
    after = [
        [j for j in range(i + 1, len(lines)) if lines[j] in ancestors[lines[i]]]
        for i in range(len(lines))
    ]
    matched_to: dict[int, int] = {}

    def augment(i: int, visited: set[int]) -> bool:
        for j in after[i]:
            if j not in visited:
                visited.add(j)
                if j not in matched_to or augment(matched_to[j], visited):
                    matched_to[j] = i
                    return True
        return False

    return len(lines) - sum(augment(i, set()) for i in range(len(lines)))


def distance(key: OrderingKey, answer: Arrangement) -> Distance:
    """The fewest single-line edits from `answer` to a right program: every distractor
    deleted, every missing line inserted, every other line moved or re-indented unless it
    can stay (a line set rightly can stay with the others that can, see
    `largest_in_order`; any set of lines that can stay extends to a right order)."""
    placed = [p for p in answer.root if p.id in key.depends]
    rightly_indented = [p.id for p in placed if not key.indent or p.indent == key.indents.get(p.id)]
    in_place = largest_in_order(rightly_indented, _ancestors(key.depends))
    deletions = len(answer.root) - len(placed)
    insertions = len(key.depends) - len(placed)
    return Distance(
        in_place=in_place,
        total=len(key.depends),
        steps=deletions + insertions + len(placed) - in_place,
    )


class OrderingKind(QuestionKind[Ordering, OrderingPublic, OrderingKey, Arrangement]):
    name = "ordering"
    source = Ordering
    public_model = OrderingPublic
    key_model = OrderingKey
    answer_model = Arrangement
    out_model = OrderingOut
    # Lines are code: translated only where their identifiers are (same ids, same order).
    optional_translated_fields = ("lines",)
    example: ClassVar[dict[str, Any]] = {
        "id": "example-ordering",
        "kind": "ordering",
        "prompt": "Put the lines in order: make a tensor on the chosen device and print it.",
        "lines": [
            {"id": "import", "code": "import torch"},
            {
                "id": "device",
                "code": 'device = "cuda" if torch.cuda.is_available() else "cpu"',
            },
            {"id": "ones", "code": "x = torch.ones(3, device=device)", "depends": ["device"]},
            {"id": "print", "code": "print(x.sum().item())"},
            {"id": "wrong", "code": "x = torch.ones(3).cuda()", "distractor": True},
        ],
        "explanation": "The device is chosen before the tensor is made on it.",
    }

    def build(self, source: Ordering) -> tuple[OrderingPublic, OrderingKey]:
        public_id = {line.id: _public_id(source.id, line.id) for line in source.lines}
        depends = {
            public_id[line]: [public_id[d] for d in parents]
            for line, parents in dependencies(source.lines).items()
        }
        written = [public_id[line.id] for line in source.lines if not line.distractor]
        key = OrderingKey(
            depends=depends,
            indents={public_id[line.id]: line.indent for line in source.lines},
            order=right_order(depends, written),
            indent=source.indent,
        )
        by_id = {public_id[line.id]: line for line in source.lines}
        # Shown in an order made from the question's and the lines' ids alone (the same at
        # every visit), and never in a right order, which would give the answer away: the
        # first of a few seeded shuffles that is wrong (when every order is right,
        # `content_problems` says so).
        shuffles = (_shuffled(source.id, list(by_id), attempt) for attempt in range(SHUFFLES))
        shown = next(
            (s for s in shuffles if not self._right_order_shown(s, key)),
            _shuffled(source.id, list(by_id), 0),
        )
        public = OrderingPublic(
            lines=[
                OrderLine(
                    id=line_id,
                    code=by_id[line_id].code,
                    indent=None if source.indent else by_id[line_id].indent,
                )
                for line_id in shown
            ],
            indent=source.indent,
        )
        return public, key

    @staticmethod
    def _right_order_shown(shown: Sequence[str], key: OrderingKey) -> bool:
        return follows_dependencies([i for i in shown if i in key.depends], key.depends)

    def content_problems(self, public: OrderingPublic, key: OrderingKey) -> list[ContentProblem]:
        if self._right_order_shown([line.id for line in public.lines], key):
            return [
                ContentProblem(
                    "lines",
                    "the lines would be shown in a right order, which gives the answer away: "
                    "almost every order is right; declare what depends on what",
                )
            ]
        return []

    def build_translation(
        self, source: Ordering, translated: Ordering
    ) -> tuple[OrderingPublic, OrderingKey]:
        """The English question (ids, dependencies, order shown) with the translated code:
        line i of the translation translates line i."""
        public, key = self.build(source)
        code = {
            _public_id(source.id, line.id): words.code
            for line, words in zip(source.lines, translated.lines, strict=True)
        }
        lines = [line.model_copy(update={"code": code[line.id]}) for line in public.lines]
        return public.model_copy(update={"lines": lines}), key

    def translation_problems(self, source: Ordering, translated: Ordering) -> list[ContentProblem]:
        problems = super().translation_problems(source, translated)
        if problems:
            return problems
        for index, (line, words) in enumerate(zip(source.lines, translated.lines, strict=True)):
            if words.id != line.id:
                problems.append(
                    ContentProblem(
                        f"lines.{index}.id", f"must be {line.id!r}, as in the English, in order"
                    )
                )
            # Only the code is taken from a translation; the rest, when given, must agree.
            # (What a translation leaves out reaches here as its default.)
            for name in ("depends", "indent", "distractor"):
                given = getattr(words, name)
                if given != Line.model_fields[name].default and given != getattr(line, name):
                    problems.append(
                        ContentProblem(
                            f"lines.{index}.{name}",
                            "differs from the English; translate only the code (or leave "
                            f"{name} out)",
                        )
                    )
        return problems

    def read_answer(self, public: OrderingPublic, given: object) -> Arrangement:
        if not isinstance(given, list) or not all(
            isinstance(item, dict) and isinstance(item.get("id"), str) for item in given
        ):
            raise InvalidAnswer(TAKES)
        try:
            arrangement = Arrangement.model_validate(given)
        except ValueError:
            raise InvalidAnswer(TAKES) from None
        if not arrangement.root:
            raise EmptyPart(AT_LEAST_ONE, None)
        ids = [p.id for p in arrangement.root]
        if not set(ids) <= {line.id for line in public.lines}:
            raise InvalidAnswer(UNKNOWN_LINE)
        if len(set(ids)) != len(ids):
            raise InvalidAnswer(LINE_TWICE)
        if any(not 0 <= p.indent <= MAX_INDENT for p in arrangement.root):
            raise InvalidAnswer(BAD_INDENT)
        if not public.indent:
            # Shown indented as written; the student does not set it.
            return Arrangement(
                [Placed(id=p.id, indent=public.shown_indent(p.id)) for p in arrangement.root]
            )
        return arrangement

    def read_form(self, public: OrderingPublic, form: FormData) -> Arrangement:
        """One select per line: its position (empty: left out) and, with `indent: true`,
        its indent level."""
        positioned: list[tuple[int, dict[str, object]]] = []
        for line in public.lines:
            position = form.get(f"position-{line.id}")
            if not position:
                continue
            indent = form.get(f"indent-{line.id}") or "0"
            if not isinstance(position, str) or not position.isdecimal():
                raise InvalidAnswer(BAD_POSITION)
            if not isinstance(indent, str) or not indent.isdecimal():
                raise InvalidAnswer(BAD_INDENT)
            positioned.append((int(position), {"id": line.id, "indent": int(indent)}))
        positions = [position for position, _ in positioned]
        if len(set(positions)) != len(positions):
            raise InvalidAnswer(SAME_POSITION)
        return self.read_answer(public, [item for _, item in sorted(positioned)])

    def is_correct(self, key: OrderingKey, answer: Arrangement) -> bool:
        ids = [p.id for p in answer.root]
        if sorted(ids) != sorted(key.depends):
            return False
        if key.indent and any(p.indent != key.indents.get(p.id) for p in answer.root):
            return False
        return follows_dependencies(ids, key.depends)

    def correct_answer(self, public: OrderingPublic, key: OrderingKey) -> Arrangement:
        return Arrangement([Placed(id=i, indent=key.indents.get(i, 0)) for i in key.order])

    def describe(self, public: OrderingPublic, answer: Arrangement) -> AnswerView:
        """One line of code per line of the program, indented by four spaces a level."""
        code = {line.id: line.code for line in public.lines}
        lines = [f"{INDENT * p.indent}{code.get(p.id, f'(line {p.id})')}" for p in answer.root]
        return AnswerView(lines or ["(no lines)"], [])

    def feedback(self, public: OrderingPublic, key: OrderingKey, answer: Arrangement) -> Feedback:
        return Feedback(distance=distance(key, answer))


KIND = OrderingKind()
