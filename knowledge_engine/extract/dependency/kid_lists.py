"""The speaker's children named in a list beside a word for them, inside a sentence: "Our two, Ella 7 and
Noah 4, are off school", "The girls (Maisie 9, Ruby 6) have swimming", "kids are ella (7) and noah (4)",
"Zara and Yusuf, my kids, love the park", "the wee one, Isla, has a cold", "I've got two kids, Lily who's 6
and Max who's 4".

Why: the parse hangs such lists anywhere (a name and its age read as one name, "Noah 4"; the second of a
pair dropped), so the rule reads the words in order: the word for the children (owned by "my", "our" or
"the", or "our two"), then names each with an optional age; or names, then ", my kids". A list after a
count alone ("our two") or after "the" ("the boys, Jack and Finn" may be friends)
must give every name an age. Someone else's children ("her girls") make nothing.
"""

from __future__ import annotations

from spacy.tokens import Span, Token

from knowledge_engine.extract.dependency.context import _Ctx, _emit
from knowledge_engine.extract.kids import MAX_CHILD_AGE
from knowledge_engine.extract.lexicon import NUMBER_WORDS
from knowledge_engine.extract.pupils import school_place
from knowledge_engine.extract.truecase import names as first_names

# a child named in a list: (name, age or None, school named beside it or None)
Kid = tuple[str, str | None, str | None]

_PLURALS = frozenset({"kids", "children", "boys", "girls", "sons", "daughters", "twins", "kiddos"})
_OWN = frozenset({"my", "our", "the"})
_COUNTS = frozenset({"two", "three", "four", "five", "2", "3", "4", "5", "both"})
_OPENERS = frozenset({",", "(", ":", "-", "–", "are", "r"})
_JOINS = frozenset({",", "and", "&", "n", "+"})


def kid_lists(sent: Span, ctx: _Ctx) -> None:
    """has-child (and is-aged) for each child a list beside a word for them names."""
    if ctx.message.role != "user":
        return
    words = [t for t in sent if not t.is_space]
    for k, tok in enumerate(words):
        if tok.lower_ == "one" and k > 1 and words[k - 1].lower_ in {"little", "wee"}:
            if words[k - 2].lower_ in _OWN:  # "the wee one, Isla", "my little one Isla": one child
                _one_named(words, k + 1, ctx)
        elif tok.lower_ in _PLURALS and _owned(words, k):  # "the boys, Jack and Finn" may be friends
            _after(words, k + 1, ctx, need_ages=_the(words, k))
        elif tok.lower_ in _COUNTS and k > 0 and words[k - 1].lower_ in {"our", "my"}:
            if k + 1 < len(words) and words[k + 1].lower_ not in _PLURALS:
                _after(words, k + 1, ctx, need_ages=True)
        elif (
            tok.text == ","
            and k + 2 < len(words)
            and words[k + 1].lower_ in {"my", "our"}
            and words[k + 2].lower_ in _PLURALS
        ):
            _before(words, k, ctx)


def _owned(words: list[Token], k: int) -> bool:
    """'my kids', 'our two boys', 'the girls': the speaker's (not "her girls", "Tom's kids")."""
    j = k - 1
    while j >= 0 and (
        words[j].like_num or words[j].lower_ in _COUNTS or words[j].lower_ in {"little", "wee"}
    ):
        j -= 1
    if j < 0 or words[j].is_punct:  # "kids are ella (7) and noah (4)", "- kids: noah 7": chat drops the "my"
        return k + 1 < len(words) and words[k + 1].lower_ in {"are", ":"}
    if words[j].lower_ in _HAVE:  # "I've got two kids, Lily who's 6 and ...": had by "I" or "we"
        return any(w.lower_ in {"i", "we"} for w in words[max(0, j - 3) : j])
    return words[j].lower_ in _OWN and not (j > 0 and words[j - 1].lower_ in {"'s", "’s", "of"})


_HAVE = frozenset({"have", "got", "'ve", "’ve", "ve"})


def _the(words: list[Token], k: int) -> bool:
    return any(w.lower_ == "the" for w in words[max(0, k - 3) : k])


