"""An extraction worker builds its truecaser while it warms up, not on its first batch.

Why: car names are restored by the truecaser whatever `spacy.truecase` says, so every worker needs
it; built on the first batch (~0.12 s: Faker's names, the word index) it delayed the host's first
messages. The worker's counters reach the parent with its "ready" reply and with each batch, so
where the build happened is observable without timing anything.
"""

from __future__ import annotations

from knowledge_engine.config import SpacyConfig
from knowledge_engine.extract.spacy_ner import SpacyTier
from knowledge_engine.model.records import Message
from knowledge_engine.observe import counters


def test_the_worker_is_ready_with_its_truecaser_built() -> None:
    built = counters.get("extract.truecase.built")
    started = counters.get("extract.spacy.workers.started")
    truecased = counters.get("extract.spacy.truecased")
    # truecase off: names are left alone, car names are still restored (so the truecaser is needed)
    tier = SpacyTier(SpacyConfig(workers=1, truecase=False))
    try:
        assert tier.available, "the test environment must have the spaCy model installed"
        assert counters.get("extract.spacy.workers.started") == started + 1  # a fresh worker
        assert counters.get("extract.truecase.built") == built + 1  # reported with "ready"
        tier.extract([Message(id="m1", text="i finally sold my old vw polo last week", role="user")])
        assert counters.get("extract.spacy.truecased") == truecased + 1  # the batch used it...
        assert counters.get("extract.truecase.built") == built + 1  # ...and did not build it
    finally:
        tier.close()
