"""Read `exercises/` into validated, rendered content, or a list of every problem found."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
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
    TrackFile,
    TracksFile,
    Translation,
    questions_file,
)
from app.content.translations import Block, body_stamp
from app.i18n import N_
from app.quizzes.kinds import QuestionSource, kind_of
from app.quizzes.kinds.base import TRANSLATED_FROM, TranslatedLanguage

TRANSLATED_LANGUAGES: tuple[TranslatedLanguage, ...] = ("tr",)
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
    # Wrong answers before the right answer is shown.
    tries: int
    # Per language: prompt_html, explanation_html, public, key.
    translations: dict[str, Any] = field(default_factory=dict)


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
    hints: list[str] = field(default_factory=list)  # rendered HTML
    hints_after: int = 2
    # Per language: title, prompt_html, hints; starter_code, solution_code where the language
    # has its own (starter.<language>.py, solution.<language>.py).
    translations: dict[str, Any] = field(default_factory=dict)


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
    translations: dict[str, Any] = field(default_factory=dict)  # per language: title


@dataclass
class Catalog:
    tracks: list[TrackData]

    @property
    def lessons(self) -> list[LessonData]:
        return [lesson for track in self.tracks for lesson in track.lessons]


class _Reader:
    """Collects problems instead of stopping at the first one."""

    def __init__(
        self,
        root: Path,
        *,
        require_variant_outputs: bool = True,
        require_translations: bool = False,
    ) -> None:
        self.root = root
        self.require_variant_outputs = require_variant_outputs
        self.require_translations = require_translations
        # The languages besides English the course is written in (tracks.yaml `languages`).
        self.languages: tuple[str, ...] = ()
        self.blocks: list[Block] = []
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

    def translation(self, block: Block) -> None:
        """A translated place (or one that should be): kept for stamping, and, when
        translations are required, checked for being there, complete and current."""
        self.blocks.append(block)
        if self.require_translations:
            for where, message in block.problems(
                required_language=block.language in self.languages
            ):
                self.problem(block.path, where, message)

    def validation_errors(self, path: Path, prefix: str, exc: ValidationError) -> None:
        for error in exc.errors():
            loc = ".".join(str(part) for part in (prefix, *error["loc"]) if part != "")
            self.problem(path, loc or "(file)", error["msg"])

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
            self.validation_errors(path, "", exc)
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
        tries=question.tries,
    )


def _given(words: Translation | None) -> dict[str, Any] | None:
    """A translation block's translated fields (None: no block)."""
    if words is None:
        return None
    return words.model_dump(exclude={TRANSLATED_FROM}, exclude_none=True)


def _translate_question(
    reader: _Reader, path: Path, index: int, question: QuestionSource, built: QuestionData
) -> None:
    """Each translation of a question, checked by its kind against the English and built
    into `built.translations`."""
    kind = kind_of(question.kind)
    for language in TRANSLATED_LANGUAGES:
        where = f"questions.{index}.translations.{language}"
        raw = question.translations.get(language)
        block = Block(
            path,
            where,
            ("questions", index, "translations", language),
            language,
            kind.english_fields(question),
            None,
            kind.translated_fields,
            None,
        )
        if raw is None:
            reader.translation(block)
            continue
        try:
            words = kind.translation_words(raw)
        except ValidationError as exc:
            reader.validation_errors(path, where, exc)
            continue
        stamp = raw.get(TRANSLATED_FROM)
        given = {k: v for k, v in raw.items() if k != TRANSLATED_FROM and v is not None}
        reader.translation(replace(block, given=given, translated_from=stamp))
        try:
            problems = kind.count_problems(question, words)
            translated = None if problems else kind.translate(question, words)
        except ValidationError as exc:
            reader.validation_errors(path, where, exc)
            continue
        if translated is not None:
            problems = kind.translation_problems(question, translated)
        for problem in problems:
            reader.problem(path, f"{where}.{problem.field}", problem.message)
        if translated is None or problems:
            continue
        public, key = kind.build_translation_stored(question, translated)
        built.translations[language] = {
            "prompt_html": markdown.render_inline(translated.prompt),
            "explanation_html": markdown.render_inline(translated.explanation),
            "public": public,
            "key": key,
        }


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
    translations = _translate_exercise(reader, folder, spec)
    codes = [("starter.py", starter), ("solution.py", solution)] + [
        (f"{name}.{language}.py", words[f"{name}_code"])
        for language, words in translations.items()
        for name in ("starter", "solution")
        if f"{name}_code" in words
    ]
    for name, code in codes:
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
        hints=[markdown.render(hint) for hint in spec.hints],
        hints_after=spec.hints_after,
        translations=translations,
    )


