"""Skip rules: which turns do not search, and that every skip is counted."""

from __future__ import annotations

import logging

import pytest

from knowledge_engine import observe
from knowledge_engine.config import SkipConfig
from knowledge_engine.retrieve.skip import is_acknowledgement, should_skip

CFG = SkipConfig()


def test_real_questions_are_not_skipped() -> None:
    for q in (
        "Where does Alice work now?",
        "ok so what did Bob say about the launch?",
        "Merci, et le budget 2024 ?",
        "hello, can you remind me of my dentist appointment",
        "write",
    ):
        assert should_skip(q, {"trigger": "user"}, CFG) is None, q


def test_short_and_empty() -> None:
    assert should_skip("ab", None, CFG) == "short"
    assert should_skip("  a  ", None, CFG) == "short"
    assert should_skip(None, None, CFG) == "no_text"
    assert should_skip("   ", None, CFG) == "no_text"
    assert should_skip(42, None, CFG) == "no_text"  # type: ignore[arg-type]
    assert should_skip("abcd", None, SkipConfig(min_query_chars=10)) == "short"


def test_context_reasons_in_order() -> None:
    ctx = {
        "sessionKey": "agent:main:subagent:x",
        "trigger": "heartbeat",
        "inputProvenance": {"kind": "internal_system"},
    }
    assert should_skip("What is Halcyon?", ctx, CFG) == "subagent_session"
    assert should_skip("What is Halcyon?", {"trigger": "Cron"}, CFG) == "trigger"
    assert should_skip("What is Halcyon?", {"trigger": "manual"}, CFG) is None
    assert (
        should_skip("What is Halcyon?", {"inputProvenance": {"kind": "inter_session"}}, CFG)
        == "non_human_input"
    )
    assert should_skip("What is Halcyon?", {"inputProvenance": {"kind": "external_user"}}, CFG) is None
    off = SkipConfig(non_human_input=False)
    assert should_skip("What is Halcyon?", {"inputProvenance": {"kind": "inter_session"}}, off) is None


def test_context_as_object() -> None:
    class Ctx:
        trigger = None
        session_key = "agent:a:active-memory:1"
        input_provenance = None

    assert should_skip("What is Halcyon?", Ctx(), CFG) == "subagent_session"


@pytest.mark.parametrize(
    "text",
    [
        "thanks",
        "Thank you so much!",
        "ok",
        "OK 👍",
        "hello",
        "Hi there",
        "good morning",
        "got it, thanks",
        "merci",
        "Merci beaucoup !",
        "bonjour",
        "salut",
        "d'accord",
        "D’accord, merci",
        "ça marche",
        "super merci",
    ],
)
def test_acknowledgements_en_fr(text: str) -> None:
    assert is_acknowledgement(text)
    expected = "short" if len(text) < CFG.min_query_chars else "acknowledgement"
    assert should_skip(text, None, CFG) == expected


@pytest.mark.parametrize(
    "text",
    [
        "thanks, what is the deadline?",
        "ok and the budget",
        "hello " * 10,
        "merci de me rappeler le code",
        "okapi",
    ],
)
def test_not_acknowledgements(text: str) -> None:
    assert not is_acknowledgement(text)


def test_acknowledgement_rule_can_be_disabled() -> None:
    assert should_skip("thanks", None, SkipConfig(acknowledgements=False)) is None


def test_custom_patterns_and_invalid_pattern_warned_once(caplog: pytest.LogCaptureFixture) -> None:
    cfg = SkipConfig(patterns=[r"^/\w+", "([unclosed", r"\bweather\b"])
    before = observe.counters.get("retrieval.skip.invalid_pattern")
    with caplog.at_level(logging.WARNING, logger="knowledge_engine"):
        assert should_skip("/status now", None, cfg) == "pattern"
        assert should_skip("What's the WEATHER like", None, cfg) == "pattern"
        assert should_skip("What is Halcyon?", None, cfg) is None
        should_skip("again", None, SkipConfig(patterns=["([unclosed"]))
    assert observe.counters.get("retrieval.skip.invalid_pattern") - before <= 1
    warnings = [r for r in caplog.records if "skip_pattern_invalid" in r.getMessage()]
    assert len(warnings) <= 1
    assert all("unclosed" not in r.getMessage() for r in caplog.records)


def test_hookclaw_patterns_only_when_enabled() -> None:
    on = SkipConfig(hookclaw_patterns=True)
    assert should_skip("Write a poem about the sea", None, CFG) is None
    assert should_skip("Write a poem about the sea", None, on) == "creative"
    assert should_skip("translate this to French", None, on) == "procedural"
    assert should_skip("help me with my taxes", None, on) == "meta"


def test_skips_are_counted() -> None:
    before = observe.counters.get("retrieval.skip.short")
    should_skip("x", None, CFG)
    assert observe.counters.get("retrieval.skip.short") == before + 1


def test_logs_never_contain_query_text(caplog: pytest.LogCaptureFixture) -> None:
    marker = "ZEBRA-7731-SECRET"
    cfg = SkipConfig(patterns=["(bad", marker.lower()], hookclaw_patterns=True)
    for q in (marker, f"thanks {marker}", f"write {marker}", "hi"):
        should_skip(q, {"trigger": "user"}, cfg)
    assert all(marker.lower() not in r.getMessage().lower() for r in caplog.records)
