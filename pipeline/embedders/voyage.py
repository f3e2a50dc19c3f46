"""Voyage embeddings (`voyage-finance-2` by default, any Voyage model by `voyage:MODEL[:DIM]`) through the
official voyageai SDK, with `input_type="query"` for queries and `"document"` for what is stored.

Why not graphiti's `VoyageAIEmbedder`: it sends no `input_type` (Voyage embeds queries and documents
differently, and retrieval is better with the split), and it builds its own `voyageai.AsyncClient` with
neither a timeout (the SDK would wait 600 s on a silent host) nor a base URL. A subclass would replace its
client and both of its methods, leaving nothing of it; so this class makes the same SDK call itself, with
those three added. What we keep of it: a `:DIM` below the model's size keeps the first DIM components, as
its `embedding[:embedding_dim]` does, so a graph it wrote with `EMBEDDING_DIM` set matches.

The client is built on first use: without VOYAGE_API_KEY that use is one line naming the variable. Every
failure is one line (EmbedderUnavailable); the SDK's retries are off (`voyage_client`), as for the reranker.
"""

from __future__ import annotations

import voyageai
import voyageai.error as voyage_error

from pipeline.embedder_spec import EmbedderSpec, parse_embedder_spec
from pipeline.embedders.base import EmbedderInfo, LabEmbedder
from pipeline.errors import EmbedderUnavailable
from pipeline.settings import Settings
from pipeline.text import one_line

BATCH_SIZE = 128  # the API's limit on texts per request
REASON_CHARS = 160


def voyage_client(settings: Settings) -> voyageai.AsyncClient:
    """The async SDK client; always with a timeout (the SDK default would wait 600 s)."""
    key = settings.voyage_api_key.get_secret_value() if settings.voyage_api_key else None
    return voyageai.AsyncClient(
        api_key=key,
        max_retries=0,  # retries are ours (tenacity), so that they are bounded and visible
        timeout=settings.voyage_timeout_s,
        base_url=settings.voyage_base_url,
    )


class VoyageEmbedder(LabEmbedder):
    def __init__(self, settings: Settings, spec: EmbedderSpec | None = None) -> None:
        """`spec` defaults to the configured embedder when it is a Voyage one, else voyage-finance-2."""
        if spec is None:
            configured = settings.embedder_spec
            spec = configured if configured.provider == "voyage" else parse_embedder_spec("voyage")
        if spec.provider != "voyage":
            raise ValueError(f"not a Voyage embedder: {spec}")
        self.info = EmbedderInfo(spec.model, spec.dim, "voyage")
        self._settings = settings
        self._client: voyageai.AsyncClient | None = None

    def _voyage(self) -> voyageai.AsyncClient:
        if self._client is None:
            key = self._settings.voyage_api_key.get_secret_value().strip() if self._settings.voyage_api_key else ""
            if not key:
                raise EmbedderUnavailable(f"The embedder {self.info.describe()} needs an API key: set VOYAGE_API_KEY.")
            self._client = voyage_client(self._settings)
        return self._client

    async def _embed(self, texts: list[str], input_type: str) -> list[list[float]]:
        vectors: list[list[float]] = []
        for start in range(0, len(texts), BATCH_SIZE):
            batch = texts[start : start + BATCH_SIZE]
            try:
                result = await self._voyage().embed(batch, model=self.info.model, input_type=input_type)
                vectors.extend([float(x) for x in v[: self.info.dim]] for v in result.embeddings)
            except voyage_error.VoyageError as exc:
                raise EmbedderUnavailable(f"Embedder {self.info.describe()}: {self._reason(exc)}") from None
            except (AttributeError, KeyError, IndexError, TypeError, ValueError):
                raise EmbedderUnavailable(f"Embedder {self.info.describe()}: malformed response from Voyage.") from None
        return self.check_vectors(vectors, len(texts))

    def _reason(self, exc: voyage_error.VoyageError) -> str:
        status = getattr(exc, "http_status", None)
        if isinstance(exc, voyage_error.AuthenticationError):
            return f"Voyage refused the API key ({status or 401}): check VOYAGE_API_KEY."
        if isinstance(exc, voyage_error.Timeout):
            return f"no answer from Voyage within {self._settings.voyage_timeout_s:g} s."
        if isinstance(exc, voyage_error.APIConnectionError):
            return "cannot reach Voyage: check VOYAGE_BASE_URL and the network."
        detail = one_line(exc.user_message or type(exc).__name__, REASON_CHARS)
        return f"Voyage answered {status}: {detail}" if status else detail

    async def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return await self._embed(texts, "document")

    async def embed_query(self, text: str) -> list[float]:
        return (await self._embed([text], "query"))[0]
