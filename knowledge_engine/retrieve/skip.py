"""Should this turn search at all? Cheap rules that avoid retrieval where it cannot help.

Skipping matters as much as finding: a heartbeat, a sub-agent, or a bare "thanks"
gains nothing from injected knowledge, and injecting anyway costs tokens and latency.
Every skip is counted (`observe.counters`, "retrieval.skip.<reason>"); content never is.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from functools import lru_cache
from typing import Any

from knowledge_engine import observe
from knowledge_engine.config import SkipConfig
from knowledge_engine.host.types import payload_field

MAX_ACK_CHARS = 48

# Whole-message acknowledgements and greetings (EN + FR), as normalised word sequences.
_ACK_PHRASES = {
    "thanks", "thank you", "thx", "ty", "tysm", "cheers", "ok", "okay", "k", "kk", "okey", "alright",
    "all right", "cool", "great", "nice", "perfect", "awesome", "excellent", "got it", "sounds good",
    "noted", "understood", "roger", "yes", "yep", "yeah", "yup", "no", "nope", "sure", "of course",
    "hello", "hi", "hey", "hiya", "yo", "good morning", "good afternoon", "good evening", "good night",
    "bye", "goodbye", "see you", "see ya", "np", "no problem", "lol", "much appreciated", "appreciated",
    "you're welcome", "welcome", "great job", "well done", "nice one", "done",
    "merci", "merci beaucoup", "bonjour", "bonsoir", "salut", "coucou", "d'accord", "dac", "dacc",
    "ok merci", "parfait", "super", "génial", "genial", "top", "oui", "non", "ça marche", "ca marche",
    "bonne nuit", "bonne journée", "bonne journee", "bonne soirée", "bonne soiree", "à plus", "a plus",
    "à plus tard", "a plus tard", "au revoir", "bien reçu", "bien recu", "entendu", "nickel", "de rien",
    "très bien", "tres bien", "pas de souci", "pas de soucis", "c'est noté", "c'est note", "bravo",
}
# Words that may accompany an acknowledgement without making it a question.
_ACK_FILLERS = {
    "so", "much", "very", "a", "lot", "again", "there", "all", "everyone", "guys", "man", "mate",
    "buddy", "bro", "bot", "beaucoup", "bien", "tout", "le", "monde", "à", "tous", "encore",
    "vraiment", "mille", "fois", "and", "et", "oh", "ah", "well", "then", "alors",
}
_ACK_MAX_WORDS = max(len(p.split()) for p in _ACK_PHRASES)

# HookClaw's defaults (off unless skip.hookclawPatterns): creative, procedural, meta prompts.
_HOOKCLAW_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("creative", re.compile(r"^(write|create|generate|imagine|compose)\b", re.IGNORECASE)),
    ("procedural", re.compile(r"^(format|convert|translate|calculate)\b", re.IGNORECASE)),
    ("meta", re.compile(r"^(clear|reset|start over|help|thanks|ok|yes|no|sure)\b", re.IGNORECASE)),
)

_warned_patterns: set[str] = set()


def _normalise_words(text: str) -> list[str]:
    norm = unicodedata.normalize("NFKC", text).lower().replace("\u2019", "'").replace("`", "'")
    norm = "".join(ch if (ch.isalnum() or ch in "' ") else " " for ch in norm)
    return norm.split()


def is_acknowledgement(text: str) -> bool:
    """True when the whole message is only thanks/greeting/ok words (<= 48 characters)."""
    if len(text.strip()) > MAX_ACK_CHARS:
        return False
    words = _normalise_words(text)
    if not words:
        return False
    i, core = 0, False
    while i < len(words):
        for n in range(min(_ACK_MAX_WORDS, len(words) - i), 0, -1):
            phrase = " ".join(words[i : i + n])
            if phrase in _ACK_PHRASES:
                i, core = i + n, True
                break
        else:
            if words[i] not in _ACK_FILLERS:
                return False
            i += 1
    return core


@lru_cache(maxsize=64)
def _compile(patterns: tuple[str, ...]) -> tuple[re.Pattern[str], ...]:
    out = []
    for p in patterns:
        try:
            out.append(re.compile(p, re.IGNORECASE))
        except re.error:
            if p not in _warned_patterns:
                _warned_patterns.add(p)
                observe.counters.inc("retrieval.skip.invalid_pattern")
                observe.emit("skip_pattern_invalid", level=logging.WARNING, index=patterns.index(p))
    return tuple(out)


def _context_reason(ctx: Any, config: SkipConfig) -> str | None:
    if ctx is None:
        return None
    session_key = payload_field(ctx, "sessionKey", "session_key")
    if isinstance(session_key, str) and any(p and p in session_key for p in config.session_patterns):
        return "subagent_session"
    trigger = payload_field(ctx, "trigger")
    if isinstance(trigger, str) and trigger.lower() in {t.lower() for t in config.triggers}:
        return "trigger"
    provenance = payload_field(ctx, "inputProvenance", "input_provenance")
    if config.non_human_input and provenance is not None:
        kind = payload_field(provenance, "kind")
        if kind is not None and kind != "external_user":
            return "non_human_input"
    return None


def _text_reason(query: str | None, config: SkipConfig) -> str | None:
    if not isinstance(query, str) or not query.strip():
        return "no_text"
    text = query.strip()
    if len(text) < config.min_query_chars:
        return "short"
    if config.acknowledgements and is_acknowledgement(text):
        return "acknowledgement"
    if any(p.search(text) for p in _compile(tuple(config.patterns))):
        return "pattern"
    if config.hookclaw_patterns:
        for reason, pattern in _HOOKCLAW_PATTERNS:
            if pattern.search(text):
                return reason
    return None


def should_skip(query: str | None, ctx: Any, config: SkipConfig | None = None) -> str | None:
    """The reason to skip retrieval for this turn, or None to retrieve.

    Order: subagent_session, trigger, non_human_input (from the hook context), then
    no_text, short, acknowledgement, pattern, creative/procedural/meta (from the text).
    """
    cfg = config or SkipConfig()
    reason = _context_reason(ctx, cfg) or _text_reason(query, cfg)
    if reason is not None:
        observe.counters.inc(f"retrieval.skip.{reason}")
    return reason
