"""Read `exercises/` into validated, rendered content, or a list of every problem found."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from app.content import markdown, variants
from app.content.schema import (
    CheckYourself,
    ExerciseFile,
    LessonFile,
    QuestionsFile,
    TracksFile,
    questions_file,
)
from app.i18n import N_
from app.quizzes.kinds import QuestionSource, kind_of

TRANSLATED_LANGUAGES = ("tr",)
CHECK_YOURSELF = N_("Check yourself")
M = TypeVar("M", bound=BaseModel)


@dataclass(frozen=True)
class Problem:
    path: str
    field: str
    message: str

    def __str__(self) -> str:
        where = f"{self.path}: {self.field}" if self.field else self.path
        return f"{where}: {self.message}"


class ContentError(Exception):
    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


@dataclass
class QuestionData:
    id: str
    kind: str
    prompt_html: str
    public: dict[str, Any]
    key: dict[str, Any]
    explanation_html: str


@dataclass
class VariantData:
    name: str
    setup: str
    # None while variants.expected.yaml lacks it or is stale (only when not required).
    expected_output: str | None


@dataclass
class ExerciseData:
    id: str
    title: str
    prompt_html: str
    starter_code: str
    solution_code: str
    expected_output: str
    devices: list[str]
    comparison: dict[str, Any]
    limits: dict[str, Any]
    source: Path
    setup: str = ""
    variants: list[VariantData] = field(default_factory=list)


@dataclass
class LessonData:
    slug: str
    title: str
    level: str
    track_slug: str
    summary: str
    prerequisites: list[str]
    body_html: str
    translations: dict[str, Any]
    questions: list[QuestionData] = field(default_factory=list)
    exercises: list[ExerciseData] = field(default_factory=list)


@dataclass
class TrackData:
    slug: str
    title: str
    level: str
    lessons: list[LessonData] = field(default_factory=list)


@dataclass
class Catalog:
    tracks: list[TrackData]

    @property
    def lessons(self) -> list[LessonData]:
        return [lesson for track in self.tracks for lesson in track.lessons]


class _Reader:
    """Collects problems instead of stopping at the first one."""

    def __init__(self, root: Path, *, require_variant_outputs: bool = True) -> None:
        self.root = root
        self.require_variant_outputs = require_variant_outputs
        self.problems: list[Problem] = []
        # Each lesson folder's prerequisites, kept even when another of its files is broken,
        # so that they are checked too.
        self.prerequisites: dict[str, list[str]] = {}

    def rel(self, path: Path) -> str:
        try:
            return str(path.relative_to(self.root.parent))
        except ValueError:
            return str(path)

    def problem(self, path: Path, field_name: str, message: str) -> None:
        self.problems.append(Problem(self.rel(path), field_name, message))

    def text(self, path: Path) -> str | None:
        if not path.is_file():
            self.problem(path, "", "file is missing")
            return None
        try:
            return path.read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            self.problem(path, "", f"not UTF-8 text ({exc.reason})")
            return None

    def model(self, path: Path, model: type[M], *, wrap: str | None = None) -> M | None:
        raw = self.text(path)
        if raw is None:
            return None
        try:
            data = yaml.safe_load(raw)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f"line {mark.line + 1}" if mark else ""
            self.problem(path, where, f"not valid YAML: {getattr(exc, 'problem', exc)}")
            return None
        if wrap and isinstance(data, list):
            data = {wrap: data}
        try:
            return model.model_validate(data if data is not None else {})
        except ValidationError as exc:
            for error in exc.errors():
                loc = ".".join(str(part) for part in error["loc"]) or "(file)"
                self.problem(path, loc, error["msg"])
            return None


def build_question(question: QuestionSource) -> QuestionData:
    """A question as written, with its public part and key built by its kind."""
    public, key = kind_of(question.kind).build_stored(question)
    return QuestionData(
        id=question.id,
        kind=question.kind,
        prompt_html=markdown.render_inline(question.prompt),
        public=public,
        key=key,
        explanation_html=markdown.render_inline(question.explanation),
    )


def _read_exercise(reader: _Reader, folder: Path) -> ExerciseData | None:
    spec = reader.model(folder / "exercise.yaml", ExerciseFile)
    starter = reader.text(folder / "starter.py")
    solution = reader.text(folder / "solution.py")
    expected = reader.text(folder / "expected.txt")
    if spec is None or starter is None or solution is None or expected is None:
        return None
    if spec.id != folder.name:
        reader.problem(
            folder / "exercise.yaml", "id", f"must equal the folder name {folder.name!r}"
        )
        return None
    for name, code in (("starter.py", starter), ("solution.py", solution)):
        try:
            compile(code, name, "exec")
        except SyntaxError as exc:
            reader.problem(folder / name, f"line {exc.lineno}", f"not valid Python: {exc.msg}")
    setups = [("setup", spec.setup)] + [
        (f"variants.{index}.setup", v.setup) for index, v in enumerate(spec.variants)
    ]
    for where, code in setups:
        try:
            compile(code, "<setup>", "exec")
        except SyntaxError as exc:
            reader.problem(
                folder / "exercise.yaml", where, f"not valid Python (line {exc.lineno}): {exc.msg}"
            )
    return ExerciseData(
        id=spec.id,
        title=spec.title,
        prompt_html=markdown.render(spec.prompt),
        starter_code=starter,
        solution_code=solution,
        expected_output=expected.rstrip("\n"),
        devices=list(spec.devices),
        comparison=spec.comparison.model_dump(),
        limits=spec.limits.model_dump(),
        source=folder,
        setup=spec.setup,
        variants=_read_variants(reader, folder, spec, solution),
    )


def _read_variants(
    reader: _Reader, folder: Path, spec: ExerciseFile, solution: str
) -> list[VariantData]:
    """The declared variants with their generated expected outputs, each checked against the
    fingerprint of the solution and setup it was made from."""
    path = folder / variants.FILE_NAME
    strict = reader.require_variant_outputs
    if not spec.variants:
        if path.exists() and strict:
            reader.problem(path, "", "exercise.yaml declares no variants; delete this file")
        return []
    stored = variants.read(path) if path.is_file() else f"file is missing; {variants.MAKE_IT}"
    if isinstance(stored, str):
        if strict:
            reader.problem(path, "", stored)
        stored = {}
    found = []
    for variant in spec.variants:
        made = stored.get(variant.name)
        output = None
        if made is None:
            why = "missing"
        elif made[0] != variants.fingerprint(solution, variant.setup):
            why = "out of date: solution.py or this variant's setup changed since it was made"
        else:
            output = made[1]
        if output is None and strict and stored:
            reader.problem(path, f"variants.{variant.name}", f"{why}; {variants.MAKE_IT}")
        found.append(VariantData(variant.name, variant.setup, output))
    for name in stored:
        if strict and name not in {v.name for v in spec.variants}:
            reader.problem(
                path, f"variants.{name}", f"exercise.yaml has no such variant; {variants.MAKE_IT}"
            )
    return found


def _read_lesson(reader: _Reader, folder: Path, track_slug: str) -> LessonData | None:
    spec = reader.model(folder / "lesson.yaml", LessonFile)
    body = reader.text(folder / "body.md")
    questions_path = folder / "questions.yaml"
    questions = (
        reader.model(questions_path, questions_file(), wrap="questions")
        if questions_path.exists()
        else QuestionsFile()
    )
    exercise_dirs = sorted(p for p in (folder / "exercises").glob("*") if p.is_dir())
    exercises = [_read_exercise(reader, p) for p in exercise_dirs]
    if spec is not None:
        reader.prerequisites[folder.name] = list(spec.prerequisites)
    if spec is None or body is None or questions is None or None in exercises:
        return None
    if spec.slug != folder.name:
        reader.problem(
            folder / "lesson.yaml", "slug", f"must equal the folder name {folder.name!r}"
        )
    built = [build_question(q) for q in questions.questions]
    for index, question in enumerate(built):
        for problem in kind_of(question.kind).problems_stored(question.public, question.key):
            reader.problem(questions_path, f"questions.{index}.{problem.field}", problem.message)
    translations: dict[str, Any] = {}
    for language in TRANSLATED_LANGUAGES:
        words = spec.translations.get(language)  # type: ignore[call-overload]
        entry: dict[str, Any] = {}
        if words is not None:
            entry |= {"title": words.title, "summary": words.summary}
        translated = folder / f"body.{language}.md"
        if translated.is_file() and (text := reader.text(translated)) is not None:
            items = spec.check_yourself
            if words is not None and words.check_yourself is not None:
                items = words.check_yourself
            entry["body_html"] = markdown.render(text, language) + _check_yourself(items, language)
        if entry:
            translations[language] = {k: v for k, v in entry.items() if v is not None}
    body_html = markdown.render(body) + _check_yourself(spec.check_yourself, "en")
    return LessonData(
        slug=spec.slug,
        title=spec.title,
        level=spec.level,
        track_slug=track_slug,
        summary=spec.summary,
        prerequisites=list(spec.prerequisites),
        body_html=body_html,
        translations=translations,
        questions=built,
        exercises=[e for e in exercises if e is not None],
    )


def _check_yourself(items: list[CheckYourself], language: str) -> str:
    """The questions to check yourself, each answer folded until asked for."""
    if not items:
        return ""
    check = "".join(
        f'<details class="check"><summary>{markdown.render_inline(item.question)}</summary>'
        f"{markdown.render(item.answer, language)}</details>"
        for item in items
    )
    heading = markdown.label(CHECK_YOURSELF, language)
    return f'<section class="check-yourself"><h2>{heading}</h2>{check}</section>'


def _check_references(reader: _Reader, catalog: Catalog, known: set[str]) -> None:
    """`known`: the lessons listed in a track that have a folder, broken or not (a broken
    lesson has its own problems; those that require it need not report another)."""
    lessons_dir = reader.root / "lessons"
    seen_ids: dict[str, str] = {}
    for slug, prerequisites in reader.prerequisites.items():
        lesson_file = lessons_dir / slug / "lesson.yaml"
        for prerequisite in prerequisites:
            if prerequisite not in known:
                reader.problem(lesson_file, "prerequisites", f"unknown lesson {prerequisite!r}")
            elif prerequisite == slug:
                reader.problem(lesson_file, "prerequisites", "a lesson cannot require itself")
    for lesson in catalog.lessons:
        items = [(q.id, "questions.yaml") for q in lesson.questions] + [
            (e.id, f"exercises/{e.id}/exercise.yaml") for e in lesson.exercises
        ]
        for item_id, file_name in items:
            if item_id in seen_ids:
                reader.problem(
                    lessons_dir / lesson.slug / file_name,
                    "id",
                    f"{item_id!r} is already used in {seen_ids[item_id]}",
                )
            seen_ids[item_id] = f"lessons/{lesson.slug}"


def load_catalog(root: Path, *, require_variant_outputs: bool = True) -> Catalog:
    """The whole catalog, or ContentError listing every problem (nothing half-loaded).

    `require_variant_outputs=False` (only to make them again) accepts hidden variants whose
    generated expected output is missing or stale; their `expected_output` is None."""
    reader = _Reader(root, require_variant_outputs=require_variant_outputs)
    tracks_file = reader.model(root / "tracks.yaml", TracksFile, wrap="tracks")
    if tracks_file is None:
        raise ContentError(reader.problems)
    lessons_dir = root / "lessons"
    listed: dict[str, str] = {}
    tracks: list[TrackData] = []
    for t_index, track in enumerate(tracks_file.tracks):
        data = TrackData(slug=track.slug, title=track.title, level=track.level)
        if any(t.slug == track.slug for t in tracks):
            reader.problem(root / "tracks.yaml", f"tracks.{t_index}.slug", "slug used twice")
        for l_index, slug in enumerate(track.lessons):
            where = f"tracks.{t_index}.lessons.{l_index}"
            if slug in listed:
                reader.problem(
                    root / "tracks.yaml", where, f"{slug!r} is already in {listed[slug]}"
                )
                continue
            listed[slug] = track.slug
            if not (lessons_dir / slug).is_dir():
                reader.problem(root / "tracks.yaml", where, f"no folder lessons/{slug}")
                continue
            if (lesson := _read_lesson(reader, lessons_dir / slug, track.slug)) is not None:
                data.lessons.append(lesson)
        tracks.append(data)
    if lessons_dir.is_dir():
        for folder in sorted(p for p in lessons_dir.iterdir() if p.is_dir()):
            if folder.name not in listed:
                reader.problem(folder, "", "lesson is in no track of tracks.yaml")
    catalog = Catalog(tracks)
    _check_references(reader, catalog, {s for s in listed if (lessons_dir / s).is_dir()})
    if reader.problems:
        raise ContentError(reader.problems)
    return catalog
