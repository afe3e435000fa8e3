"""The small, safe Markdown subset of an in-app message's body (docs/design.md, "In-app inbox").

The text is HTML-escaped first, whole; only then do these marks become tags, so nothing the
text holds can become markup of its own: `**bold**`, `*italic*` (or `_italic_`), `` `code` ``,
`[text](https://…)` links (http, https and site-relative paths only, opening with
rel="noopener nofollow"), blank lines between paragraphs and single newlines as `<br>`.
"""

from __future__ import annotations

import html
import re

_CODE = re.compile(r"`([^`\n]+)`")
_BOLD = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*")
_ITALIC = re.compile(r"(?<![\w*])[*_](?=\S)(.+?)(?<=\S)[*_](?![\w*])")
# After escaping, a link's text and target: the target is http(s) or a path from the site root.
_LINK = re.compile(r"\[([^\]\n]+)\]\(((?:https?://|/)[^\s()\"]*)\)")
_PARAGRAPHS = re.compile(r"\n\s*\n")
_CODE_SLOT = "\x00{}\x00"


def markdown_safe_html(text: str) -> str:
    """`text` as escaped HTML with the subset's marks as tags (one `<p>` per paragraph)."""
    escaped = html.escape(text.strip().replace("\r\n", "\n"), quote=True)
    paragraphs = [part for part in _PARAGRAPHS.split(escaped) if part.strip()]
    return "".join(f"<p>{_inline(part.strip())}</p>" for part in paragraphs)


def _inline(text: str) -> str:
    codes: list[str] = []

    def keep_code(match: re.Match[str]) -> str:  # code spans keep their marks as they are
        codes.append(f"<code>{match.group(1)}</code>")
        return _CODE_SLOT.format(len(codes) - 1)

    text = _CODE.sub(keep_code, text)
    text = _LINK.sub(r'<a href="\2" rel="noopener nofollow">\1</a>', text)
    text = _BOLD.sub(r"<strong>\1</strong>", text)
    text = _ITALIC.sub(r"<em>\1</em>", text)
    text = text.replace("\n", "<br>")
    for index, code in enumerate(codes):
        text = text.replace(_CODE_SLOT.format(index), code)
    return text
