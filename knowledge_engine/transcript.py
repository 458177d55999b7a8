"""Reading transcripts (JSONL, one message a line) for `ingest` and the demo.

A bad line is reported with its line number and skipped; the rest is read.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import orjson
from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from knowledge_engine.store.records import Message


class TranscriptLine(BaseModel):
    model_config = ConfigDict(extra="ignore")

    id: str
    role: str
    text: str
    timestamp: datetime | None = None
    session: str | None = None
    speaker: str | None = None

    @field_validator("role")
    @classmethod
    def _role(cls, v: str) -> str:
        if v not in ("user", "assistant"):
            raise ValueError("must be 'user' or 'assistant'")
        return v

    @field_validator("id", mode="before")
    @classmethod
    def _id(cls, v: object) -> object:
        return str(v) if isinstance(v, int) else v


@dataclass
class TranscriptReport:
    read: int = 0
    errors: list[str] = field(default_factory=list)


def read_transcript(path: Path, report: TranscriptReport) -> Iterator[Message]:
    """Yield messages; problems go to `report.errors` as 'line N: reason'."""
    with open(path, "rb") as fh:
        for n, raw in enumerate(fh, 1):
            if not raw.strip():
                continue
            try:
                data = orjson.loads(raw)
                line = TranscriptLine.model_validate(data)
            except orjson.JSONDecodeError:
                report.errors.append(f"line {n}: not valid JSON")
                continue
            except ValidationError as exc:
                first = exc.errors()[0]
                where = ".".join(str(p) for p in first["loc"]) or "line"
                report.errors.append(f"line {n}: {where}: {first['msg']}")
                continue
            ts = line.timestamp or datetime.now(UTC)
            if ts.tzinfo is None:
                ts = ts.replace(tzinfo=UTC)
            report.read += 1
            yield Message(
                id=line.id,
                text=line.text,
                role=line.role,
                session=line.session,
                speaker=line.speaker,
                timestamp=ts,
            )


def count_lines(path: Path) -> int:
    with open(path, "rb") as fh:
        return sum(1 for line in fh if line.strip())