def _after(words: list[Token], i: int, ctx: _Ctx, need_ages: bool) -> None:
    if i >= len(words) or words[i].lower_ not in _OPENERS:
        return
    items, _ = _items(words, i + 1)
    if len(items) < (2 if need_ages else 1) or (need_ages and any(age is None for _, age, _ in items)):
        return
    _tell(items, ctx)


def _one_named(words: list[Token], i: int, ctx: _Ctx) -> None:
    i += 1 if i < len(words) and words[i].text in {",", "-", "–"} else 0
    name = _name_at(words, i) if i < len(words) else None
    if name is not None:
        age, _ = _age_at(words, i + 1)
        _tell([(name, age, None)], ctx)


def _before(words: list[Token], comma: int, ctx: _Ctx) -> None:
    """'Zara and Yusuf, my kids': the names that open the sentence right before the comma."""
    items, end = _items(words, 0)
    if items and end == comma:
        _tell(items, ctx)


def _items(words: list[Token], i: int) -> tuple[list[Kid], int]:
    """Names, each with an optional age ("Ella 7", "Maisie (9)", "Ruby, 6") and an aside in brackets,
    joined by commas or "and"; and where the list ends."""
    out: list[Kid] = []
    while i < len(words):
        name = _name_at(words, i)
        if name is None:
            break
        i += len(name.split())
        age, i = _age_at(words, i)
        school, i = _aside(words, i)
        out.append((name, age, school))
        if i < len(words) and words[i].lower_ in _JOINS:
            j = (
                i + 1
                if words[i].text != "," or i + 1 >= len(words) or words[i + 1].lower_ not in _JOINS
                else i + 2
            )
            if j < len(words) and _name_at(words, j) is not None:
                i = j
                continue
        break
    return out, i


def _aside(words: list[Token], i: int) -> tuple[str | None, int]:
    """A bracketed aside after a child ("ellie 4 (ballard montessori)", "noah 7 (2nd grade @ whittier
    elem)"): the school it names, if any, and where the list goes on."""
    if i >= len(words) or words[i].text != "(":
        return None, i
    close = next((j for j in range(i + 1, min(i + 10, len(words))) if words[j].text == ")"), None)
    if close is None:
        return None, i
    inside = words[i + 1 : close]
    at = max((k for k, t in enumerate(inside) if t.lower_ in {"@", "at"}), default=-1)
    place = " ".join(t.text if not t.is_lower else t.text.capitalize() for t in inside[at + 1 :])
    named = bool(place) and school_place(place) and all(t.is_alpha for t in inside[at + 1 :])
    return (place if named else None), close + 1


def _name_at(words: list[Token], i: int) -> str | None:
    tok = words[i]
    if not tok.is_alpha or tok.lower_ in _JOINS:
        return None
    if (tok.text[0].isupper() and tok.pos_ == "PROPN") or tok.lower_ in first_names():
        return tok.text if tok.text[0].isupper() else tok.text.capitalize()
    return None


def _age_at(words: list[Token], i: int) -> tuple[str | None, int]:
    """The age right after a name: '7', '(7)', ', 7' (before the next name), 'aged 7', "who's 7"."""
    j = i + 1 if i < len(words) and words[i].text in {"(", ","} else i
    if j < len(words) and words[j].lower_ in {"aged", "age"}:
        j += 1
    elif j + 1 < len(words) and words[j].lower_ == "who" and words[j + 1].lower_ in {"'s", "’s", "is"}:
        j += 2
    if j >= len(words):
        return None, i
    value = NUMBER_WORDS.get(words[j].lower_) if not words[j].text.isdigit() else int(words[j].text)
    if value is None or not 0 < int(value) <= MAX_CHILD_AGE:
        return None, i
    j += 1
    if j < len(words) and words[j].text == ")":
        j += 1
    return str(value), j


def _tell(items: list[Kid], ctx: _Ctx) -> None:
    for name, age, school in items:
        if name == ctx.me:
            continue
        _emit(ctx, ctx.me, "has-child", name, 0.55, obj_tok=None, obj_type="person")
        if age is not None:
            _emit(ctx, name, "is-aged", age, 0.5, obj_tok=None)
        if school is not None:
            _emit(ctx, name, "attends", school, 0.5, obj_tok=None, obj_type="organization")
