"""Chat's apostrophe-less "im" read as "I'm" by the parse.

Why: lower-case chat writes "im backend dev at nubank", "im at korvus", "im 29". spaCy splits "im"
into "i" + "m" but gives the "m" the norm "m", so the small model tags it a verb of its own and the
line loses its copula: "backend dev" became a verb "backends" and "at korvus" hung on nothing. With
the norm "'m" (the tokenizer's special case) the parser attaches the attribute and the prepositions as
it does for "i'm", and the `chat_contractions` component (last in the pipeline) gives the "m" the
lemma and tags of "'m", which the fact rules key on. Same text, same offsets: only token attributes
change.

spaCy's own tokenizer already splits "ive", "weve", "theyre", "hes" ("i" + "ve", "he" + "s"), with
the right norm but the lemma "ve" / "re" / "s": the rules that ask for a perfect's "have" ("ive got
asthma") or a copula ("hes a nurse") found none. The component gives those the lemma of the
apostrophe form too ("s" before a participle is "has": "hes been at Tesco for years"). Chat's "r" is
"are" ("my kids r lily 8 and max 5"): its norm for the parse, its lemma for the rules.
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


# the verb half of an apostrophe-less contraction, by the pronoun it is glued to: its lemma
_GLUED = {
    ("i", "m"): "be",
    ("i", "ve"): "have",
    ("we", "ve"): "have",
    ("you", "ve"): "have",
    ("they", "ve"): "have",
    ("we", "re"): "be",
    ("you", "re"): "be",
    ("they", "re"): "be",
    ("he", "s"): "be",
    ("she", "s"): "be",
}


@Language.component(COMPONENT)
def _chat_contractions(doc: Doc) -> Doc:
    for tok in doc[1:]:
        prev = doc[tok.i - 1]
        if tok.text == "r" and tok.norm_ == "are" and tok.tag_ in {"VBP", "VB"}:
            tok.lemma_, tok.pos_ = "be", "AUX"  # chat's "r": the parse read it as "are" (its norm)
            continue
        lemma = _GLUED.get((prev.lower_, tok.lower_))
        if lemma is None or prev.whitespace_:
            continue
        if tok.lower_ == "s" and tok.i + 1 < len(doc) and doc[tok.i + 1].tag_ == "VBN":
            lemma = "have"  # "hes been at Tesco", "shes got a new job"
        tok.lemma_, tok.pos_ = lemma, "AUX"
        if tok.lower_ == "m":
            tok.tag_ = "VBP"
    return doc


def install(nlp: Language) -> None:
    """Add the special cases and the component to a loaded English pipeline (once)."""
    tokenizer = cast(Tokenizer, nlp.tokenizer)
    for form in _FORMS:
        tokenizer.add_special_case(form, [{ORTH: form[0], NORM: "i"}, {ORTH: form[1], NORM: "'m"}])
    tokenizer.add_special_case("r", [{ORTH: "r", NORM: "are"}])  # "my kids r lily 8 and max 5"
    if COMPONENT not in nlp.pipe_names:
        nlp.add_pipe(COMPONENT, last=True)
