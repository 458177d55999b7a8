"""Reading transcripts (JSONL, one message a line) for `ingest` and the demo.

A bad line is reported with its line number and skipped; the rest is read. The encoding is
told by the byte-order mark: UTF-8 (with or without a BOM), UTF-16 and UTF-32 (LE or BE, with a
BOM). `inspect_transcript` checks the whole file first, so a file in another encoding (Latin-1,
UTF-16 without a BOM) is one clear error naming the first bad byte, not every line skipped.
"""

from __future__ import annotations

import codecs
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import BinaryIO

import orjson
from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from knowledge_engine.model.records import Message

CHUNK = 1 << 20
# (BOM, codec, label); UTF-32 LE first: its BOM starts with UTF-16 LE's
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32", "UTF-32 LE"),
    (codecs.BOM_UTF32_BE, "utf-32", "UTF-32 BE"),
    (codecs.BOM_UTF8, "utf-8-sig", "UTF-8 with BOM"),
    (codecs.BOM_UTF16_LE, "utf-16", "UTF-16 LE"),
    (codecs.BOM_UTF16_BE, "utf-16", "UTF-16 BE"),
)


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


class TranscriptError(Exception):
    """The file cannot be read as a transcript at all (the message says why)."""


@dataclass(frozen=True)
class TranscriptInfo:
    encoding: str  # e.g. "UTF-8", "UTF-16 LE"
    codec: str
    lines: int  # non-blank lines


def sniff(head: bytes) -> tuple[str, str]:
    """(codec, label) from the byte-order mark; UTF-8 without one."""
    for bom, codec, label in _BOMS:
        if head.startswith(bom):
            return codec, label
    return "utf-8", "UTF-8"


def inspect_transcript(path: Path) -> TranscriptInfo:
    """Check that `path` is a file readable in its encoding and count its lines; TranscriptError if not."""
    if path.is_dir():
        raise TranscriptError(f"transcript {path} is a directory, not a file")
    if not path.exists():
        raise TranscriptError(f"transcript {path} not found")
    if not path.is_file():
        raise TranscriptError(f"transcript {path} is not a regular file")
    try:
        with open(path, "rb") as fh:
            codec, label = sniff(fh.read(4))
            fh.seek(0)
            return TranscriptInfo(label, codec, _count_decoded(path, fh, codec, label))
    except OSError as exc:
        why = exc.strerror or type(exc).__name__
        raise TranscriptError(f"transcript {path} cannot be read: {why}") from exc


def json_array_items(path: Path, codec: str) -> int | None:
    """How many items a file holds that is one JSON array (a chat export, often pretty-printed) instead
    of JSONL; None for anything else. A transcript line is an object, so a file starting with "[" is
    never one: without this, every line of the array was reported as a skipped line."""
    with open(path, encoding=codec, errors="replace") as fh:
        if not fh.read(4096).lstrip().startswith("["):
            return None
    try:
        data = orjson.loads(path.read_text(encoding=codec))
    except (orjson.JSONDecodeError, UnicodeDecodeError):
        return None
    return len(data) if isinstance(data, list) else None


def _count_decoded(path: Path, fh: BinaryIO, codec: str, label: str) -> int:
    """Decode the whole file strictly (in chunks) and count its non-blank lines."""
    decoder = codecs.getincrementaldecoder(codec)("strict")
    offset = lines = newlines = 0
    open_line = False  # the current (unfinished) line has content
    while True:
        chunk = fh.read(CHUNK)
        try:
            text = decoder.decode(chunk, final=not chunk)
        except UnicodeDecodeError as exc:
            start = offset + len(chunk) - len(exc.object) + exc.start  # the decoder may hold earlier bytes
            seen = codecs.decode(exc.object[: exc.start], codec, "replace").count("\n")
            raise TranscriptError(_not_decodable(path, label, exc, start, newlines + seen + 1)) from exc
        offset += len(chunk)
        *done, rest = text.split("\n")
        for part in done:
            lines += open_line or bool(part.strip())
            open_line = False
        newlines += len(done)
        open_line = open_line or bool(rest.strip())
        if not chunk:
            return lines + open_line


def _not_decodable(path: Path, label: str, exc: UnicodeDecodeError, offset: int, line: int) -> str:
    bad = exc.object[exc.start : exc.start + 1].hex().upper()
    where = f"byte 0x{bad} at byte offset {offset} (line {line})" if bad else f"at byte offset {offset}"
    if label != "UTF-8":
        return f"transcript {path} is not valid {label} (its byte-order mark says so): {where}"
    if exc.reason == "unexpected end of data":
        return f"transcript {path} ends in the middle of a UTF-8 character (cut short?): {where}"
    if b"\x00" in exc.object[:4096]:
        guess = "looks like UTF-16 or UTF-32 without a byte-order mark?"
    else:
        guess = "looks like Latin-1?"
    return (
        f"transcript {path} is not UTF-8 ({guess}): {where} is not valid UTF-8; "
        "convert it first, e.g. `iconv -f latin1 -t utf-8 FILE > FILE.utf8`"
    )


