"""Read text, markdown and PDF files and cut them into overlapping chunks.

Chunks end at paragraph or sentence boundaries where possible, so an embedded chunk is a
readable passage; the overlap keeps a fact that straddles a boundary findable from both sides.
"""

from __future__ import annotations

import re
from pathlib import Path

_PARAGRAPH = re.compile(r"\n\s*\n")
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
TEXT_TYPES = {
    ".txt": "text/plain", ".md": "text/markdown", ".markdown": "text/markdown", ".rst": "text/x-rst"
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


def _units(text: str, max_chars: int) -> list[str]:
    """Paragraphs; too-long paragraphs become sentences; too-long sentences are hard-cut."""
    out: list[str] = []
    for para in _PARAGRAPH.split(text):
        para = para.strip()
        if not para:
            continue
        if len(para) <= max_chars:
            out.append(para)
            continue
        for sent in _SENTENCE.split(para):
            sent = sent.strip()
            while len(sent) > max_chars:
                out.append(sent[:max_chars])
                sent = sent[max_chars:]
            if sent:
                out.append(sent)
    return out


def _tail(units: list[str], overlap: int) -> list[str]:
    """The trailing units that fit in `overlap` characters (carried into the next chunk)."""
    kept: list[str] = []
    size = 0
    for unit in reversed(units):
        if size + len(unit) > overlap:
            break
        kept.insert(0, unit)
        size += len(unit) + 2
    return kept


def chunk_text(text: str, chunk_chars: int = 1500, overlap: int = 200) -> list[str]:
    """Greedy packing of units into chunks of at most ~chunk_chars, with whole-unit overlap."""
    if chunk_chars < 1:
        raise ValueError("chunk_chars must be >= 1")
    overlap = max(0, min(overlap, chunk_chars // 2))
    chunks: list[str] = []
    current: list[str] = []
    fresh = 0  # units in `current` not already emitted
    for unit in _units(text, chunk_chars):
        if current and len("\n\n".join([*current, unit])) > chunk_chars:
            chunks.append("\n\n".join(current))
            current = _tail(current, overlap)
            if current and len("\n\n".join([*current, unit])) > chunk_chars:
                current = []
            fresh = 0
        current.append(unit)
        fresh += 1
    if current and fresh:
        chunks.append("\n\n".join(current))
    return chunks
