"""Chunking and reading of text, markdown and PDF documents."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from knowledge_engine.documents.chunk import (
    CharSizer,
    TokenSizer,
    UnsupportedDocument,
    chunk_text,
    read_document,
)
from knowledge_engine.index.embeddings.local import MAX_TOKENS, LocalEmbedder


def make_pdf(lines: list[str]) -> bytes:
    """A minimal valid one-page PDF with Helvetica text (no PDF library needed to write it)."""
    ops = "BT /F1 12 Tf 72 720 Td " + " ".join(
        f"({ln.replace('(', '[').replace(')', ']')}) Tj 0 -16 Td" for ln in lines
    )
    stream = (ops + " ET").encode("latin-1")
    objs = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R"
        b" /Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length " + str(len(stream)).encode() + b" >>\nstream\n" + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for i, obj in enumerate(objs, 1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n".encode() + obj + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objs) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += f"trailer\n<< /Size {len(objs) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def test_short_text_is_one_chunk() -> None:
    assert chunk_text("Just one paragraph.", 100, 20) == ["Just one paragraph."]
    assert chunk_text("   \n\n  ", 100, 20) == []


def test_paragraph_boundaries_and_overlap() -> None:
    paras = [f"Paragraph {i} says something short." for i in range(12)]
    chunks = chunk_text("\n\n".join(paras), chunk_chars=120, overlap=40)
    assert len(chunks) > 3
    for c in chunks:
        assert len(c) <= 120
        assert all(p in paras for p in c.split("\n\n"))  # whole paragraphs only
    for a, b in itertools.pairwise(chunks):
        assert a.split("\n\n")[-1] == b.split("\n\n")[0]  # the last paragraph is carried over


def test_long_paragraph_is_split_at_sentences() -> None:
    text = " ".join(f"Sentence number {i} ends here." for i in range(40))
    chunks = chunk_text(text, chunk_chars=200, overlap=0)
    assert len(chunks) > 1
    assert all(len(c) <= 200 and c.endswith(".") for c in chunks)


def test_overlong_sentence_is_hard_cut() -> None:
    chunks = chunk_text("x" * 1000, chunk_chars=300, overlap=50)
    assert all(len(c) <= 300 for c in chunks) and "".join(chunks).count("x") >= 1000


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.text(alphabet="abc .!?\n", min_size=0, max_size=300), max_size=8),
    st.integers(50, 400),
    st.integers(0, 150),
)
def test_chunks_bounded_and_cover_every_word(parts: list[str], size: int, overlap: int) -> None:
    text = "\n\n".join(parts)
    chunks = chunk_text(text, size, overlap)
    assert all(len(c) <= size for c in chunks)
    joined = " ".join(chunks)
    for word in re.findall(r"[abc]+", text):
        if len(word) <= size:
            assert word in joined


def test_read_text_markdown_and_pdf(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# Title\n\nBody text.", encoding="utf-8")
    (tmp_path / "b.txt").write_text("Plain.", encoding="utf-8")
    (tmp_path / "c.pdf").write_bytes(make_pdf(["Halcyon ships in Q3.", "Marker HX-2026-0042."]))
    assert read_document(tmp_path / "a.md") == ("# Title\n\nBody text.", "text/markdown")
    assert read_document(tmp_path / "b.txt") == ("Plain.", "text/plain")
    text, mime = read_document(tmp_path / "c.pdf")
    assert mime == "application/pdf" and "Halcyon ships in Q3." in text and "HX-2026-0042" in text


def test_unreadable_inputs_are_clear_errors(tmp_path: Path) -> None:
    (tmp_path / "bin.txt").write_bytes(b"\x00\x01\x02")
    (tmp_path / "latin.txt").write_bytes("caf\xe9".encode("latin-1"))
    (tmp_path / "broken.pdf").write_bytes(b"%PDF-1.4 garbage")
    for name in ("bin.txt", "latin.txt", "broken.pdf"):
        with pytest.raises(UnsupportedDocument, match=name):
            read_document(tmp_path / name)


def _count(texts: list[str]) -> list[int]:
    """Token counts with the model's own tokenizer, special tokens included, nothing truncated."""
    from tokenizers import Tokenizer

    from knowledge_engine.index.embeddings.local import tokenizer_path

    tok = Tokenizer.from_file(str(tokenizer_path()))
    tok.no_truncation()
    tok.no_padding()
    return [len(tok.encode(t).ids) for t in texts]


def test_token_sizer_counts_like_the_model() -> None:
    sizer = TokenSizer(LocalEmbedder())
    assert sizer.limit == MAX_TOKENS and sizer.overhead == 2
    texts = ["Zürich's unbelievable deploy-runbook, step 42.", "東京 rota", ""]
    assert [n + sizer.overhead for n in sizer.sizes(texts)] == _count(texts)
    # tokens add up across blank lines, which the packing relies on
    joined = "\n\n".join(texts[:2])
    assert sum(sizer.sizes(texts[:2])) + sizer.overhead == _count([joined])[0]


def test_token_sizer_cuts_a_huge_word_to_the_window() -> None:
    sizer = TokenSizer(LocalEmbedder())
    # no space and no sentence end: ~1,000 tokens (a run of over 100 plain characters would be one [UNK])
    word = "9f86d0-81884c7d,659a2fe" * 100
    pieces = sizer.cut(word)
    assert len(pieces) > 3 and max(_count(pieces)) <= MAX_TOKENS and "".join(pieces) == word


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.text(alphabet=st.sampled_from(list("abcxyz .!?\n-é東京0123456789")), max_size=900), max_size=6
    ),
    st.integers(20, 300),
)
def test_token_chunks_fit_the_window_and_cover_every_word(parts: list[str], limit: int) -> None:
    """#18: chunks of 1,500 characters ran past the local model's 256 tokens (the rest was ignored)."""
    sizer = TokenSizer(LocalEmbedder(), limit)
    text = "\n\n".join(parts)
    chunks = chunk_text(text, overlap=limit // 8, sizer=sizer)
    assert all(n <= min(limit, MAX_TOKENS) for n in _count(chunks))
    joined = " ".join(chunks)
    for word in re.findall(r"[a-z]+", text):
        if len(word) <= 20:
            assert word in joined


def test_char_sizer_is_the_default() -> None:
    text = " ".join(f"Sentence {i} is here." for i in range(100))
    assert chunk_text(text, 300, 50) == chunk_text(text, overlap=50, sizer=CharSizer(300))