def read_transcript(path: Path, report: TranscriptReport) -> Iterator[Message]:
    """Yield messages; problems go to `report.errors` as 'line N: reason'."""
    for _, msg in read_numbered(path, report):
        yield msg


def read_numbered(path: Path, report: TranscriptReport) -> Iterator[tuple[int, Message]]:
    """(line number, message) for each good line; problems go to `report.errors` as 'line N: reason'."""
    for n, raw in _lines(path, report):
        if not raw.strip():
            continue
        try:
            data = _loads(raw)
            line = TranscriptLine.model_validate(data)
        except json.JSONDecodeError as exc:  # orjson's is one too
            report.errors.append(f"line {n}: {_why_not_json(raw, exc)}")
            continue
        except ValidationError as exc:
            report.errors.append(f"line {n}: {_why_invalid(data, exc)}")
            continue
        ts = line.timestamp or datetime.now(UTC)
        if ts.tzinfo is None:
            ts = ts.replace(tzinfo=UTC)
        report.read += 1
        msg = Message(
            id=line.id,
            text=line.text,
            role=line.role,
            session=line.session,
            speaker=line.speaker,
            timestamp=ts,
        )
        yield n, msg


# keys other chat logs use for ours: a hint, not an alias (a transcript says what it means)
_OTHER_NAMES = {"text": ("content", "message", "body"), "id": ("messageId", "message_id", "uuid")}


def _why_invalid(data: object, exc: ValidationError) -> str:
    """The first problem of a line, with what to do when the line is not shaped like ours at all."""
    if not isinstance(data, dict):
        names: dict[type, str] = {list: "a JSON array", str: "a JSON string"}
        kind = names.get(type(data), f"JSON {type(data).__name__}")
        return f'{kind}, not an object: a transcript has one {{"id", "role", "text", ...}} object a line'
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or "line"
    why = f"{where}: {first['msg']}"
    other = next((k for k in _OTHER_NAMES.get(where, ()) if k in data), None)
    if first["type"] == "missing" and other:
        why += f" (this line has {other!r}: name it {where!r})"
    return why


def _lines(path: Path, report: TranscriptReport) -> Iterator[tuple[int, bytes | str]]:
    """Numbered raw lines: bytes for UTF-8 (a bad line is reported alone), text for UTF-16/32."""
    with open(path, "rb") as fh:
        codec, label = sniff(fh.read(4))
    if codec in ("utf-8", "utf-8-sig"):
        with open(path, "rb") as fh:
            for n, raw in enumerate(fh, 1):
                yield n, raw[len(codecs.BOM_UTF8) :] if n == 1 and codec == "utf-8-sig" else raw
        return
    n = 0
    try:
        with open(path, encoding=codec, newline="\n") as text:
            for n, line in enumerate(text, 1):
                yield n, line
    except UnicodeDecodeError:
        report.errors.append(f"line {n + 1}: not valid {label}; the rest of the file was not read")


def _loads(raw: bytes | str) -> object:
    """orjson, else the standard parser for the one thing orjson refuses that JSON allows: a lone
    surrogate escape ("\\ud83d", as Node's JSON.stringify writes a string cut inside an emoji). The
    engine cleans such text as it does a hook's (U+FFFD); the line is not lost."""
    raw = raw.rstrip(b"\r\n") if isinstance(raw, bytes) else raw.rstrip("\r\n")  # a cut line ends early
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        if "surrogate" not in exc.msg:
            raise
        try:
            text = raw.decode() if isinstance(raw, bytes) else raw
        except UnicodeDecodeError:
            raise exc from None
        return json.loads(text, parse_constant=lambda name: _no_constant(name, text))


def _no_constant(name: str, text: str) -> object:
    raise json.JSONDecodeError(f"{name} is not JSON", text, text.find(name))


def _why_not_json(raw: bytes | str, exc: json.JSONDecodeError) -> str:
    """Where and why, never the line's text: the parser's reason and column say what to fix."""
    if isinstance(raw, bytes):
        try:
            raw.decode()
        except UnicodeDecodeError as bad:
            return f"not UTF-8 (byte 0x{raw[bad.start]:02X} at column {bad.start + 1})"
    return f"not valid JSON ({exc.msg} at column {exc.colno})"


def count_lines(path: Path) -> int:
    with open(path, "rb") as fh:
        return sum(1 for line in fh if line.strip())
