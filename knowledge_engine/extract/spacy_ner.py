"""spaCy tier: named entities typed by the statistical model, plus dependency-parse facts.

One nlp.pipe call per batch (batching is what makes spaCy fast); each Doc is used twice: its
entities become Mentions and, when facts are on, extract.dependency turns its parse into
triples. If the model cannot load, the tier reports itself unavailable and returns empty
Extractions, so the engine keeps running on the regex tier.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from knowledge_engine.config import SpacyConfig
from knowledge_engine.extract import dependency
from knowledge_engine.extract.base import Extraction, FactCandidate, Mention
from knowledge_engine.extract.nlp import LABEL_TYPES, UNUSED_FOR_FACTS, UNUSED_FOR_NER, load_nlp, parse
from knowledge_engine.extract.regex import initial_importance
from knowledge_engine.extract.text import worth_extracting
from knowledge_engine.observe import counters, log
from knowledge_engine.store.records import Message

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc, Span

# CARDINAL, ORDINAL, PERCENT and QUANTITY are not entities worth remembering.
_DETERMINERS = frozenset(
    {"the", "a", "an", "this", "that", "these", "those", "my", "our", "your", "his", "her", "their", "its"}
)
_POSSESSIVES = frozenset({"'s", "’s", "'", "’"})
_EDGE_PUNCT = frozenset("\"'“”‘’()[]{}<>,.;:!?-–—*_#")
# Relative dates ("today", "a year", "last week") are not durable entities; keep a DATE/TIME
# only when it names a day, month or number.
_CALENDAR_WORDS = frozenset(
    {
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
        "jan",
        "feb",
        "mar",
        "apr",
        "jun",
        "jul",
        "aug",
        "sep",
        "sept",
        "oct",
        "nov",
        "dec",
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
        "christmas",
        "easter",
    }
)
_MAX_VALUE_CHARS = 100
DEFAULT_MAX_CHARS = 32768


class SpacyTier:
    """NER mentions and parse facts from a real spaCy pipeline, loaded once per process."""

    name = "spacy"

    def __init__(self, config: SpacyConfig | None = None, max_chars: int = DEFAULT_MAX_CHARS) -> None:
        self.config = config or SpacyConfig()
        # Parser memory grows with text length; callers prepare() texts, this is a backstop.
        self.max_chars = max_chars

    @property
    def nlp(self) -> Language | None:
        if not self.config.enabled:
            return None
        exclude = UNUSED_FOR_FACTS if self.config.facts else UNUSED_FOR_NER
        return load_nlp(self.config.model, exclude)

    @property
    def available(self) -> bool:
        """False when disabled or when the configured model could not load."""
        return self.nlp is not None

    def extract(self, messages: list[Message]) -> list[Extraction]:
        out = [Extraction(message_id=m.id) for m in messages]
        nlp = self.nlp
        if nlp is None:
            return out
        todo = [i for i, m in enumerate(messages) if worth_extracting(m.text)]
        docs = self._parse(nlp, [self._text(messages[i]) for i in todo])
        for i, doc in zip(todo, docs, strict=True):
            if doc is not None:
                out[i] = self._from_doc(doc, messages[i])
        return out

    def _text(self, message: Message) -> str:
        if len(message.text) > self.max_chars:
            counters.inc("extract.spacy.cut")
            return message.text[: self.max_chars]
        return message.text

    def _parse(self, nlp: Language, texts: list[str]) -> list[Doc | None]:
        """One nlp.pipe call; if the batch fails, retry one by one so one bad text costs only itself."""
        if not texts:
            return []
        try:
            return list(parse(nlp, texts, self.config.batch_size))
        except Exception as exc:
            counters.inc("extract.spacy.batch_failed")
            log.warning("spaCy batch of %d failed (%s); retrying one by one", len(texts), type(exc).__name__)
        docs: list[Doc | None] = []
        for text in texts:
            try:
                docs.append(nlp(text))
            except Exception:
                counters.inc("extract.spacy.failed")
                docs.append(None)
        return docs

    def _from_doc(self, doc: Doc, message: Message) -> Extraction:
        mentions = entity_mentions(doc)
        facts: list[FactCandidate] = []
        if self.config.facts:
            try:
                facts = list(dependency.extract_triples(doc, message))
            except Exception as exc:
                counters.inc("extract.spacy.facts_failed")
                log.warning("dependency facts failed for message %s: %s", message.id, type(exc).__name__)
        return Extraction(message_id=message.id, mentions=mentions, facts=facts)


def entity_mentions(doc: Doc) -> list[Mention]:
    """Typed mentions of a parsed Doc's entities, trimmed to the name itself."""
    mentions: list[Mention] = []
    for ent in doc.ents:
        type_ = LABEL_TYPES.get(ent.label_)
        if type_ is None:
            continue
        span = _trim(ent, type_)
        if span is None:
            continue
        value = " ".join(span.text.split())
        if not _keep(value, type_):
            continue
        mentions.append(
            Mention(
                value=value,
                type=type_,
                tier="spacy",
                start=span.start_char,
                end=span.end_char,
                importance=initial_importance(type_, value),
            )
        )
    return mentions


def _trim(ent: Span, type_: str) -> Any:
    """Drop leading determiners, a trailing possessive and edge punctuation; add a currency sign."""
    doc = ent.doc
    start, end = ent.start, ent.end
    while end - start > 1 and doc[start].lower_ in _DETERMINERS:
        start += 1
    while end - start > 1 and (doc[end - 1].text in _POSSESSIVES or doc[end - 1].text in _EDGE_PUNCT):
        end -= 1
    while end - start > 1 and doc[start].text in _EDGE_PUNCT:
        start += 1
    if type_ == "money" and start > 0 and doc[start - 1].is_currency:
        start -= 1  # the small model leaves "$" outside "85,000"
    span = doc[start:end]
    return span if span.text.strip() else None


def _keep(value: str, type_: str) -> bool:
    if not value or len(value) > _MAX_VALUE_CHARS:
        return False
    if type_ == "date":
        return any(c.isdigit() for c in value) or any(w in _CALENDAR_WORDS for w in value.lower().split())
    if type_ == "money":
        return any(c.isdigit() for c in value)
    return any(c.isalpha() for c in value)
