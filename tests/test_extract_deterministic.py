"""Extraction gives the same facts in every process (issue 14): worker processes and restarts have their
own hash seeds, so no choice may follow a set's order. Found by running the tune stories under several
PYTHONHASHSEED values: 'zanele is my gf btw. shes a physio at milpark' gave the subject 'zanele' in
some processes and 'Zanele' in others."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

SCRIPT = """
from knowledge_engine.config import SpacyConfig
from knowledge_engine.extract.spacy_ner import SpacyTier
from knowledge_engine.model.records import Message
tier = SpacyTier(SpacyConfig(workers=0))
msg = Message(id="a", text="zanele is my gf btw. shes a physio at milpark", role="user", speaker="Lwazi",
              session="s")
for f in tier.extract([msg])[0].facts:
    print(f"{f.subject}|{f.predicate}|{f.object}")
"""


@pytest.mark.slow
def test_the_same_message_gives_the_same_facts_under_any_hash_seed() -> None:
    outputs = set()
    for seed in ("1", "5"):  # the two spellings, before the fix
        env = {**os.environ, "PYTHONHASHSEED": seed}
        proc = subprocess.run(
            [sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=600, check=False
        )
        assert proc.returncode == 0, proc.stderr[-2000:]
        outputs.add(proc.stdout)
    assert len(outputs) == 1, outputs
    assert "Zanele|works-at|Milpark" in outputs.pop().splitlines()
