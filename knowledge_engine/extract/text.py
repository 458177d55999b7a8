"""Make message text safe to extract from: odd Unicode cleaned, size capped, junk recognised.

Every tier sees the same prepared text, so offsets of mentions from different tiers agree.
The prepared text is for extraction only; the message log keeps what the host sent.
"""

from __future__ import annotations

import re
import unicodedata

# Characters that carry no meaning for extraction and break words or regexes apart:
# C0/C1 controls except tab and newline, soft hyphen, Mongolian vowel separator, zero-width
# space, LRM/RLM, bidi embeddings/overrides/isolates, word joiner, BOM, and surrogates.
# ZWJ/ZWNJ (U+200C/D) are kept: they matter in Persian/Indic scripts and emoji sequences.
_ODD = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u00ad\u180e\u200b\u200e\u200f\u2028\u2029"
    "\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\ud800-\udfff]"
)
_SURROGATE = re.compile("[\ud800-\udfff]")
_LINE_BREAKS = re.compile("\r\n?|[\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")
_DROP = re.compile(
    "[\x00-\x08\x0e-\x1b\x1f\x7f-\x84\x86-\x9f\u00ad\u180e\u200b\u200e\u200f"
    "\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]"
)
# Something a tier could name: a letter or a digit in any script (emoji and punctuation are not \w).
_WORDISH = re.compile(r"[^\W_]")
# A sentence of a message as the text-level readers cut it (by its stop or its line), without a parse.
SENTENCES = re.compile(r"[^.!?\n]+[.!?]*")
# When a cut lands inside a word, back off to the last whitespace within this many characters.
_CUT_BACKOFF = 64


def _fix_surrogates(text: str) -> str:
    """Join valid UTF-16 pairs into one code point; replace lone halves with U+FFFD."""
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def _clean(text: str) -> str:
    if _SURROGATE.search(text):
        text = _fix_surrogates(text)
    text = _LINE_BREAKS.sub("\n", text)
    text = _DROP.sub("", text)
    if not text.isascii() and not unicodedata.is_normalized("NFC", text):
        text = unicodedata.normalize("NFC", text)
    return text


def _cut(text: str, max_chars: int) -> str:
    """First max_chars characters, not ending in the middle of a word when avoidable."""
    head = text[:max_chars]
    if text[max_chars].isspace() or head[-1].isspace():
        return head
    lo = max(0, len(head) - _CUT_BACKOFF)
    space = max(head.rfind(" ", lo), head.rfind("\n", lo), head.rfind("\t", lo))
    return head[:space] if space > 0 else head


def prepare(text: str, max_chars: int) -> tuple[str, bool]:
    """Cleaned text and whether it was truncated (the caller counts truncations).

    Removes NUL and other control characters (tab and newline are kept, CR/LS/PS become
    newline), zero-width and bidi-control characters, replaces lone surrogates with U+FFFD,
    and NFC-normalises. Letters of every script, RTL included, are kept as they are.
    """
    if max_chars < 1:
        raise ValueError("max_chars must be at least 1")
    if not isinstance(text, str):
        raise TypeError(f"text must be str, not {type(text).__name__}")
    # Fast path: plain ASCII/NFC text without odd characters is returned unchanged. Every odd
    # character is unprintable (a control, format or separator character), so printable text has none.
    if (not text.isprintable() and _ODD.search(text)) or not (
        text.isascii() or unicodedata.is_normalized("NFC", text)
    ):
        text = _clean(text)
    if len(text) <= max_chars:
        return text, False
    return _cut(text, max_chars), True


def worth_extracting(text: str) -> bool:
    """False for empty text, whitespace, and text made only of emoji, symbols or punctuation."""
    return bool(text) and _WORDISH.search(text) is not None
