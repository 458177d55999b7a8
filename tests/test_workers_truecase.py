"""An extraction worker builds its truecaser while it warms up, not on its first batch.

Why: car names are restored by the truecaser whatever `spacy.truecase` says, so every worker needs
it; built on the first batch (~0.12 s: Faker's names, the word index) it delayed the host's first
messages. The worker's counters reach the parent with its "ready" reply and with each batch, so
where the build happened is observable without timing anything. The in-process tier (workers = 0)
builds it with the pipeline, in the engine's warm-up thread.
"""

from __future__ import annotations

import subprocess
import sys

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


_IN_PROCESS = """
from knowledge_engine.config import ExtractionConfig
from knowledge_engine.extract.pipeline import ExtractionPipeline
from knowledge_engine.model.records import Message
from knowledge_engine.observe import counters

pipeline = ExtractionPipeline(ExtractionConfig(llm={"enabled": False}, spacy={"workers": 0}))
warm = counters.get("extract.truecase.built")
pipeline.run([Message(id="m1", text="i finally sold my old vw polo last week", role="user")])
print(warm, counters.get("extract.truecase.built"), counters.get("extract.spacy.truecased"))
"""


def test_the_in_process_tier_builds_its_truecaser_with_the_pipeline() -> None:
    """workers = 0 ("auto" on one core): the pipeline's build (the engine's warm-up) makes it. A fresh
    process, since the truecaser is built once per process and per loaded pipeline."""
    done = subprocess.run([sys.executable, "-c", _IN_PROCESS], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    warm, after_batch, truecased = (int(n) for n in done.stdout.split())
    assert (warm, after_batch, truecased) == (1, 1, 1)  # built before the batch, used by it
