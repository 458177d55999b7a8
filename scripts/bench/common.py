"""Shared helpers of the retrieval benchmarks: LoCoMo loading, dates, evidence ids, percentiles.

Kept apart from the scripts so the LoCoMo bench and the latency bench read the data the
same way (same turn ids, same timestamps) and the smoke tests can import them.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
LOCOMO_DEV = ROOT.parent / "shared" / "data" / "locomo" / "locomo-dev.json"
TURN_SPACING = timedelta(seconds=30)  # turns of one session get increasing times from the session start
_DATE_RE = re.compile(
    r"^\s*(\d{1,2}):(\d{2})\s*([ap]m)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})\s*$", re.IGNORECASE
)
_MONTHS = {m: i for i, m in enumerate(
    ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
     "november", "december"], start=1)}
_DIA_RE = re.compile(r"D:?(\d+):(\d+)")


@dataclass(frozen=True)
class Turn:
    dia_id: str
    speaker: str
    text: str
    timestamp: datetime


@dataclass
class Question:
    question: str
    category: int
    evidence: list[str]
    malformed: int = 0  # evidence entries that could not be read as a dia_id


@dataclass
class Conversation:
    sample_id: str
    speaker_a: str
    speaker_b: str
    turns: list[Turn] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)


def parse_session_date(value: str) -> datetime | None:
    """'1:56 pm on 8 May, 2023' -> an aware UTC datetime (None when the shape differs)."""
    m = _DATE_RE.match(value or "")
    if not m:
        return None
    hour, minute, ampm, day, month, year = m.groups()
    mon = _MONTHS.get(month.lower())
    if mon is None:
        return None
    h = int(hour) % 12 + (12 if ampm.lower() == "pm" else 0)
    return datetime(int(year), mon, int(day), h, int(minute), tzinfo=UTC)


def normalise_evidence(raw: Any) -> tuple[list[str], int]:
    """LoCoMo evidence entries as canonical "D<s>:<t>" ids, and how many entries were unreadable.

    Entries like "D:11:26" (a stray colon) or "D1:3 D1:5" (several ids in one string) are read
    leniently: every "D<digits>:<digits>" inside counts. Anything else counts as malformed.
    """
    ids: list[str] = []
    bad = 0
    for entry in raw if isinstance(raw, list) else [raw]:
        found = _DIA_RE.findall(str(entry)) if isinstance(entry, str) else []
        if not found:
            bad += 1
            continue
        for s, t in found:
            key = f"D{int(s)}:{int(t)}"
            if key not in ids:
                ids.append(key)
    return ids, bad


CAPTIONS = "+captions"  # the sample-id suffix of a conversation loaded with its photo captions


def load_locomo(path: Path, captions: bool = False) -> list[Conversation]:
    """The conversations of a LoCoMo file. With `captions`, a turn that shared a photo carries the photo's
    caption (LoCoMo's `blip_caption`) after its text, as a host that describes images sends it (OpenClaw's
    media understanding puts the description into the message body); the sample id says so ("+captions"),
    so a cache of the plain text is never reused for it."""
    data = json.loads(Path(path).read_text())
    out: list[Conversation] = []
    for conv in data:
        c = conv["conversation"]
        sample = str(conv.get("sample_id", len(out))) + (CAPTIONS if captions else "")
        item = Conversation(sample, c.get("speaker_a", "A"), c.get("speaker_b", "B"))
        sessions = sorted(
            (int(k.split("_")[1]), v) for k, v in c.items()
            if k.startswith("session_") and k.count("_") == 1 and isinstance(v, list)
        )
        last = datetime(2023, 1, 1, tzinfo=UTC)
        for n, turns in sessions:
            start = parse_session_date(c.get(f"session_{n}_date_time", "")) or last + timedelta(days=1)
            for i, t in enumerate(turns):
                if not isinstance(t, dict) or not t.get("text") or not t.get("dia_id"):
                    continue
                ts = start + i * TURN_SPACING
                speaker = str(t.get("speaker") or "unknown")
                text = str(t["text"])
                if captions and t.get("blip_caption"):
                    text = f"{text} [Image: {t['blip_caption']}]"
                item.turns.append(Turn(str(t["dia_id"]), speaker, text, ts))
                last = ts
        for qa in conv.get("qa", []):
            ev, bad = normalise_evidence(qa.get("evidence", []))
            item.questions.append(Question(str(qa.get("question", "")), int(qa.get("category", 0)), ev, bad))
        out.append(item)
    return out


def percentile(values: Sequence[float], p: float) -> float:
    """Nearest-rank percentile (p in 0-100); 0.0 for no values."""
    if not values:
        return 0.0
    s = sorted(values)
    k = max(0, min(len(s) - 1, math.ceil(p / 100 * len(s)) - 1))
    return s[k]


def fill_budget(texts: Sequence[tuple[str, str]], budget: int) -> list[str]:
    """Ids of whole (id, rendered line) pairs, in rank order, whose lines (+ newline) fit in `budget`.

    A line that does not fit is skipped and later, shorter ones may still fit (the baseline
    gets the same packing as the engine's local section)."""
    used, out = 0, []
    for item_id, line in texts:
        cost = len(line) + 1
        if used + cost > budget:
            continue
        out.append(item_id)
        used += cost
    return out


def parse_overrides(pairs: Sequence[str]) -> dict[str, Any]:
    """--set retrieval.recencyFloor=0.9 -> {"retrieval.recencyFloor": 0.9} (JSON values, else text)."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, _, raw = pair.partition("=")
        try:
            out[key.strip()] = json.loads(raw)
        except json.JSONDecodeError:
            out[key.strip()] = raw
    return out


def apply_overrides(cfg: dict[str, Any], overrides: dict[str, Any] | None) -> dict[str, Any]:
    """`cfg` with each dotted key of `overrides` set (sections made as needed)."""
    for key, value in (overrides or {}).items():
        node = cfg
        *path, last = key.split(".")
        for part in path:
            node = node.setdefault(part, {})
        node[last] = value
    return cfg
