"""Lesson Markdown to HTML: CommonMark without raw HTML, highlighted code, output blocks,
predict-then-reveal blocks and the interactive race widget."""

from __future__ import annotations

import html
import shlex
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

from app.i18n import N_, translations

_FORMATTER = HtmlFormatter(nowrap=True)


def _highlight(code: str, language: str) -> str:
    try:
        lexer = get_lexer_by_name(language)
    except ClassNotFound:
        return html.escape(code)
    return highlight(code, lexer, _FORMATTER)


def _parse_info(info: str) -> tuple[str, set[str], dict[str, str]]:
    try:
        words = shlex.split(info) if info.strip() else [""]
    except ValueError:  # unbalanced quotes: treat the info string as plain words
        words = info.split()
    language, flags, attrs = words[0], set(), {}
    for word in words[1:]:
        if "=" in word:
            key, _, value = word.partition("=")
            attrs[key] = value
        else:
            flags.add(word)
    return language, flags, attrs


PREDICT = N_("Predict the output, then reveal it")
OUTPUT = N_("Output")
RACE_NEEDS_JS = N_("The interactive race needs JavaScript.")


def label(text: str, language: str | None) -> str:
    """A label the renderer writes into lesson HTML, in the lesson text's language."""
    return html.escape(translations(language or "en").gettext(text))


def _render_fence(_self: Any, tokens: list[Token], idx: int, _options: Any, env: Any) -> str:
    token = tokens[idx]
    language, flags, attrs = _parse_info(token.info)
    text_language = env.get("language") if isinstance(env, dict) else None
    if language == "race":
        return (
            '<div class="race" data-widget="race"><noscript>'
            f"<p>{label(RACE_NEEDS_JS, text_language)}</p></noscript></div>\n"
        )
    if language == "output":
        escaped = html.escape(token.content)
        output = label(OUTPUT, text_language)
        # tabindex: a block wider than the page scrolls, and keyboard users must reach it too.
        block = (
            f'<pre class="output" aria-label="{output}" tabindex="0"><code>{escaped}</code></pre>'
        )
        if "predict" in flags:
            return (
                f'<details class="predict"><summary>{label(PREDICT, text_language)}'
                f"</summary>{block}</details>\n"
            )
        return f'<div class="output-block"><span class="label">{output}</span>{block}</div>\n'
    code = _highlight(token.content, language or "text")
    caption = ""
    if title := attrs.get("title"):
        caption = f'<figcaption class="filename">{html.escape(title)}</figcaption>'
    lang_class = f' class="language-{html.escape(language)}"' if language else ""
    pre = f'<pre class="highlight" tabindex="0"><code{lang_class}>{code}</code></pre>'
    return f'<figure class="code">{caption}{pre}</figure>\n'


def _align_by_class(state: StateCore) -> None:
    """A table column's alignment as a class (style.css): the pages' Content-Security-Policy
    refuses style attributes (docs/security.md)."""
    for token in state.tokens:
        if token.type in ("th_open", "td_open") and "style" in token.attrs:
            side = str(token.attrs.pop("style")).removeprefix("text-align:")
            token.attrSet("class", f"align-{side}")


def _markdown() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable("table")
    md.core.ruler.push("align_by_class", _align_by_class)
    md.add_render_rule("fence", _render_fence)
    return md


_MD = _markdown()


def render(text: str, language: str = "en") -> str:
    """`language`: the language the text is written in, for the labels the renderer adds."""
    return _MD.render(text, {"language": language})


def render_inline(text: str) -> str:
    """For short prompts: no wrapping paragraph when the text is one paragraph."""
    rendered = _MD.render(text).strip()
    if rendered.startswith("<p>") and rendered.endswith("</p>") and rendered.count("<p>") == 1:
        return rendered[3:-4]
    return rendered


def highlight_css() -> str:
    return _FORMATTER.get_style_defs(".highlight")
