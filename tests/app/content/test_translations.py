"""Content in two languages: `content check` refuses a missing or stale translation, naming
the file and field; `content translations --stamp` marks translations current; the loader
builds each language's texts (a kind keeps what answers depend on); the API and the pages
serve the language of the request, in English only where a text is untranslated; `--run`
grades each language's own solution. Each test uses a small course of its own
(tests/app/content/bilingual_course.py), never the real one."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from app.cli import main
from app.content import ContentError, load_catalog, sync_catalog
from app.content.translations import fingerprint
from app.db import Database
from tests.app.content.bilingual_course import (
    CHOICE,
    EXERCISE,
    EXERCISE_DIR,
    FILL_IN,
    LESSON,
    LESSON_DIR,
    TRACKS_YAML,
    TURKISH_HINTS,
    write_course,
)
from tests.helpers import bearer, browser_signup, register

QUESTIONS = LESSON_DIR / "questions.yaml"
STAMP_HINT = "python -m app content translations --stamp"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return write_course(tmp_path)


def check(tree: Path, *flags: str) -> int:
    return main(["content", "check", *flags, "--path", str(tree)])


def stamp(tree: Path) -> None:
    assert main(["content", "translations", "--stamp", "--path", str(tree)]) == 0


def problems(tree: Path) -> list[str]:
    with pytest.raises(ContentError) as caught:
        load_catalog(tree, require_translations=True)
    return [str(problem) for problem in caught.value.problems]


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1))


def test_translations_never_stamped_are_refused_until_stamped(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    found = problems(tree)
    assert len(found) == 7  # a track, a lesson, its body, three questions, an exercise
    assert (
        f"exercises/{QUESTIONS}: questions.0.translations.tr.translated_from: missing: "
        f"once the translation is done, run `{STAMP_HINT}`"
    ) in found
    assert f"exercises/{LESSON_DIR}/body.tr.md: translated_from: missing" in "\n".join(found)
    assert check(tree) == 1
    assert "translations.tr.translated_from" in capsys.readouterr().err
    stamp(tree)
    assert check(tree) == 0


def test_the_listing_says_which_translation_is_where(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["content", "translations", "--path", str(tree)]) == 0
    listed = capsys.readouterr().out
    assert f"unstamped tr exercises/{QUESTIONS}: questions.2.translations.tr" in listed
    stamp(tree)
    capsys.readouterr()
    assert main(["content", "translations", "--path", str(tree)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines and all(line.startswith("current ") for line in lines), lines


def test_a_missing_option_translation_names_the_file_and_field(tree: Path) -> None:
    stamp(tree)
    edit(tree / QUESTIONS, '        options: ["bir", "üç", "sekiz"]\n', "")
    (problem,) = problems(tree)
    assert problem == (
        f"exercises/{QUESTIONS}: questions.0.translations.tr.options: missing: translate it"
    )


def test_editing_the_english_makes_the_translation_stale_and_stamping_clears_it(
    tree: Path,
) -> None:
    stamp(tree)
    assert check(tree) == 0
    edit(
        tree / QUESTIONS, 'options: ["one", "three", "eight"]', 'options: ["one", "five", "eight"]'
    )
    (problem,) = problems(tree)
    assert problem.startswith(
        f"exercises/{QUESTIONS}: questions.0.translations.tr.translated_from: stale: "
        "the English changed since this was translated"
    )
    stamp(tree)
    assert check(tree) == 0


def test_stale_everywhere_the_english_is_edited(tree: Path) -> None:
    stamp(tree)
    edit(tree / "tracks.yaml", "title: Start", "title: The start")
    edit(tree / LESSON_DIR / "body.md", "Every text", "Each text")
    edit(tree / EXERCISE_DIR / "exercise.yaml", "Multiply by two.", "Times two.")
    found = problems(tree)
    assert [p.split(": stale")[0] for p in found] == [
        "exercises/tracks.yaml: tracks.0.translations.tr.translated_from",
        f"exercises/{EXERCISE_DIR}/exercise.yaml: translations.tr.translated_from",
        f"exercises/{LESSON_DIR}/body.tr.md: translated_from",
    ]


def test_missing_translations_name_what_is_missing(tree: Path) -> None:
    stamp(tree)
    untranslated = TRACKS_YAML.replace(
        "    translations:\n      tr:\n        title: Başlangıç\n", ""
    )
    (tree / "tracks.yaml").write_text(untranslated)
    (tree / LESSON_DIR / "body.tr.md").unlink()
    found = problems(tree)
    assert found == [
        "exercises/tracks.yaml: tracks.0.translations.tr: missing: translate title",
        f"exercises/{LESSON_DIR}/body.tr.md: file is missing: the tr translation of the body",
    ]


def test_a_course_in_english_only_needs_no_translation(tree: Path) -> None:
    edit(tree / "tracks.yaml", "languages: [en, tr]", "languages: [en]")
    (tree / LESSON_DIR / "body.tr.md").unlink()
    assert check(tree) == 0  # the Turkish left, unstamped, is served as it is


def test_a_translation_that_does_not_fit_the_english_is_refused_even_when_serving(
    tree: Path,
) -> None:
    edit(tree / QUESTIONS, '["bir", "üç", "sekiz"]', '["bir", "sekiz"]')
    edit(tree / EXERCISE_DIR / "exercise.yaml", '      - "`2 * deger` yazdırın."\n', "")
    edit(tree / QUESTIONS, "          - left: erken\n            right: geç\n", "")
    with pytest.raises(ContentError) as caught:
        load_catalog(tree)  # as the server loads it: missing and stale are fine, this is not
    assert [str(p) for p in caught.value.problems] == [
        f"exercises/{EXERCISE_DIR}/exercise.yaml: translations.tr.hints: has 2 hint(s) where "
        "the English has 3; translate each, in the same order",
        f"exercises/{QUESTIONS}: questions.0.translations.tr.options: has 2 item(s) where the "
        "English has 3; translate each, in the same order",
        f"exercises/{QUESTIONS}: questions.2.translations.tr.pairs: has 2 item(s) where the "
        "English has 3; translate each, in the same order",
    ]


def test_a_translation_is_validated_as_the_question_is(tree: Path) -> None:
    edit(tree / QUESTIONS, '["bir", "üç", "sekiz"]', '["bir", "bir", "sekiz"]')
    edit(tree / QUESTIONS, 'template: "x = x.to(____)"', 'template: "x = x.to(cihaz)"')
    edit(tree / QUESTIONS, "explanation: Zıt anlamlılar.", "explanation: Zıt.\n        pairz: []")
    with pytest.raises(ContentError) as caught:
        load_catalog(tree)
    found = [str(p) for p in caught.value.problems]
    assert any(
        p.startswith(f"exercises/{QUESTIONS}: questions.0.translations.tr: ")
        and "options must be distinct" in p
        for p in found
    ), found
    assert any(
        p.startswith(f"exercises/{QUESTIONS}: questions.1.translations.tr: ")
        and "template has 0 blank(s)" in p
        for p in found
    ), found
    assert any(
        p.startswith(f"exercises/{QUESTIONS}: questions.2.translations.tr.pairz: ") for p in found
    ), found


def test_stamping_writes_only_the_fingerprints(tree: Path) -> None:
    before = {p: p.read_text() for p in tree.rglob("*") if p.is_file()}
    stamp(tree)
    for path, text in before.items():
        after = path.read_text()
        added = [line for line in after.splitlines() if line not in text.splitlines()]
        assert all("translated_from" in line for line in added), (path, added)
        assert [line for line in after.splitlines() if "translated_from" not in line] == (
            text.splitlines()
        ), path
    assert "# The course in both languages." in (tree / "tracks.yaml").read_text()
    # The fingerprint is that of the English it translates.
    expected = fingerprint({"title": "Start"})
    assert f"translated_from: {expected}" in (tree / "tracks.yaml").read_text()
    body = fingerprint({"body": (tree / LESSON_DIR / "body.md").read_text()})
    assert (
        (tree / LESSON_DIR / "body.tr.md")
        .read_text()
        .startswith(f"<!-- translated_from: {body} -->\n## İki dil")
    )


def test_the_loader_builds_each_language(tree: Path) -> None:
    (track,) = load_catalog(tree).tracks
    assert track.translations == {"tr": {"title": "Başlangıç"}}
    (lesson,) = track.lessons
    assert "<h2>İki dil</h2>" in lesson.translations["tr"]["body_html"]
    assert "translated_from" not in lesson.translations["tr"]["body_html"]
    assert "İki kere üç kaçtır?" in lesson.translations["tr"]["body_html"]
    choice, fill_in, matching = lesson.questions
    assert choice.translations["tr"]["public"]["options"] == ["bir", "üç", "sekiz"]
    assert choice.translations["tr"]["key"] == choice.key
    assert fill_in.translations["tr"]["key"]["blanks"][0]["accepted"] == ["cihaz"]
    # Matching answers are item ids: the same in both languages, shown in the same order.
    english, turkish = matching.public, matching.translations["tr"]["public"]
    for side in ("left", "right"):
        assert [i["id"] for i in turkish[side]] == [i["id"] for i in english[side]]
    assert [i["text"] for i in turkish["left"]] == ["yukarı", "sıcak", "erken"]
    assert matching.translations["tr"]["key"] == matching.key
    right = {i["id"]: i["text"] for i in turkish["right"]}
    left = {i["id"]: i["text"] for i in turkish["left"]}
    assert {left[lid]: right[rid] for lid, rid in matching.key["pairs"].items()} == {
        "yukarı": "aşağı",
        "sıcak": "soğuk",
        "erken": "geç",
    }
    (exercise,) = lesson.exercises
    words = exercise.translations["tr"]
    assert words["title"] == "İkiye katla"
    assert words["starter_code"].startswith("# deger")
    assert words["solution_code"] == "deger = value\nprint(2 * deger)\n"
    assert len(words["hints"]) == 3 and "İki ile çarpın." in words["hints"][0]
    assert exercise.hints_after == 2 and "Multiply by two." in exercise.hints[0]


# --- serving the language of the request ------------------------------------------------


@pytest.fixture
async def served(db: Database, tree: Path) -> Path:
    """The course, stamped, in the test's database (in place of the built-in one)."""
    stamp(tree)
    async with db.writer() as session, session.begin():
        await sync_catalog(session=session, catalog=load_catalog(tree))
    return tree


