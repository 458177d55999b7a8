"""Neutralising stored text before it enters the prompt: one neutraliser for both formats.

Stored messages and documents are attacker-controllable: anyone who once chatted with
the agent, or wrote a document it indexed, can plant text that tries to close the
injected block and speak as the system. `neutralize` rewrites item text and labels the
same way whatever the block's format, so it cannot contain a delimiter, a code fence, a
heading, a chat-template token or a tag, and the renderers put every further line of an
item under a gutter, so no stored line starts a line of the block. Markdown delimits the
block with lines carrying a per-render random nonce; XML additionally escapes & < > ' ".

Text that hides is removed first: controls, every format character (Unicode category Cf:
zero-width, bidi, soft hyphen, the U+E0000 tag block that spells ASCII only a model reads)
and the other default-ignorable code points (variation selectors, the combining grapheme
joiner, Hangul fillers). A zero-width joiner is kept only between two emoji, where it
forms one pictograph (family, profession, rainbow flag); emoji lose their variation
selector (U+FE0F) and tag sequences, which changes their presentation, not their meaning.
"""

from __future__ import annotations

import re
import secrets

DELIMITER_PREFIX = "<<<knowledge-engine:"

# Controls (except \t \n; line breaks are normalised first), format characters (Cf) and the other
# Default_Ignorable_Code_Points (Unicode 15.1), XML-invalid characters. U+200D is handled below.
_INVISIBLE_RE = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\u00ad\u034f\u0600-\u0605\u061c\u06dd\u070f"
    "\u0890\u0891\u08e2\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b\u200c\u200e\u200f\u202a-\u202e"
    "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufffb\ufffe\uffff\ud800-\udfff"
    "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0000-\U000e0fff]"
)
# Emoji that a zero-width joiner may join (Extended_Pictographic, approximated by its blocks,
# skin-tone modifiers included): elsewhere the joiner only hides text.
_PICTO = (
    "[\u00a9\u00ae\u203c\u2049\u2122\u2139\u2194-\u21aa\u231a-\u23ff\u24c2\u25aa-\u27bf"
    "\u2934\u2935\u2b05-\u2b55\u3030\u303d\u3297\u3299\U0001f000-\U0001faff]"
)
_STRAY_ZWJ_RE = re.compile(f"(?<!{_PICTO})\u200d|\u200d(?!{_PICTO})")
_LINE_BREAK_RE = re.compile("\r\n|[\r\x85\u2028\u2029\x0b\x0c]")
_ANGLE_RUN_RE = re.compile(r"<{3,}|>{3,}")
_FENCE_RE = re.compile(r"`{3,}|~{3,}")
_TAG_OPEN_RE = re.compile(r"<(?=\s*[/!?|A-Za-z_])")
_SPECIAL_TOKEN_RE = re.compile(r"\[(/?(?:INST|SYS|SYSTEM|USER|ASSISTANT))\]", re.IGNORECASE)
# Leading blanks of one line only ([^\S\n]): `\s*` spanning blank lines was quadratic on "\n" * N.
_LINE_START_RE = re.compile(r"^([^\S\n]*)([#=]|-{3,}|\*{3,}|_{3,}|>)", re.MULTILINE)

# XML 1.0 forbids most control characters; anything above is escaped, never dropped.
_XML_TEXT = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})
_XML_ATTR = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;"})


def new_nonce() -> str:
    """16 hex characters from the OS CSPRNG: stored text cannot predict it."""
    return secrets.token_hex(8)


def begin_line(nonce: str) -> str:
    return f"{DELIMITER_PREFIX}BEGIN nonce={nonce}>>>"


def end_line(nonce: str) -> str:
    return f"{DELIMITER_PREFIX}END nonce={nonce}>>>"


def clean(text: str) -> str:
    """Drop invisible, format and control characters and normalise line breaks (both formats)."""
    return _STRAY_ZWJ_RE.sub("", _INVISIBLE_RE.sub("", _LINE_BREAK_RE.sub("\n", text)))


def neutralize(text: str) -> str:
    """Text that cannot forge the block, in either format: no delimiter runs (<<< >>>), no fences,
    no tags or chat-template tokens, and no structural markdown at line start. Lossy by design,
    but every character stays readable (look-alike substitutes, or a backslash escape)."""
    t = clean(text)
    t = _ANGLE_RUN_RE.sub(lambda m: ("\u2039" if m.group()[0] == "<" else "\u203a") * len(m.group()), t)
    t = _FENCE_RE.sub(lambda m: ("\u02cb" if m.group()[0] == "`" else "\u02dc") * len(m.group()), t)
    t = _TAG_OPEN_RE.sub("\u2039", t)
    t = neutralize_tokens(t)
    return _LINE_START_RE.sub(lambda m: f"{m.group(1)}\\{m.group(2)}", t)


def label(text: str) -> str:
    """A neutralised one-line label (speaker, triple part, file name, date, id)."""
    return neutralize(one_line(clean(text)))


def neutralize_tokens(text: str) -> str:
    """Only the chat-template bracket tokens ([INST], [/SYS], ...): applied to whole rendered
    lines, since a label and the renderer's own brackets could compose one."""
    return _SPECIAL_TOKEN_RE.sub(lambda m: f"\uff3b{m.group(1)}\uff3d", text)


def indent(text: str, gutter: str) -> str:
    """Prefix every line with `gutter`, so no stored line starts at column 0."""
    return "\n".join(gutter + line for line in text.split("\n"))


def one_line(text: str) -> str:
    """Collapse whitespace (for labels such as speaker or file name)."""
    return " ".join(text.split())


def xml_text(text: str) -> str:
    """Escape element text (& < >); the text is already neutralised."""
    return clean(text).translate(_XML_TEXT)


def xml_attr(text: str) -> str:
    """Escape an attribute value (& " < > ') on one line."""
    return one_line(clean(text)).translate(_XML_ATTR)
