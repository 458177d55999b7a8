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
"are" ("my kids r lily 8 and max 5"): its norm for the parse, its lemma for the rules. So are chat's
other short words ("the apt w tavo": "w" read as part of a noun until its norm was "with"; n, u, bc,
hr, wk...) and its dropped g's ("lookin", "doin": the `chat_g_dropped` component, first in the
pipeline, gives a word ending in "in" that is no English word and whose stem is a verb the norm of its
-ing form). Rules that test a word's text ("with") still see "w".
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from spacy.language import Language
from spacy.symbols import NORM, ORTH
from spacy.tokenizer import Tokenizer

if TYPE_CHECKING:
    from spacy.tokens import Doc

COMPONENT = "chat_contractions"
G_DROPPED = "chat_g_dropped"
_FORMS = ("im", "Im", "IM")
# Chat's short words, by the word they stand for: their norm for the parse ("the apt w tavo" read "w"
# as part of a noun; as "with" it is a preposition), their lemma for the rules
CHAT_WORDS = {
    "w": "with", "n": "and", "u": "you", "ur": "your", "bc": "because", "cuz": "because", "coz": "because",
    "tho": "though", "ppl": "people", "yr": "year", "yrs": "years", "wk": "week",
    "wks": "weeks", "mo": "month", "mos": "months", "hr": "hour", "hrs": "hours", "rn": "now",
}  # fmt: skip


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


@Language.component(G_DROPPED)
def _chat_g_dropped(doc: Doc) -> Doc:
    """Before the parse: chat's "makin", "doin", "lookin" get the norm of "making", "doing", "looking"
    (the model reads the norm), when the word is no English word and its stem is a verb."""
    words = _INDEX.get(id(doc.vocab))
    if words is None:
        return doc
    verbs, english = words
    for tok in doc:
        dropped = tok.is_alpha and tok.lower_.endswith("in") and tok.lower_ not in english
        if dropped and g_dropped_verb(tok.lower_, verbs) is not None:
            tok.norm_ = tok.lower_ + "g"
    return doc


def g_dropped_verb(word: str, verbs: frozenset[str]) -> str | None:
    """'make' for "makin", 'put' for "puttin", 'do' for "doin"; None for a word no verb drops into."""
    if len(word) < 4 or not word.endswith("in"):
        return None
    stem = word[:-2]
    for verb in (stem, stem + "e", stem[:-1] if len(stem) > 2 and stem[-1] == stem[-2] else ""):
        if verb and verb in verbs:
            return verb
    return None


# a pipeline's verbs and every word its index lists (a real word ending in "in" is no dropped g:
# "begin", "cousin"), by its vocab, set by install
_INDEX: dict[int, tuple[frozenset[str], frozenset[str]]] = {}


def lemma_index(nlp: Language) -> dict[str, frozenset[str]] | None:
    """The rule lemmatizer's word index of a loaded pipeline (WordNet's nouns, verbs, adjectives and
    adverbs), or None without one."""
    try:
        if "lemmatizer" not in nlp.pipe_names:
            return None
        lookups = getattr(nlp.get_pipe("lemmatizer"), "lookups", None)
        if lookups is None or not lookups.has_table("lemma_index"):
            return None
        table = lookups.get_table("lemma_index")
        return {pos: frozenset(table.get(pos, ())) for pos in ("noun", "verb", "adj", "adv")}
    except Exception:
        return None


@Language.component(COMPONENT)
def _chat_contractions(doc: Doc) -> Doc:
    words = _INDEX.get(id(doc.vocab))
    for tok in doc:  # a dropped g's verb: the lemma the rules key on
        if words is not None and tok.norm_.endswith("ing") and not tok.lower_.endswith("ing"):
            tok.lemma_ = g_dropped_verb(tok.lower_, words[0]) or tok.lemma_
    for tok in doc[1:]:
        prev = doc[tok.i - 1]
        if tok.text == "r" and tok.norm_ == "are" and tok.tag_ in {"VBP", "VB"}:
            tok.lemma_, tok.pos_ = "be", "AUX"  # chat's "r": the parse read it as "are" (its norm)
            continue
        if tok.text in CHAT_WORDS and tok.norm_ == CHAT_WORDS[tok.text]:
            tok.lemma_ = _CHAT_LEMMAS.get(tok.norm_, tok.norm_)
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


_CHAT_LEMMAS = {"years": "year", "weeks": "week", "months": "month", "hours": "hour", "people": "person"}


def install(nlp: Language) -> None:
    """Add the special cases and the component to a loaded English pipeline (once)."""
    tokenizer = cast(Tokenizer, nlp.tokenizer)
    for form in _FORMS:
        tokenizer.add_special_case(form, [{ORTH: form[0], NORM: "i"}, {ORTH: form[1], NORM: "'m"}])
    tokenizer.add_special_case("r", [{ORTH: "r", NORM: "are"}])  # "my kids r lily 8 and max 5"
    for short, word in CHAT_WORDS.items():
        tokenizer.add_special_case(short, [{ORTH: short, NORM: word}])
    if COMPONENT not in nlp.pipe_names:
        nlp.add_pipe(COMPONENT, last=True)
    index = lemma_index(nlp)
    if index is not None:
        _INDEX[id(nlp.vocab)] = (index["verb"], frozenset().union(*index.values()))
    if G_DROPPED not in nlp.pipe_names:
        nlp.add_pipe(G_DROPPED, first=True)