async def test_the_api_serves_the_language_asked_for(
    client: httpx.AsyncClient, served: Path
) -> None:
    tracks = (await client.get("/api/tracks?lang=tr")).json()
    assert tracks == [
        {
            "slug": "start",
            "title": "Başlangıç",
            "level": "beginner",
            "lessons": [{"slug": LESSON, "title": "İki dil"}],
        }
    ]
    turkish = (
        await client.get(f"/api/lessons/{LESSON}", headers={"Accept-Language": "tr-TR,tr"})
    ).json()
    assert turkish["title"] == "İki dil" and turkish["summary"] == "İngilizce ve Türkçe bir ders."
    assert "Her metin iki kez vardır." in turkish["body_html"]
    choice, fill_in, matching = turkish["questions"]
    assert choice["prompt_html"] == "Hangi sayı çifttir?"
    assert choice["options"] == ["bir", "üç", "sekiz"]
    assert fill_in["template"] == "x = x.to(____)"
    assert [item["text"] for item in matching["left"]] == ["yukarı", "sıcak", "erken"]
    (exercise,) = turkish["exercises"]
    assert exercise["title"] == "İkiye katla"
    assert exercise["starter_code"].startswith("# deger")
    assert exercise["expected_output"] == "42"
    assert (exercise["hints"], exercise["hints_after"]) == (3, 2)
    english = (await client.get(f"/api/lessons/{LESSON}?lang=en")).json()
    assert english["title"] == "Two languages"
    assert english["questions"][0]["options"] == ["one", "three", "eight"]
    assert english["exercises"][0]["starter_code"].startswith("# value")


