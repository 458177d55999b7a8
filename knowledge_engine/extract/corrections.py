"""Corrections in chat: "sorry, I meant Leeds not Leicester", "no wait, it's Dennistoun, not Dalmarnock",
"correction: my manager is Dana Reyes".

A pure text reading (no parse): the workspace applies it (store.workspace), because a correction
refers to a fact stated before, whatever its relation. Two forms:

- a swap: a correction cue ("sorry", "I meant", "no wait", "oops", "my bad", "correction", "typo",
  "scratch that", "autocorrect") and, in the same sentence after it, "X not Y", "X, not Y",
  "X rather than Y", "X instead of Y" or "not Y but X": `right` X replaces `wrong` Y wherever the
  last message that stated Y put it;
- a restatement: the message opens with "correction:" (or "to correct myself", "scratch that",
  "I meant to say") and states a fact: that fact replaces what was said before in its slot.

Both values of a swap are short (at most `MAX_WORDS` words each); anything longer is not a
correction this reading trusts, and gives nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_WORDS = 5

_CUE = (
    r"(?:sorry|soz|oops|whoops|my bad|my mistake|correction|no wait|wait no|wait|typo|scratch that"
    r"|i meant(?: to say)?|i mean|meant to say|autocorrect(?:ed)?|i misspoke|i got that wrong)"
)
_CUE_RE = re.compile(rf"(?<![\w']){_CUE}(?![\w'])", re.IGNORECASE)
# what may stand between a cue and the right value: "I meant", "it's", "it should be"
_LEAD = (
    r"(?>\s*[,:;.!-]+\s*|\s+)(?:(?:i meant(?: to say)?|i mean|meant to say|it'?s|it is|it was|that'?s|that is"
    r"|that should be|it should be|should be|should have said|make that)\s+)?"
)
_VALUE = r"[^\s,.;:!?()\"]+(?:\s+[^\s,.;:!?()\"]+){0,%d}".replace("%d", str(MAX_WORDS - 1))
_END = r"\s*(?:[,.;:!?)]|$)"
# A swap is a few words after its cue: only this much of the text after each of the first cues is read,
# so a long message full of cues stays linear (the atomic groups keep whitespace runs from backtracking).
_SPAN = 300
_MAX_CUES = 50
_SWAP_RE = re.compile(
    rf"^{_LEAD}(?P<right>{_VALUE}?)(?>\s*,\s*|\s+)(?:not|rather than|instead of)\s+(?P<wrong>{_VALUE}){_END}",
    re.IGNORECASE,
)
_NOT_BUT_RE = re.compile(
    rf"^{_LEAD}not\s+(?P<wrong>{_VALUE}?)(?>\s*,\s*|\s+)(?:but|it'?s|it is)\s+(?P<right>{_VALUE}){_END}",
    re.IGNORECASE,
)
_RESTATE_RE = re.compile(
    r"^\W*(?:correction|to correct myself|scratch that|i meant to say|let me correct that)\s*[,:;-]\s*\S",
    re.IGNORECASE,
)
# words that open either value but are not part of it: "in Leeds not in Leicester", "the Corsa"
_LEADING = frozenset(
    {"the", "a", "an", "in", "at", "to", "from", "with", "for", "on", "my", "our", "its", "it's"}
)
# words no corrected value holds: a clause ("Sorry I did not reply", "I mean it is not easy"), not a value
_NOT_VALUE_WORDS = frozenset(
    [
        "i",
        "me",
        "you",
        "he",
        "him",
        "she",
        "her",
        "we",
        "us",
        "they",
        "them",
        "it",
        "this",
        "that",
        "these",
        "those",
        "is",
        "am",
        "are",
        "was",
        "were",
        "be",
        "been",
        "do",
        "did",
        "does",
        "have",
        "has",
        "had",
        "can",
        "could",
        "will",
        "would",
        "should",
        "to",
        "sure",
        "really",
        "just",
        "only",
        "yet",
        "so",
        "very",
        "too",
        "much",
        "about",
    ]
)


@dataclass(frozen=True)
class Correction:
    """What a message corrects: a swap (`right` replaces `wrong`) or a restatement (both None)."""

    right: str | None = None
    wrong: str | None = None

    @property
    def is_swap(self) -> bool:
        return self.right is not None and self.wrong is not None


def _value(text: str) -> str | None:
    words = text.strip().split()
    while words and words[0].lower() in _LEADING:
        words = words[1:]
    if not words or len(words) > MAX_WORDS or any(w.lower() in _NOT_VALUE_WORDS for w in words):
        return None
    return " ".join(words)


def parse_correction(text: str) -> Correction | None:
    """The correction a message makes, or None (see the module docstring)."""
    for n, cue in enumerate(_CUE_RE.finditer(text)):
        if n >= _MAX_CUES:
            break
        rest = text[cue.end() : cue.end() + _SPAN]
        for pattern in (_NOT_BUT_RE, _SWAP_RE):
            m = pattern.match(rest)
            if m is None:
                continue
            right, wrong = _value(m.group("right")), _value(m.group("wrong"))
            if right and wrong and right.lower() != wrong.lower():
                return Correction(right=right, wrong=wrong)
    if _RESTATE_RE.match(text):
        return Correction()
    return None
