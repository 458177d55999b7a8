"""A line break in a chat message ends a sentence for the parse.

Why: people write one thought per line and leave the full stop off ("got the job at tesco starting
monday" / "my manager is dave"). The small English model, trained on edited text, ran such lines
into one sentence: the second line's "my manager is dave" became a conjunct of the first line's verb,
and the rules that read "my X is Y" from a sentence's own clause found none. The `chat_line_breaks`
component (before the parser) makes the word after a newline start a sentence; the parser keeps the
boundaries it is given. Same text, same offsets. A colon after a short lead-in ("let me correct
that: I drive ...") ends one too, before the speaker's own clause.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from spacy.language import Language

if TYPE_CHECKING:
    from spacy.tokens import Doc

COMPONENT = "chat_line_breaks"


# A short lead-in and a colon before the speaker's own clause: "let me correct that: I drive a
# Škoda" (the parser made the clause an object of "let", a request, and no rule read it).
_LEAD_IN = 8
_OWN_CLAUSE = frozenset({"i", "we", "my", "our"})

# A label and a colon that open a line ("update: finished at Bellway on Friday, started at Taylor
# Wimpey", "Big news: sold the Yaris"): the clause after it drops its "I", and run into the label
# the parser made the label its subject ("Taylor Wimpey worked at Bellway"). Any clause after one.
_LABEL_LEAD_IN = 3
_LABELS = frozenset({"update", "news", "fyi", "ps", "edit", "recap", "status"})


# A bulleted note ("- mgr: Priyanka Rao", "• Car: 2017 Skoda Fabia") is one sentence: the parser
# made the bullet a sentence of its own and the key another ("mgr:" / "Priyanka Rao"), and the
# rules for a note's key and value (dependency/notes.py) saw neither together.
BULLETS = frozenset({"-", "*", "•", "–", "—", "·", ">"})
_KEY_WORDS = 3  # at most this many words before a note's colon


@Language.component(COMPONENT)
def _line_breaks(doc: Doc) -> Doc:
    line_start = 0
    for tok in doc[1:]:
        prev = doc[tok.i - 1]
        if prev.is_space and "\n" in prev.text and not tok.is_space:
            tok.is_sent_start = True
            line_start = tok.i
        elif prev.text == ":" and _clause_after_colon(doc, tok.i, line_start):
            tok.is_sent_start = True
        elif _within_a_note(doc, tok.i, line_start):
            tok.is_sent_start = False
    return doc


def _clause_after_colon(doc: Doc, i: int, line_start: int) -> bool:
    """The colon before token `i` ends a short lead-in before the speaker's own clause, or closes a
    short label that opens its line ("Quick update:")."""
    if doc[i].lower_ in _OWN_CLAUSE and i - line_start <= _LEAD_IN:
        return True
    return (
        i - 1 - line_start <= _LABEL_LEAD_IN and i >= 2 and doc[i - 2].lower_ in _LABELS and doc[i].is_alpha
    )


def _within_a_note(doc: Doc, i: int, line_start: int) -> bool:
    """Token `i` is the word after a line's bullet, or the value after the colon of its short key."""
    if doc[line_start].text not in BULLETS or doc[i].is_space:
        return False
    if i == line_start + 1:
        return True
    return doc[i - 1].text == ":" and i - 1 - line_start <= _KEY_WORDS + 1


def install(nlp: Language) -> None:
    """Add the component before the parser of a loaded pipeline (once); a pipeline without a parser
    (the NER-only tier) needs none."""
    if COMPONENT not in nlp.pipe_names and "parser" in nlp.pipe_names:
        nlp.add_pipe(COMPONENT, before="parser")
