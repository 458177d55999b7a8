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

    def __init__(self, limit: int) -> None:
        if limit < 1:
            raise ValueError("chunk_chars must be >= 1")
        self.limit = limit

    def size(self, text: str) -> int:
        return len(text)

    def cut(self, text: str) -> list[str]:
        return [text[i : i + self.limit] for i in range(0, len(text), self.limit)]


class TokenSizer:
    """Size in model tokens, special tokens included: a chunk that fits is embedded whole."""

    def __init__(self, window: TokenWindow, limit: int | None = None) -> None:
        self.window = window
        self.special = window.special_tokens
        self.limit = min(limit or window.max_tokens, window.max_tokens)
        if self.limit <= self.special:
            raise ValueError(f"a chunk of {self.limit} tokens leaves no room for text")

    def size(self, text: str) -> int:
        return len(self.window.token_offsets(text)) + self.special

    def cut(self, text: str) -> list[str]:
        """Windows of whole tokens; a piece that re-tokenizes longer (a word cut mid-way) shrinks."""
        offsets = self.window.token_offsets(text)
        pieces: list[str] = []
        start = 0
        while start < len(offsets):
            take = self.limit - self.special
            while True:
                end = min(start + take, len(offsets))
                piece = text[offsets[start][0] : offsets[end - 1][1]]
                if take == 1 or self.size(piece) <= self.limit:
                    break
                take = max(1, take - max(1, take // 16))
            pieces.append(piece)
            start = end
        return pieces


Sizer = CharSizer | TokenSizer


def _units(text: str, sizer: Sizer) -> list[str]:
    """Paragraphs; too-long paragraphs become sentences; too-long sentences are hard-cut."""
    out: list[str] = []
    for para in _PARAGRAPH.split(text):
        para = para.strip()
        if not para:
            continue
        if sizer.size(para) <= sizer.limit:
            out.append(para)
            continue
        for sent in _SENTENCE.split(para):
            sent = sent.strip()
            if not sent:
                continue
            if sizer.size(sent) <= sizer.limit:
                out.append(sent)
                continue
            out.extend(p for p in (piece.strip() for piece in sizer.cut(sent)) if p)
    return out


def _tail(units: list[str], overlap: int, sizer: Sizer) -> list[str]:
    """The trailing units that fit in `overlap` (carried into the next chunk)."""
    kept: list[str] = []
    size = 0
    for unit in reversed(units):
        size += sizer.size(unit)
        if size > overlap:
            break
        kept.insert(0, unit)
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
    current: list[str] = []
    fresh = 0  # units in `current` not already emitted
    for unit in _units(text, sizer):
        if current and sizer.size("\n\n".join([*current, unit])) > sizer.limit:
            chunks.append("\n\n".join(current))
            current = _tail(current, overlap, sizer)
            if current and sizer.size("\n\n".join([*current, unit])) > sizer.limit:
                current = []
            fresh = 0
        current.append(unit)
        fresh += 1
    if current and fresh:
        chunks.append("\n\n".join(current))
    return chunks