async def test_answers_are_checked_and_explained_in_the_language_read(
    client: httpx.AsyncClient, served: Path
) -> None:
    _name, token = await register(client)

    async def answer(question: str, given: object, lang: str) -> dict:
        response = await client.post(
            f"/api/questions/{question}/answers?lang={lang}",
            json={"answer": given},
            headers=bearer(token),
        )
        assert response.status_code == 200, response.text
        return response.json()

    turkish = await answer(FILL_IN, ["cihaz"], "tr")
    assert turkish["correct"] is True
    assert "tensörün aygıttaki kopyası" in turkish["explanation_html"]
    english = await answer(FILL_IN, ["cihaz"], "en")
    assert english["correct"] is False and english["correct_answer"] == ["to"]
    assert (await answer(CHOICE, 2, "tr"))["correct"] is True


async def test_the_lesson_page_is_in_the_language_asked_for(
    client: httpx.AsyncClient, served: Path
) -> None:
    await client.get("/?lang=tr")  # remembered in a cookie from here on
    await browser_signup(client)
    page = (await client.get(f"/lessons/{LESSON}")).text
    assert "Başlangıç" in page and "<h1>İki dil</h1>" in page
    assert "Hangi sayı çifttir?" in page and "<span>sekiz</span>" in page
    assert "yukarı" in page and "Tensörü aygıta taşıyın." in page
    assert "İkiye katla" in page
    assert "# deger, kodunuzdan önce tanımlanır" in page  # the Turkish starter in the editor
    assert "Which number is even?" not in page and "Double it" not in page
    catalog = (await client.get("/")).text
    assert "Başlangıç" in catalog and "İki dil" in catalog
    english = (await client.get(f"/lessons/{LESSON}?lang=en")).text
    assert "Which number is even?" in english and "# value is set" in english


