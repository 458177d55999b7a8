"""The regex tier as the engine calls it: `ExtractionPipeline.prepare`, then the tier."""

from __future__ import annotations

from knowledge_engine.config import load_config
from knowledge_engine.extract.pipeline import ExtractionPipeline
from knowledge_engine.extract.regex import RegexTier
from knowledge_engine.model.records import Message


def pipeline() -> ExtractionPipeline:
    config = load_config({}).extraction
    return ExtractionPipeline(config, tiers=[RegexTier(config.regex)])


def test_prepare_passes_clean_messages_on_without_a_copy() -> None:
    msgs = [Message(id="a", text="We met Alice in Berlin."), Message(id="b", text="plain words")]
    ready = pipeline().prepare(msgs)
    assert [m is o for m, o in zip(ready, msgs, strict=True)] == [True, True]


def test_prepare_copies_a_message_whose_text_it_cleans() -> None:
    original = Message(id="a", text="Ali\u200bce met Bob\x00.")
    (ready,) = pipeline().prepare([original])
    assert ready.text == "Alice met Bob."
    assert ready is not original and original.text == "Ali\u200bce met Bob\x00."
    assert (ready.id, ready.role, ready.speaker) == (original.id, original.role, original.speaker)


def test_prepare_then_extract_as_the_engine_does() -> None:
    p = pipeline()
    msgs = [Message(id="a", text="We met Alice in Berlin."), Message(id="b", text="🎉🎉")]
    ready = p.prepare(msgs)
    (ex,) = p.tiers[0].extract(ready)
    assert ex.message_id == "a"
    assert [m.value for m in ex.mentions] == ["Alice", "Berlin"]