def _translate_exercise(reader: _Reader, folder: Path, spec: ExerciseFile) -> dict[str, Any]:
    """The exercise's words in each language, with its own starter and solution where the
    language has them."""
    path = folder / "exercise.yaml"
    found: dict[str, Any] = {}
    for language in TRANSLATED_LANGUAGES:
        words = spec.translations.get(language)
        where = f"translations.{language}"
        reader.translation(
            Block(
                path,
                where,
                ("translations", language),
                language,
                {"title": spec.title, "prompt": spec.prompt, "hints": spec.hints},
                _given(words),
                ("title", "prompt", "hints") if spec.hints else ("title", "prompt"),
                words.translated_from if words else None,
            )
        )
        entry: dict[str, Any] = {}
        if words is not None:
            if words.title is not None:
                entry["title"] = words.title
            if words.prompt is not None:
                entry["prompt_html"] = markdown.render(words.prompt, language)
            if words.hints is not None and len(words.hints) != len(spec.hints):
                reader.problem(
                    path,
                    f"{where}.hints",
                    f"has {len(words.hints)} hint(s) where the English has {len(spec.hints)}; "
                    "translate each, in the same order",
                )
            elif words.hints is not None:
                entry["hints"] = [markdown.render(hint, language) for hint in words.hints]
        for name in ("starter", "solution"):
            code_path = folder / f"{name}.{language}.py"
            if code_path.is_file() and (code := reader.text(code_path)) is not None:
                entry[f"{name}_code"] = code
        if entry:
            found[language] = entry
    return found


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
        _translate_question(reader, questions_path, index, questions.questions[index], question)
    translations: dict[str, Any] = {}
    for language in TRANSLATED_LANGUAGES:
        words = spec.translations.get(language)
        translated_body = _lesson_blocks(reader, folder, spec, body, language)
        entry: dict[str, Any] = {}
        if words is not None:
            entry |= {"title": words.title, "summary": words.summary}
        items = spec.check_yourself
        if words is not None and words.check_yourself is not None:
            if len(words.check_yourself) != len(spec.check_yourself):
                reader.problem(
                    folder / "lesson.yaml",
                    f"translations.{language}.check_yourself",
                    f"has {len(words.check_yourself)} item(s) where the English has "
                    f"{len(spec.check_yourself)}; translate each, in the same order",
                )
            items = words.check_yourself
        if translated_body is not None:
            entry["body_html"] = markdown.render(translated_body, language) + _check_yourself(
                items, language
            )
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


def _lesson_blocks(
    reader: _Reader, folder: Path, spec: LessonFile, body: str, language: TranslatedLanguage
) -> str | None:
    """The lesson's translated words in lesson.yaml, and its translated body, which this
    returns (None if there is none)."""
    words = spec.translations.get(language)
    check = [item.model_dump() for item in spec.check_yourself]
    reader.translation(
        Block(
            folder / "lesson.yaml",
            f"translations.{language}",
            ("translations", language),
            language,
            {"title": spec.title, "summary": spec.summary, "check_yourself": check},
            _given(words),
            ("title", "summary", "check_yourself") if check else ("title", "summary"),
            words.translated_from if words else None,
        )
    )
    path = folder / f"body.{language}.md"
    text = reader.text(path) if path.is_file() else None
    stamp, translated = body_stamp(text) if text is not None else (None, None)
    reader.translation(
        Block(
            path,
            "",
            (),
            language,
            {"body": body},
            {"body": translated} if translated is not None else None,
            ("body",),
            stamp,
        )
    )
    return translated


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


def _track_translations(reader: _Reader, index: int, track: TrackFile) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for language in TRANSLATED_LANGUAGES:
        words = track.translations.get(language)
        reader.translation(
            Block(
                reader.root / "tracks.yaml",
                f"tracks.{index}.translations.{language}",
                ("tracks", index, "translations", language),
                language,
                {"title": track.title},
                _given(words),
                ("title",),
                words.translated_from if words else None,
            )
        )
        if words is not None and words.title is not None:
            found[language] = {"title": words.title}
    return found


def load_catalog(
    root: Path, *, require_variant_outputs: bool = True, require_translations: bool = False
) -> Catalog:
    """The whole catalog, or ContentError listing every problem (nothing half-loaded).

    `require_variant_outputs=False` (only to make them again) accepts hidden variants whose
    generated expected output is missing or stale; their `expected_output` is None.
    `require_translations` (`content check`) refuses a text missing in a language the course
    is written in, and a translation not stamped from the English as it is now; without it
    the missing texts are served in English."""
    return _read(
        root,
        require_variant_outputs=require_variant_outputs,
        require_translations=require_translations,
    )[1]


def translation_blocks(root: Path) -> list[Block]:
    """Every translated place of the content, and every place that should be (for
    stamping); found even where other parts of the content have problems."""
    reader, _catalog = _read(
        root, require_variant_outputs=False, require_translations=False, raise_problems=False
    )
    return reader.blocks


def _read(
    root: Path,
    *,
    require_variant_outputs: bool,
    require_translations: bool,
    raise_problems: bool = True,
) -> tuple[_Reader, Catalog]:
    """The reader (with its problems) and the catalog; raises ContentError listing the
    problems, unless told not to (what can be read is then returned)."""
    reader = _Reader(
        root,
        require_variant_outputs=require_variant_outputs,
        require_translations=require_translations,
    )
    tracks_file = reader.model(root / "tracks.yaml", TracksFile, wrap="tracks")
    if tracks_file is None:
        raise ContentError(reader.problems)
    reader.languages = tuple(tracks_file.languages[1:])
    lessons_dir = root / "lessons"
    listed: dict[str, str] = {}
    tracks: list[TrackData] = []
    for t_index, track in enumerate(tracks_file.tracks):
        data = TrackData(
            slug=track.slug,
            title=track.title,
            level=track.level,
            translations=_track_translations(reader, t_index, track),
        )
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
    if reader.problems and raise_problems:
        raise ContentError(reader.problems)
    return reader, catalog
