"""Read text, markdown and PDF files and cut them into overlapping chunks.

Chunks end at paragraph or sentence boundaries where possible, so an embedded chunk is a
readable passage; the overlap keeps a fact that straddles a boundary findable from both sides.
Sizes are model tokens when the embedder's tokenizer is at hand (the local model reads only
its first 256 tokens, so a longer chunk would be embedded in part), else characters.
"""

from __future__ import annotations

import re
from pathlib import Path

from knowledge_engine.index.embeddings.base import TokenWindow

_PARAGRAPH = re.compile(r"\n\s*\n")
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
TEXT_TYPES = {
    ".txt": "text/plain",
    ".md": "text/markdown",
    ".markdown": "text/markdown",
    ".rst": "text/x-rst",
}
PDF_TYPE = "application/pdf"


class UnsupportedDocument(ValueError):
    """A file we cannot turn into text (binary, unknown type, unreadable PDF)."""


def mime_type_of(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix == ".pdf":
        return PDF_TYPE
    return TEXT_TYPES.get(suffix, "text/plain")


def read_document(path: Path) -> tuple[str, str]:
    """(text, mime_type); PDFs through pypdf, other files must be UTF-8 text."""
    mime = mime_type_of(path)
    if mime == PDF_TYPE:
        return _read_pdf(path), mime
    data = path.read_bytes()
    if b"\x00" in data[:8192]:
        raise UnsupportedDocument(f"{path.name}: binary file")
    try:
        return data.decode("utf-8"), mime
    except UnicodeDecodeError:
        raise UnsupportedDocument(f"{path.name}: not UTF-8 text") from None


def _read_pdf(path: Path) -> str:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(str(path))
        return "\n\n".join((page.extract_text() or "").strip() for page in reader.pages)
    except PdfReadError as exc:
        raise UnsupportedDocument(f"{path.name}: unreadable PDF ({type(exc).__name__})") from None


class CharSizer:
    """Size in characters: the budget for remote providers, whose windows are far larger."""

    overhead = 0
    separator = 2  # the "\n\n" between the units of a chunk

    def __init__(self, limit: int) -> None:
        if limit < 1:
            raise ValueError("chunk_chars must be >= 1")
        self.limit = limit

    def sizes(self, texts: list[str]) -> list[int]:
        return [len(t) for t in texts]

    def cut(self, text: str) -> list[str]:
        return [text[i : i + self.limit] for i in range(0, len(text), self.limit)]


class TokenSizer:
    """Size in model tokens, special tokens included: a chunk that fits is embedded whole.

    BERT's tokenizer splits at whitespace first, so the tokens of units joined by blank lines are
    the sum of each unit's tokens: every unit is tokenized once (in batches), never each chunk.
    """

    separator = 0

    def __init__(self, window: TokenWindow, limit: int | None = None) -> None:
        self.window = window
        self.overhead = window.special_tokens
        self.limit = min(limit or window.max_tokens, window.max_tokens)
        if self.limit <= self.overhead:
            raise ValueError(f"a chunk of {self.limit} tokens leaves no room for text")

    def sizes(self, texts: list[str]) -> list[int]:
        return self.window.count_tokens(texts)

    def cut(self, text: str) -> list[str]:
        """Windows of whole tokens; a piece that re-tokenizes longer (a word cut mid-way) shrinks."""
        offsets = self.window.token_offsets(text)
        room = self.limit - self.overhead
        pieces: list[str] = []
        start = 0
        while start < len(offsets):
            take = room
            while True:
                end = min(start + take, len(offsets))
                piece = text[offsets[start][0] : offsets[end - 1][1]]
                if take == 1 or self.sizes([piece])[0] <= room:
                    break
                take = max(1, take - max(1, take // 16))
            pieces.append(piece)
            start = end
        return pieces


Sizer = CharSizer | TokenSizer
_Unit = tuple[str, int]  # text and its size without the sizer's overhead


def _fits(sizer: Sizer, units: list[_Unit]) -> bool:
    total = sizer.overhead + sum(n for _, n in units) + sizer.separator * (len(units) - 1)
    return total <= sizer.limit


def _sized(sizer: Sizer, texts: list[str]) -> list[_Unit]:
    texts = [t.strip() for t in texts]
    texts = [t for t in texts if t]
    return list(zip(texts, sizer.sizes(texts), strict=True))


def _units(text: str, sizer: Sizer) -> list[_Unit]:
    """Paragraphs; too-long paragraphs become sentences; too-long sentences are hard-cut."""
    out: list[_Unit] = []
    for para, size in _sized(sizer, _PARAGRAPH.split(text)):
        if _fits(sizer, [(para, size)]):
            out.append((para, size))
            continue
        for sent, sent_size in _sized(sizer, _SENTENCE.split(para)):
            if _fits(sizer, [(sent, sent_size)]):
                out.append((sent, sent_size))
            else:
                out.extend(_sized(sizer, sizer.cut(sent)))
    return out


def _tail(units: list[_Unit], overlap: int, sizer: Sizer) -> list[_Unit]:
    """The trailing units that fit in `overlap` (carried into the next chunk)."""
    kept: list[_Unit] = []
    size = 0
    for unit in reversed(units):
        if size + unit[1] > overlap:
            break
        kept.insert(0, unit)
        size += unit[1] + sizer.separator
    return kept


def chunk_text(
    text: str, chunk_chars: int = 1500, overlap: int = 200, sizer: Sizer | None = None
) -> list[str]:
    """Greedy packing of units into chunks of at most `sizer.limit`, with whole-unit overlap.

    Without a sizer, sizes are characters (`chunk_chars`); with one, `overlap` is in its unit.
    """
    sizer = sizer or CharSizer(chunk_chars)
    overlap = max(0, min(overlap, sizer.limit // 2))
    chunks: list[str] = []
    current: list[_Unit] = []
    fresh = 0  # units in `current` not already emitted
    for unit in _units(text, sizer):
        if current and not _fits(sizer, [*current, unit]):
            chunks.append("\n\n".join(t for t, _ in current))
            current = _tail(current, overlap, sizer)
            if current and not _fits(sizer, [*current, unit]):
                current = []
            fresh = 0
        current.append(unit)
        fresh += 1
    if current and fresh:
        chunks.append("\n\n".join(t for t, _ in current))
    return chunks
