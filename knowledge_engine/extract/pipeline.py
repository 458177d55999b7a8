"""The synchronous extraction pipeline: prepare text, run the local tiers, one result per message.

The LLM tier is not here: it is batched off the hot path by `extract.batcher`.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from knowledge_engine.config import ExtractionConfig
from knowledge_engine.extract.dates import attach_valid_at
from knowledge_engine.extract.text import prepare, worth_extracting
from knowledge_engine.extract.workers import WorkerPoolClosed
from knowledge_engine.model.extraction import Extraction, Extractor
from knowledge_engine.model.records import Message
from knowledge_engine.observe import counters

log = logging.getLogger("knowledge_engine.extract")


def build_tiers(config: ExtractionConfig, embedder: Callable[[], Any] | None = None) -> list[Extractor]:
    """The local tiers enabled in the config, cheapest first; `embedder` builds the model the spaCy
    tier's relations by example read with (the engine gives the local MiniLM; None: that pass is off)."""
    tiers: list[Extractor] = []
    if config.regex.enabled:
        from knowledge_engine.extract.regex import RegexTier

        tiers.append(RegexTier())
    if config.spacy.enabled:
        from knowledge_engine.extract.spacy_ner import SpacyTier

        spacy_tier = SpacyTier(config.spacy, max_chars=config.max_message_chars, embedder=embedder)
        if spacy_tier.available:
            tiers.append(spacy_tier)
            nlp = None if spacy_tier.out_of_process else spacy_tier.nlp
            if nlp is not None:  # in-process: its truecaser now, not on the first batch (workers do too)
                from knowledge_engine.extract.truecase import for_pipeline

                for_pipeline(nlp)
    return tiers


class ExtractionPipeline:
    """Runs every local tier over a batch of messages."""

    def __init__(
        self,
        config: ExtractionConfig,
        tiers: list[Extractor] | None = None,
        embedder: Callable[[], Any] | None = None,
    ) -> None:
        self.config = config
        self.tiers = tiers if tiers is not None else build_tiers(config, embedder)

    @property
    def tier_names(self) -> list[str]:
        return [t.name for t in self.tiers]

    def forget(
        self, names: Callable[[str], bool], session: str | None = None, scope: str | None = None
    ) -> None:
        """Apply a forget to what the tiers remember between messages (spaCy's session memory) of
        the workspace `scope` (None: every workspace's)."""
        for tier in self.tiers:
            if _remembers(tier):
                tier.forget(names, session, scope)  # type: ignore[attr-defined]

    def memory(self, scope: str) -> dict[str, Any]:
        """What the tiers remember between messages for the workspace `scope` (store/sessions.py
        keeps it across restarts), per tier name."""
        tiers = [t for t in self.tiers if _remembers(t)]
        return {t.name: t.memory(scope) for t in tiers}  # type: ignore[attr-defined]

    def restore_memory(self, scope: str, memory: dict[str, Any]) -> None:
        """Give each tier back what `memory` holds for it (a tier not in it starts empty)."""
        for tier in self.tiers:
            if _remembers(tier) and isinstance(memory.get(tier.name), dict):
                tier.restore_memory(scope, memory[tier.name])  # type: ignore[attr-defined]

    def prepare(self, messages: list[Message]) -> list[Message]:
        """Clean and cut texts; skip what is not worth extracting (counted)."""
        ready: list[Message] = []
        roles, max_chars = self.config.roles, self.config.max_message_chars
        for msg in messages:
            if msg.role not in roles:
                counters.inc("extract.skipped_role")
                continue
            text, truncated = prepare(msg.text, max_chars)
            if truncated:
                counters.inc("extract.truncated")
            if not worth_extracting(text):
                counters.inc("extract.skipped_empty")
                continue
            # Most texts come back unchanged (the same object): the message itself goes on, uncopied.
            ready.append(msg if text is msg.text else msg.model_copy(update={"text": text}))
        return ready

    def run(
        self,
        messages: list[Message],
        meanwhile: Callable[[], None] | None = None,
        scope: str | None = None,
        screen: Callable[[Message, Extraction], Extraction] | None = None,
    ) -> dict[str, list[Extraction]]:
        """Extractions per message id, from every tier (a failing tier is logged and skipped).

        A tier that runs in worker processes is started first in a helper thread, which only waits
        for the workers; the other tiers and `meanwhile` (the engine's message log writes) run in
        this thread at the same time, so the host's share of the work hides behind the parse.
        """
        ready = self.prepare(messages)
        out: dict[str, list[Extraction]] = {m.id: [] for m in ready}
        results: dict[str, list[Extraction] | None] = {}
        background = [t for t in self.tiers if ready and getattr(t, "out_of_process", False)]
        helper = None
        if background:
            helper = threading.Thread(
                target=self._run_tiers, args=(background, ready, results, scope, screen), daemon=True
            )
            helper.start()
        try:
            if meanwhile is not None:
                meanwhile()
            here = [t for t in self.tiers if t not in background] if ready else []
            self._run_tiers(here, ready, results, scope, screen)
        finally:
            if helper is not None:
                helper.join()
        for tier in self.tiers:  # merged in tier order, as if they had run one after the other
            for msg, ex in zip(ready, results.get(tier.name) or [], strict=False):
                _speaker_is_person(msg, ex)
                out[msg.id].append(ex)
        for msg in ready:
            _date_facts(msg, out[msg.id])
        return out

    @staticmethod
    def _run_tiers(
        tiers: list[Extractor],
        ready: list[Message],
        results: dict[str, list[Extraction] | None],
        scope: str | None = None,
        screen: Callable[[Message, Extraction], Extraction] | None = None,
    ) -> None:
        for tier in tiers:
            try:
                if _remembers(tier):  # its sessions are the workspace's
                    results[tier.name] = tier.extract(ready, scope=scope, screen=screen)  # type: ignore[call-arg]
                else:
                    results[tier.name] = tier.extract(ready)
            except Exception as exc:
                results[tier.name] = None
                if isinstance(exc, WorkerPoolClosed):  # engine stop: the batch is parked, not lost
                    counters.inc(f"extract.tier_stopped.{tier.name}")
                    continue
                counters.inc(f"extract.tier_failed.{tier.name}")
                log.error(
                    "extraction tier %s failed on a batch of %d: %s",
                    tier.name,
                    len(ready),
                    type(exc).__name__,
                )


def _remembers(tier: Extractor) -> bool:
    """A tier with session memory (spaCy's) takes a scope, a screen, a forget and a restore; asked by
    attribute, since spaCy is imported only when its tier is built."""
    return bool(getattr(tier, "remembers_sessions", False))


def _speaker_is_person(msg: Message, ex: Extraction) -> None:
    """A fact about the named speaker is about a person."""
    if not msg.speaker:
        return
    for f in ex.facts:
        if f.subject_type is None and f.subject.strip().lower() == msg.speaker.strip().lower():
            f.subject_type = "person"


def _date_facts(msg: Message, extractions: list[Extraction]) -> None:
    """A date in the sentence of a fact is when it became true ("I start at Acme on June 8")."""
    facts = [f for ex in extractions for f in ex.facts]
    if facts:
        dated = attach_valid_at(msg.text, msg.timestamp, facts)
        if dated:
            counters.inc("extract.facts_dated", dated)


def describe(pipeline: ExtractionPipeline) -> dict[str, Any]:
    return {"tiers": pipeline.tier_names}
