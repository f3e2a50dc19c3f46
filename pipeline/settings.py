"""One settings object, read from the environment and `.streamlit/secrets.toml`.

Environment variables win over the secrets file. The Neo4j, Voyage, Cohere and OpenAI variables keep their
usual names (`NEO4J_URI`, `VOYAGE_API_KEY`, `COHERE_API_KEY`, `OPENAI_API_KEY`, ...); everything else is prefixed
`RETRIEVAL_LAB_`.
A value that does not validate is one line from `get_settings()` (InvalidInput: CLI exit 2).
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal

from pydantic import AliasChoices, Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import (
    BaseSettings,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    SettingsError,
    TomlConfigSettingsSource,
)

from pipeline.embedder_spec import LOCAL_EMBEDDER as LOCAL_EMBEDDER  # kept importable from here
from pipeline.embedder_spec import VOYAGE_EMBEDDER as VOYAGE_EMBEDDER
from pipeline.embedder_spec import EmbedderSpec, parse_embedder_spec
from pipeline.errors import InvalidInput

PROJECT_ROOT = Path(__file__).resolve().parents[1]
SECRETS_FILE = PROJECT_ROOT / ".streamlit" / "secrets.toml"

MAX_PERSON_NAME = 80  # a reviewer's or adjudicator's name
ALLOWED_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")  # a group_id (pipeline/graph/group_id.py), matched whole
Price = Annotated[float, Field(ge=0, allow_inf_nan=False)]  # dollars per million tokens, or per 1,000 searches


def _alias(*names: str) -> AliasChoices:
    return AliasChoices(*names)


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="RETRIEVAL_LAB_", extra="ignore", populate_by_name=True)

    # graph backend: the embedded FalkorDB unless FALKORDB_URI (a FalkorDB server) or NEO4J_URI is set
    falkordb_uri: SecretStr | None = Field(None, validation_alias=_alias("FALKORDB_URI", "falkordb_uri"))
    neo4j_uri: str | None = Field(None, validation_alias=_alias("NEO4J_URI", "neo4j_uri"))
    neo4j_user: str = Field("neo4j", validation_alias=_alias("NEO4J_USER", "neo4j_user"))
    neo4j_password: SecretStr | None = Field(None, validation_alias=_alias("NEO4J_PASSWORD", "neo4j_password"))
    neo4j_database: str = Field("neo4j", validation_alias=_alias("NEO4J_DATABASE", "neo4j_database"))
    connect_timeout_s: float = Field(5.0, gt=0, le=600, allow_inf_nan=False)
    # RETRIEVAL_LAB_READ_ONLY=1: nothing is written to the graph (the database refuses it too); SQLite still is
    read_only: bool = False

    # Voyage: the key switches on the Voyage reranker (and, with embedder=auto, the Voyage embedder)
    voyage_api_key: SecretStr | None = Field(None, validation_alias=_alias("VOYAGE_API_KEY", "voyage_api_key"))
    voyage_base_url: str | None = Field(None, validation_alias=_alias("VOYAGE_BASE_URL", "voyage_base_url"))
    voyage_timeout_s: float = Field(10.0, gt=0, le=600, allow_inf_nan=False)
    voyage_max_retries: int = Field(3, ge=0, le=10)

    # Cohere: the key switches on the Cohere reranker (rerank-v3.5 by default); CO_API_KEY / CO_API_URL as
    # the SDK names them work too
    cohere_api_key: SecretStr | None = Field(
        None, validation_alias=_alias("COHERE_API_KEY", "CO_API_KEY", "cohere_api_key")
    )
    cohere_base_url: str | None = Field(
        None, validation_alias=_alias("COHERE_BASE_URL", "CO_API_URL", "cohere_base_url")
    )
    cohere_timeout_s: float = Field(10.0, gt=0, le=600, allow_inf_nan=False)
    cohere_max_retries: int = Field(3, ge=0, le=10)
    cohere_rerank_model: str = "rerank-v3.5"

    # OpenAI (or a compatible server at OPENAI_BASE_URL): for RETRIEVAL_LAB_EMBEDDER=openai:MODEL and the LLM judge
    openai_api_key: SecretStr | None = Field(None, validation_alias=_alias("OPENAI_API_KEY", "openai_api_key"))
    openai_base_url: str | None = Field(None, validation_alias=_alias("OPENAI_BASE_URL", "openai_base_url"))
    openai_timeout_s: float = Field(10.0, gt=0, le=600, allow_inf_nan=False)
    # the SDK's own retries (429, 5xx, connection errors), each within the timeout
    openai_max_retries: int = Field(2, ge=0, le=10)

    # the LLM relevance judge (pipeline/judge): OPENAI_API_KEY and OPENAI_BASE_URL above. "chat" speaks chat
    # completions (OpenAI or any compatible server: vLLM, Ollama); "responses" OpenAI's Responses API
    judge_model: str = "gpt-4o-mini"
    judge_api: Literal["chat", "responses"] = "chat"
    judge_concurrency: int = Field(4, ge=1, le=64)
    judge_timeout_s: float = Field(30.0, gt=0, le=600, allow_inf_nan=False)  # one request
    judge_max_attempts: int = Field(3, ge=1, le=10)  # per pair, the first request included
    judge_deadline_s: float = Field(900.0, gt=0, le=24 * 3600, allow_inf_nan=False)  # a whole run
    # dollars per million tokens (gpt-4o-mini's list prices); set them for another model
    judge_price_input: Price = 0.15
    judge_price_output: Price = 0.60
    # an LLM judge's grades feed a metric only when its weighted kappa with the analysts reaches this (or when
    # asked: --trust-judge); pipeline/spotcheck/judge_agreement.py
    judge_min_kappa: float = Field(0.4, ge=0, le=1, allow_inf_nan=False)

    # auto | local | voyage[:MODEL[:DIM]] | openai[:MODEL[:DIM]]: see pipeline/embedder_spec.py
    embedder: str = "auto"
    # the Voyage rerank model: RETRIEVAL_LAB_VOYAGE_RERANK_MODEL; its earlier name RETRIEVAL_LAB_RERANK_MODEL still
    # works (and `rerank_model` in the secrets file: `_earlier_names`)
    voyage_rerank_model: str = Field(
        "rerank-2.5", validation_alias=_alias("RETRIEVAL_LAB_VOYAGE_RERANK_MODEL", "RETRIEVAL_LAB_RERANK_MODEL")
    )
    # dollars per million tokens, from Voyage's public price list; update here when it changes
    rerank_prices_per_mtok: dict[str, Price] = {"rerank-2.5": 0.05, "rerank-2.5-lite": 0.02}
    # Cohere bills per search (one query with up to 100 documents): dollars per 1,000 searches, from its price list
    rerank_prices_per_1k_searches: dict[str, Price] = {"rerank-v3.5": 2.0}

    # admin actions (correct a fact, merge, undo, reset demo) are off unless this is set and entered
    admin_secret: SecretStr | None = None
    # an unlocked admin session ends after this many minutes without a page run (then the secret is asked again)
    admin_idle_minutes: float = Field(30.0, gt=0, le=24 * 60, allow_inf_nan=False)
    # deals this deployment may show and write ("demo,tatqa"); unset = all deals; blank is an error
    allowed_deals: Annotated[list[str] | None, NoDecode] = None
    # who may record spot-check final answers besides an unlocked admin ("Ana Lee,Ben"): reviewer names,
    # compared case-insensitively; unset = admins only
    adjudicators: Annotated[list[str], NoDecode] = []

    # a deal's facts and vectors are held in memory (exact cosine lists in numpy, no vector reads) by long-lived
    # processes, within this many MB for all deals; a deal over it is searched by the graph; 0 holds none
    held_facts_mb: int = Field(512, ge=0, le=1_000_000)
    default_candidates: int = Field(50, ge=1, le=500)
    default_top_k: int = Field(10, ge=1, le=100)
    data_dir: Path = PROJECT_ROOT / ".data"

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (
            init_settings,
            env_settings,
            TomlConfigSettingsSource(settings_cls, toml_file=SECRETS_FILE),
        )

    @model_validator(mode="before")
    @classmethod
    def _earlier_names(cls, data: object) -> object:
        """`rerank_model` (the secrets file's or a caller's earlier name of `voyage_rerank_model`) still sets it,
        unless the new name (or an environment variable for it) is given too. Not an alias: an alias would also
        read an unprefixed RERANK_MODEL environment variable."""
        if not isinstance(data, dict) or "rerank_model" not in data:
            return data
        data = dict(data)
        earlier = data.pop("rerank_model")
        alias = cls.model_fields["voyage_rerank_model"].validation_alias
        choices = alias.choices if isinstance(alias, AliasChoices) else []
        names = {"voyage_rerank_model", *(str(name).lower() for name in choices)}
        if not any(str(key).lower() in names for key in data):
            data["voyage_rerank_model"] = earlier
        return data

    @field_validator("allowed_deals", mode="before")
    @classmethod
    def _split_deals(cls, value: object) -> object:
        """ "a, b" -> ["a", "b"]. Unset means every deal; a blank value ("", ",", " ") or a blank or
        malformed name is refused, never read as "every deal" (a typo must not open a deployment)."""
        if value is None:
            return None
        names = value.split(",") if isinstance(value, str) else value
        if not isinstance(names, list | tuple):
            raise ValueError("give a comma-separated list of deal names, e.g. demo,tatqa")
        cleaned = [str(name).strip() for name in names]
        if not any(cleaned):
            raise ValueError(
                "RETRIEVAL_LAB_ALLOWED_DEALS is set but names no deal; give a comma-separated list of deal "
                "names (e.g. demo,tatqa), or unset it to allow every deal"
            )
        for name in cleaned:
            if not ALLOWED_NAME.fullmatch(name):
                raise ValueError(
                    f"{name!r} is not a deal name (1-64 letters, digits, '-' or '_', comma-separated, no empty entries)"
                )
        return list(dict.fromkeys(cleaned))

    @field_validator("adjudicators", mode="before")
    @classmethod
    def _split_names(cls, value: object) -> object:
        """ "Ana Lee, Ben" -> ["Ana Lee", "Ben"]: blank entries are skipped (no name, no one added)."""
        if value is None:
            return []
        names = value.split(",") if isinstance(value, str) else value
        if not isinstance(names, list | tuple):
            raise ValueError("give a comma-separated list of reviewer names, e.g. Ana Lee,Ben")
        cleaned = [" ".join(str(name).split()) for name in names]
        for name in cleaned:
            if len(name) > MAX_PERSON_NAME or not name.isprintable():
                raise ValueError(f"{name[:40]!r} is not a name (printable, at most {MAX_PERSON_NAME} characters)")
        return list(dict.fromkeys(name for name in cleaned if name))

    @field_validator("judge_model")
    @classmethod
    def _check_judge_model(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("name the judge's model, e.g. gpt-4o-mini")
        return value.strip()

    @field_validator("embedder")
    @classmethod
    def _check_embedder(cls, value: str) -> str:
        parse_embedder_spec(value)  # EmbedderSpecError (a ValueError) names the variable and the fix
        return value.strip()

    @property
    def graph_backend(self) -> Literal["falkordb", "falkordb_server", "neo4j"]:
        """Which backend the settings select; both server URIs set is one clear error."""
        if self.falkordb_uri and self.neo4j_uri:
            raise InvalidInput(
                "Both FALKORDB_URI and NEO4J_URI are set: set only one (FALKORDB_URI for a FalkorDB server, "
                "NEO4J_URI for Neo4j, neither for the embedded FalkorDB)."
            )
        if self.falkordb_uri:
            return "falkordb_server"
        return "neo4j" if self.neo4j_uri else "falkordb"

    @property
    def embedder_spec(self) -> EmbedderSpec:
        """The configured embedder: provider, model, dimension (`auto` resolved by the Voyage key)."""
        key = self.voyage_api_key.get_secret_value().strip() if self.voyage_api_key else ""
        return parse_embedder_spec(self.embedder, voyage_key_set=bool(key))

    @property
    def embedder_name(self) -> str:
        """The configured embedder's model name (what a deal records)."""
        return self.embedder_spec.model

    @property
    def resolved_data_dir(self) -> Path:
        path = self.data_dir if self.data_dir.is_absolute() else PROJECT_ROOT / self.data_dir
        return path.resolve()