async def test_an_untranslated_text_falls_back_to_english(
    db: Database, client: httpx.AsyncClient, tree: Path
) -> None:
    edit(tree / QUESTIONS, '        options: ["bir", "üç", "sekiz"]\n', "")
    edit(tree / "tracks.yaml", "languages: [en, tr]", "languages: [en]")
    async with db.writer() as session, session.begin():
        await sync_catalog(session=session, catalog=load_catalog(tree))
    lesson = (await client.get(f"/api/lessons/{LESSON}?lang=tr")).json()
    assert lesson["questions"][0]["prompt_html"] == "Hangi sayı çifttir?"
    assert lesson["questions"][0]["options"] == ["one", "three", "eight"]


# --- each language's own solution --------------------------------------------------------


@pytest.mark.sandbox
def test_run_grades_the_turkish_solution_against_the_same_output(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stamp(tree)
    assert check(tree, "--run") == 0
    out = capsys.readouterr().out
    assert f"passed  {EXERCISE} on cpu" in out
    assert f"passed  {EXERCISE} (solution.tr.py) on cpu" in out
    (tree / EXERCISE_DIR / "solution.tr.py").write_text("deger = value\nprint(2 * deger + 1)\n")
    assert check(tree, "--run") == 1
    out = capsys.readouterr().out
    assert f"FAILED  {EXERCISE} (solution.tr.py) on cpu: wrong_output" in out
    assert "+43" in out


@pytest.mark.sandbox
def test_run_refuses_a_turkish_starter_that_already_passes(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stamp(tree)
    (tree / EXERCISE_DIR / "starter.tr.py").write_text("print(2 * value)\n")
    assert check(tree, "--run") == 1
    assert f"FAILED  {EXERCISE}: starter.tr.py already passes" in capsys.readouterr().out


def test_turkish_hints_listed(tree: Path) -> None:
    (lesson,) = load_catalog(tree).lessons
    (exercise,) = lesson.exercises
    assert [h.strip() for h in exercise.translations["tr"]["hints"]] == [
        f"<p>{hint.replace('`2 * deger`', '<code>2 * deger</code>')}</p>" for hint in TURKISH_HINTS
    ]
