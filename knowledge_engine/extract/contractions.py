"""Chat's apostrophe-less "im" read as "I'm" by the parse.

Why: lower-case chat writes "im backend dev at nubank", "im at korvus", "im 29". spaCy splits "im"
into "i" + "m" but gives the "m" the norm "m", so the small model tags it a verb of its own and the
line loses its copula: "backend dev" became a verb "backends" and "at korvus" hung on nothing. With
the norm "'m" (the tokenizer's special case) the parser attaches the attribute and the prepositions as
it does for "i'm", and the `chat_contractions` component (last in the pipeline) gives the "m" the
lemma and tags of "'m", which the fact rules key on. Same text, same offsets: only token attributes
change.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from spacy.language import Language
from spacy.symbols import NORM, ORTH
from spacy.tokenizer import Tokenizer

if TYPE_CHECKING:
    from spacy.tokens import Doc

COMPONENT = "chat_contractions"
_FORMS = ("im", "Im", "IM")


@Language.component(COMPONENT)
def _chat_contractions(doc: Doc) -> Doc:
    for tok in doc[1:]:
        prev = doc[tok.i - 1]
        if tok.lower_ == "m" and prev.lower_ == "i" and not prev.whitespace_:
            tok.lemma_, tok.pos_, tok.tag_ = "be", "AUX", "VBP"
    return doc


def install(nlp: Language) -> None:
    """Add the special cases and the component to a loaded English pipeline (once)."""
    tokenizer = cast(Tokenizer, nlp.tokenizer)
    for form in _FORMS:
        tokenizer.add_special_case(form, [{ORTH: form[0], NORM: "i"}, {ORTH: form[1], NORM: "'m"}])
    if COMPONENT not in nlp.pipe_names:
        nlp.add_pipe(COMPONENT, last=True)
