"""Safe FTS5 query builder: user text in, a MATCH expression out.

User text never reaches FTS5 as syntax. Every token is re-emitted inside double quotes
(embedded quotes doubled), so operators (AND/OR/NOT/NEAR), column filters (`text:`),
`^`, `*`, `+`, parentheses and braces from the user are plain words or separators.
Only three shapes are produced on purpose:

- plain words, OR-joined so BM25 ranks documents that match more (and rarer) words first;
- "exact phrases" the user quoted: FTS5 phrases that are required;
- `word*` prefixes (>= `MIN_PREFIX_CHARS` characters): FTS5 prefix phrases.

An empty expression (only stop words, punctuation or one-letter tokens) means "no results".
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field

MAX_QUERY_CHARS = 4096  # user text beyond this is ignored: queries are short, documents are not
DEFAULT_MAX_TERMS = 32  # cap on terms in one MATCH expression (bounds the cost of a query)
MIN_TOKEN_CHARS = 2
MIN_PREFIX_CHARS = 3  # shorter prefixes would expand to a large part of the vocabulary

# Tokens are runs of letters, digits and private-use characters, like FTS5's unicode61.
_TOKEN_RE = re.compile(r"[^\W_]+(?:\*)?")
_PHRASE_RE = re.compile(r'"([^"]*)"')

# English function words plus conversational fillers that carry no topic.
_STOP_TEXT = """
    a about above after again against all am an and any are aren't as at be because been before being below
    between both but by can cannot could did do does doing don down during each few for from further had has
    have having he her here hers herself him himself his how i if in into is it its itself just let me more
    most my myself no nor not now of off on once only or other ought our ours ourselves out over own same she
    should so some such than that the their theirs them themselves then there these they this those through
    to too under until up very was we were what when where which while who whom why will with would you your
    yours yourself yourselves also am ve ll re s t d m isn wasn weren hasn haven hadn doesn didn wouldn
    shan shouldn couldn mustn near
    remember recall tell told know knew known think thought say said says mention mentioned talk talked
    discuss discussed ask asked please thanks thank hey hi hello ok okay yes yeah yep nope sure well like
    really actually basically just maybe something anything everything thing things stuff kind sort get got
    us let lets can could would should might must shall want wanted need needed go going gonna wanna
    show find give me again earlier ago before
"""
STOP_WORDS: frozenset[str] = frozenset(_STOP_TEXT.split())


@dataclass(frozen=True)
class KeywordQuery:
    """A built query: the MATCH expression and the parts it was made of (for tests and stats)."""

    expression: str
    terms: tuple[str, ...] = ()
    phrases: tuple[str, ...] = ()
    prefixes: tuple[str, ...] = ()
    truncated: bool = False

    @property
    def empty(self) -> bool:
        return not self.expression

    def optional_parts(self) -> list[str]:
        """The OR-joined parts (quoted terms and prefixes); they widen the match set, phrases narrow it."""
        return [quote(t) for t in self.terms] + [quote(p) + " *" for p in self.prefixes]

    def keep_only(self, parts: Collection[str]) -> KeywordQuery:
        """The same query restricted to some of `optional_parts()` (phrases are always kept)."""
        terms = tuple(t for t in self.terms if quote(t) in parts)
        prefixes = tuple(p for p in self.prefixes if quote(p) + " *" in parts)
        expr = compose(list(self.phrases), list(terms), list(prefixes))
        return KeywordQuery(expr, terms, self.phrases, prefixes, self.truncated)


@dataclass
class QueryBuilder:
    """Turns free text into a safe FTS5 expression; stop words and the term cap are configurable."""

    max_terms: int = DEFAULT_MAX_TERMS
    extra_stop_words: Iterable[str] = ()
    _stop: frozenset[str] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._stop = STOP_WORDS | {w.lower() for w in self.extra_stop_words}
        self.max_terms = max(1, self.max_terms)

    def build(self, text: str) -> KeywordQuery:
        text = normalize(text[:MAX_QUERY_CHARS])
        phrases, rest = self._phrases(text)
        terms: list[str] = []
        prefixes: list[str] = []
        budget = self.max_terms - len(phrases)
        truncated = budget < 0
        phrases = phrases[: self.max_terms]
        for raw in _TOKEN_RE.finditer(rest):
            tok = raw.group(0).lower()
            is_prefix = tok.endswith("*")
            tok = tok.rstrip("*")
            if is_prefix and len(tok) >= MIN_PREFIX_CHARS:
                bucket = prefixes
            elif len(tok) >= MIN_TOKEN_CHARS and tok not in self._stop:
                bucket = terms
            else:
                continue
            if tok in bucket:
                continue
            if len(terms) + len(prefixes) >= budget:
                truncated = True
                break
            bucket.append(tok)
        expr = compose(phrases, terms, prefixes)
        return KeywordQuery(expr, tuple(terms), tuple(phrases), tuple(prefixes), truncated)

    def _phrases(self, text: str) -> tuple[list[str], str]:
        """Quoted spans become phrases (all their words kept); an unbalanced quote is a separator."""
        phrases: list[str] = []
        for m in _PHRASE_RE.finditer(text):
            words = [w.lower().rstrip("*") for w in _TOKEN_RE.findall(m.group(1))][: self.max_terms]
            phrase = " ".join(w for w in words if w)
            if not phrase:
                continue
            if len(words) == 1 and (len(phrase) < MIN_TOKEN_CHARS or phrase in self._stop):
                continue
            if phrase not in phrases:
                phrases.append(phrase)
        rest = _PHRASE_RE.sub(" ", text).replace('"', " ")
        return phrases, rest


def normalize(text: str) -> str:
    """NFKC-fold and drop characters that can never be part of a token or a separator we rely on."""
    text = unicodedata.normalize("NFKC", text)
    # Lone surrogates cannot be encoded for SQLite; control characters are separators anyway.
    return "".join(" " if (unicodedata.category(c) in ("Cs", "Cc")) else c for c in text)


def quote(token: str) -> str:
    """An FTS5 string literal: the only way user text enters an expression."""
    return '"' + token.replace('"', '""') + '"'


def compose(phrases: list[str], terms: list[str], prefixes: list[str]) -> str:
    """The MATCH expression: required phrases AND-ed, everything else OR-ed so BM25 ranks it."""
    optional = [quote(t) for t in terms] + [quote(p) + " *" for p in prefixes]
    if not phrases:
        return " OR ".join(optional)
    required = " AND ".join(quote(p) for p in phrases)
    if not optional:
        return required
    # The OR group is always satisfied by the phrases, so the other words rank but are not required.
    ranked = " OR ".join([quote(p) for p in phrases] + optional)
    return f"{required} AND ({ranked})"


_default = QueryBuilder()


def build_query(text: str, max_terms: int = DEFAULT_MAX_TERMS) -> KeywordQuery:
    """Build with the default stop words; see QueryBuilder for the rules."""
    if max_terms == DEFAULT_MAX_TERMS:
        return _default.build(text)
    return QueryBuilder(max_terms=max_terms).build(text)
