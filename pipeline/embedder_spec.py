"""`RETRIEVAL_LAB_EMBEDDER`, parsed once: which provider, which model, how many dimensions.

Accepted spellings (provider names in any case, surrounding spaces ignored):

    auto                      Voyage voyage-finance-2 when VOYAGE_API_KEY is set, else local (the default)
    local                     the offline all-MiniLM-L6-v2 (384-d)
    voyage[:MODEL[:DIM]]      Voyage; bare `voyage` is voyage-finance-2
    openai[:MODEL[:DIM]]      OpenAI or a compatible server (OPENAI_BASE_URL); bare `openai` is graphiti's
                              default model, text-embedding-3-small

The dimension comes from `MODEL_DIMS` or from `:DIM`; a model not in the table needs `:DIM`. A `:DIM` below
a known model's own size keeps the first DIM components of each vector, as graphiti's own embedders do
(`embedding[:embedding_dim]`): that is how a graph written by graphiti with `EMBEDDING_DIM` set was
embedded. Model names may contain `:` (e.g. `nomic-embed-text:latest` on a compatible server): only a
last part made of digits is read as DIM.

The settings validate `RETRIEVAL_LAB_EMBEDDER` with `parse_embedder_spec`, and `Settings.embedder_spec` is
its result; the registry (`pipeline.embedders.make_embedder`) builds from that. This module sits below the
settings (it imports nothing of ours but `numbers`), outside the embedders package, whose `__init__` loads
graphiti: reading the settings never loads an embedder.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, cast

from pipeline.numbers import MAX_INTEGER, whole_number

Provider = Literal["local", "voyage", "openai"]

ENV_NAME = "RETRIEVAL_LAB_EMBEDDER"
LOCAL_EMBEDDER = "local-minilm-l6-v2-int8"  # the model names a deal records
VOYAGE_EMBEDDER = "voyage-finance-2"
LOCAL_MODEL = LOCAL_EMBEDDER
LOCAL_DIM = 384
DEFAULT_VOYAGE_MODEL = VOYAGE_EMBEDDER
DEFAULT_OPENAI_MODEL = "text-embedding-3-small"  # graphiti's own default
MAX_DIM = 16_384

# each model's own output size
MODEL_DIMS: dict[str, dict[str, int]] = {
    "voyage": {
        "voyage-finance-2": 1024,
        "voyage-3": 1024,
        "voyage-3.5": 1024,
        "voyage-3-large": 1024,
        "voyage-3.5-lite": 1024,
        "voyage-law-2": 1024,
        "voyage-code-3": 1024,
    },
    "openai": {
        "text-embedding-3-small": 1536,
        "text-embedding-3-large": 3072,
        "text-embedding-ada-002": 1536,
    },
}
DEFAULT_MODELS = {"voyage": DEFAULT_VOYAGE_MODEL, "openai": DEFAULT_OPENAI_MODEL}
ACCEPTED = "auto, local, voyage[:MODEL[:DIM]] or openai[:MODEL[:DIM]] (e.g. openai:text-embedding-3-small:512)"


@dataclass(frozen=True)
class EmbedderSpec:
    provider: Provider
    model: str
    dim: int

    @property
    def setting(self) -> str:
        """The `RETRIEVAL_LAB_EMBEDDER` value that gives this embedder (`:DIM` only when it is not the model's own)."""
        if self.provider == "local":
            return "local"
        value = f"{self.provider}:{self.model}"
        return value if MODEL_DIMS[self.provider].get(self.model) == self.dim else f"{value}:{self.dim}"


LOCAL_SPEC = EmbedderSpec("local", LOCAL_MODEL, LOCAL_DIM)


class EmbedderSpecError(ValueError):
    """A `RETRIEVAL_LAB_EMBEDDER` value that names no embedder; the message is one line."""


def parse_embedder_spec(value: str, voyage_key_set: bool = False) -> EmbedderSpec:
    """The embedder `value` names (`auto` resolved with `voyage_key_set`), or EmbedderSpecError saying why not."""
    text = value.strip() if isinstance(value, str) else ""
    name, colon, rest = text.partition(":")
    name = name.lower()
    if name == "auto" and not colon:
        return parse_embedder_spec("voyage") if voyage_key_set else LOCAL_SPEC
    if name == "local" and not colon:
        return LOCAL_SPEC
    if name not in MODEL_DIMS or (colon and not rest):
        raise EmbedderSpecError(f"{ENV_NAME}={value!r} is not valid: use {ACCEPTED}.")
    provider = cast(Provider, name)
    if not rest:
        model = DEFAULT_MODELS[provider]
        return EmbedderSpec(provider, model, MODEL_DIMS[provider][model])
    return _with_model(value, provider, rest)


def _with_model(value: str, provider: Provider, rest: str) -> EmbedderSpec:
    known = MODEL_DIMS[provider]
    head, sep, last = rest.rpartition(":")
    dim: int | None = None
    if sep and last.isascii() and last.isdigit():
        parsed = whole_number(last)
        model, dim = head, MAX_INTEGER if parsed is None else parsed  # too many digits: out of range below
    elif sep and head in known:  # `openai:text-embedding-3-small:abc`: a DIM that is no number
        raise EmbedderSpecError(f"{ENV_NAME}={value!r}: the dimension {last!r} is not a whole number.")
    else:
        model = rest
    if not model or any(ch.isspace() for ch in model):
        raise EmbedderSpecError(f"{ENV_NAME}={value!r} is not valid: the model name is empty or has spaces.")
    native = known.get(model)
    if dim is None:
        if native is None:
            raise EmbedderSpecError(
                f"{ENV_NAME}={value!r}: the dimension of {provider} model {model!r} is not known; "
                f"add it: {provider}:{model}:DIM (e.g. {provider}:{model}:1024)."
            )
        dim = native
    limit = native or MAX_DIM
    if not 1 <= dim <= limit:
        what = f"{model} gives {native}-d vectors" if native else f"the dimension must be 1 to {MAX_DIM}"
        raise EmbedderSpecError(f"{ENV_NAME}={value!r}: {what}; choose :DIM from 1 to {limit}.")
    return EmbedderSpec(provider, model, dim)


def setting_for_dim(dim: int) -> str | None:
    """The usual `RETRIEVAL_LAB_EMBEDDER` for a graph whose stored vectors have `dim` components (None: no
    usual one). Graphiti-written graphs do not record their model; this is the likely one, not a certainty:
    1024 is Voyage's size and also graphiti's default `EMBEDDING_DIM`, to which its OpenAI embedder cuts."""
    if dim == LOCAL_DIM:
        return "local"
    if dim == MODEL_DIMS["voyage"][DEFAULT_VOYAGE_MODEL]:
        return f"voyage:{DEFAULT_VOYAGE_MODEL}"
    for model, native in MODEL_DIMS["openai"].items():
        if native == dim:
            return f"openai:{model}"
    return None