def _env_name(location: object) -> str:
    field = Settings.model_fields.get(str(location))
    alias = field.validation_alias if field else None
    if isinstance(alias, AliasChoices) and isinstance(alias.choices[0], str):
        return alias.choices[0]
    return str(location) if str(location).isupper() else f"RETRIEVAL_LAB_{str(location).upper()}"


def settings_error_line(exc: ValidationError) -> str:
    """A ValidationError as one line: the first problem, naming the variable to fix."""
    errors = exc.errors()
    first = errors[0]
    name = _env_name(first["loc"][0]) if first["loc"] else "settings"
    message = " ".join(str(first["msg"]).removeprefix("Value error, ").splitlines())
    line = message if message.startswith(name) else f"{name}: {message}"
    more = len(errors) - 1
    return line + (f" (and {more} more invalid setting{'s' if more > 1 else ''})" if more else "")


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    try:
        return Settings()
    except ValidationError as exc:
        raise InvalidInput(settings_error_line(exc)) from None
    except SettingsError as exc:  # a value the source itself cannot decode (JSON of a dict-valued setting)
        raise InvalidInput(settings_source_error_line(exc)) from None


def settings_source_error_line(exc: SettingsError) -> str:
    """E.g. "RETRIEVAL_LAB_RERANK_PRICES_PER_MTOK: not valid JSON; give e.g. {"rerank-2.5": 0.05}"."""
    match = re.search(r'field "([a-z0-9_]+)"', str(exc))
    name = _env_name(match.group(1)) if match else "a setting"
    return f'{name}: not valid JSON; give a JSON object, e.g. {{"rerank-2.5": 0.05}}'
