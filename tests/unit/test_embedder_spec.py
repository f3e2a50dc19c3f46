"""`RETRIEVAL_LAB_EMBEDDER`: every accepted spelling and what it gives, every refused one and its one line,
through `Settings` (the field validator) and `get_settings()` (InvalidInput, CLI exit 2)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import ValidationError

from pipeline import settings as settings_module
from pipeline.embedder_spec import EmbedderSpec, EmbedderSpecError, parse_embedder_spec, setting_for_dim
from pipeline.embedders import make_embedder
from pipeline.errors import InvalidInput
from pipeline.settings import LOCAL_EMBEDDER, Settings, get_settings, settings_error_line


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    for name in list(os.environ):
        if name.startswith(("RETRIEVAL_LAB_", "VOYAGE_", "OPENAI_")):
            monkeypatch.delenv(name)
    monkeypatch.setattr(settings_module, "SECRETS_FILE", tmp_path / "secrets.toml")
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


ACCEPTED = [
    ("local", EmbedderSpec("local", LOCAL_EMBEDDER, 384)),
    (" LOCAL ", EmbedderSpec("local", LOCAL_EMBEDDER, 384)),
    ("voyage", EmbedderSpec("voyage", "voyage-finance-2", 1024)),
    ("voyage:voyage-finance-2", EmbedderSpec("voyage", "voyage-finance-2", 1024)),
    ("Voyage:voyage-3.5", EmbedderSpec("voyage", "voyage-3.5", 1024)),
    ("voyage:voyage-3", EmbedderSpec("voyage", "voyage-3", 1024)),
    ("voyage:voyage-3-large", EmbedderSpec("voyage", "voyage-3-large", 1024)),
    ("voyage:voyage-3.5-lite", EmbedderSpec("voyage", "voyage-3.5-lite", 1024)),
    ("voyage:voyage-law-2", EmbedderSpec("voyage", "voyage-law-2", 1024)),
    ("voyage:voyage-code-3", EmbedderSpec("voyage", "voyage-code-3", 1024)),
    ("voyage:voyage-finance-2:512", EmbedderSpec("voyage", "voyage-finance-2", 512)),
    ("voyage:voyage-4-preview:2048", EmbedderSpec("voyage", "voyage-4-preview", 2048)),
    ("openai", EmbedderSpec("openai", "text-embedding-3-small", 1536)),
    ("openai:text-embedding-3-small", EmbedderSpec("openai", "text-embedding-3-small", 1536)),
    ("OpenAI:text-embedding-3-small:512", EmbedderSpec("openai", "text-embedding-3-small", 512)),
    ("openai:text-embedding-3-small:1536", EmbedderSpec("openai", "text-embedding-3-small", 1536)),
    ("openai:text-embedding-3-large", EmbedderSpec("openai", "text-embedding-3-large", 3072)),
    ("openai:text-embedding-3-large:1024", EmbedderSpec("openai", "text-embedding-3-large", 1024)),
    ("openai:text-embedding-ada-002", EmbedderSpec("openai", "text-embedding-ada-002", 1536)),
    ("openai:BAAI/bge-m3:1024", EmbedderSpec("openai", "BAAI/bge-m3", 1024)),
    ("openai:nomic-embed-text:latest:768", EmbedderSpec("openai", "nomic-embed-text:latest", 768)),
]


@pytest.mark.parametrize(("value", "spec"), ACCEPTED)
def test_accepted_spellings(clean_env: None, value: str, spec: EmbedderSpec) -> None:
    assert parse_embedder_spec(value) == spec
    settings = Settings(embedder=value)
    assert settings.embedder_spec == spec
    assert settings.embedder_name == spec.model
    assert parse_embedder_spec(spec.setting) == spec  # the canonical spelling gives the same embedder


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("", "is not valid: use auto, local, voyage[:MODEL[:DIM]] or openai[:MODEL[:DIM]]"),
        ("   ", "is not valid: use auto"),
        ("cohere", "is not valid: use auto"),
        ("cohere:embed-v4", "is not valid: use auto"),
        ("auto:voyage", "is not valid: use auto"),
        ("local:minilm", "is not valid: use auto"),
        ("voyage:", "is not valid: use auto"),
        ("auto:", "is not valid: use auto"),
        ("local:", "is not valid: use auto"),
        ("openai-compatible", "is not valid: use auto"),
        ("openai:", "is not valid: use auto"),
        (":text-embedding-3-small", "is not valid: use auto"),
        ("openai::512", "the model name is empty"),
        ("openai:text embedding:512", "has spaces"),
        ("openai:my-model", "the dimension of openai model 'my-model' is not known; add it: openai:my-model:DIM"),
        ("voyage:voyage-9", "add it: voyage:voyage-9:DIM"),
        ("openai:text-embedding-3-small:abc", "the dimension 'abc' is not a whole number"),
        ("openai:text-embedding-3-small:", "the dimension '' is not a whole number"),
        ("openai:text-embedding-3-small:0", "text-embedding-3-small gives 1536-d vectors; choose :DIM from 1 to 1536"),
        ("openai:text-embedding-3-small:2048", "choose :DIM from 1 to 1536"),
        ("voyage:voyage-finance-2:4096", "voyage-finance-2 gives 1024-d vectors"),
        ("openai:my-model:0", "the dimension must be 1 to 16384"),
        ("openai:my-model:99999", "the dimension must be 1 to 16384"),
        ("openai:text-embedding-3-small:²", "is not a whole number"),
    ],
)
def test_refused_spellings_are_one_line_naming_the_variable(
    clean_env: None, monkeypatch: pytest.MonkeyPatch, value: str, says: str
) -> None:
    with pytest.raises(EmbedderSpecError) as parsed:
        parse_embedder_spec(value)
    assert says in str(parsed.value)
    with pytest.raises(ValidationError) as validated:
        Settings(embedder=value)
    line = settings_error_line(validated.value)
    assert line.startswith(f"RETRIEVAL_LAB_EMBEDDER={value!r}")
    assert says in line and "\n" not in line

    monkeypatch.setenv("RETRIEVAL_LAB_EMBEDDER", value)
    with pytest.raises(InvalidInput) as loaded:  # what the CLI prints (exit 2) and the dashboard shows
        get_settings()
    assert str(loaded.value) == line


def test_auto_is_voyage_finance_2_with_a_voyage_key_else_local(clean_env: None) -> None:
    assert Settings().embedder == "auto"
    assert Settings().embedder_spec == EmbedderSpec("local", LOCAL_EMBEDDER, 384)
    assert Settings(voyage_api_key="   ").embedder_spec.provider == "local"  # a blank key is no key
    assert Settings(voyage_api_key="vk").embedder_spec == EmbedderSpec("voyage", "voyage-finance-2", 1024)
    # an OpenAI key alone does not switch `auto`: OpenAI is chosen by name only
    assert Settings(openai_api_key="sk").embedder_spec.provider == "local"


def test_openai_settings_use_openai_s_own_variable_names(clean_env: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("RETRIEVAL_LAB_EMBEDDER", "openai:text-embedding-3-large:256")
    settings = get_settings()
    assert settings.openai_api_key is not None and settings.openai_api_key.get_secret_value() == "sk-env"
    assert settings.openai_base_url == "http://127.0.0.1:9/v1"
    assert settings.embedder_spec == EmbedderSpec("openai", "text-embedding-3-large", 256)


@pytest.mark.parametrize(
    ("value", "described"),
    [
        ("local", "local-minilm-l6-v2-int8 (384-d)"),
        ("voyage", "voyage:voyage-finance-2 (1024-d)"),
        ("openai:text-embedding-3-small", "openai:text-embedding-3-small (1536-d)"),
        ("openai:text-embedding-3-small:512", "openai:text-embedding-3-small (512-d)"),
    ],
)
def test_the_built_embedder_says_what_it_is(clean_env: None, value: str, described: str) -> None:
    """What the sidebar and `status` show; a hosted embedder is built without its key (it is asked on use)."""
    embedder = make_embedder(Settings(embedder=value))
    assert embedder.info.describe() == described
    spec = parse_embedder_spec(value)
    assert (embedder.info.model, embedder.info.dim) == (spec.model, spec.dim)


def test_setting_for_a_stored_dimension() -> None:
    assert setting_for_dim(384) == "local"
    assert setting_for_dim(1024) == "voyage:voyage-finance-2"
    assert setting_for_dim(1536) == "openai:text-embedding-3-small"
    assert setting_for_dim(3072) == "openai:text-embedding-3-large"
    assert setting_for_dim(777) is None


def test_other_invalid_settings_are_one_line_too(clean_env: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RETRIEVAL_LAB_DEFAULT_TOP_K", "many")
    with pytest.raises(InvalidInput, match=r"^RETRIEVAL_LAB_DEFAULT_TOP_K: ") as error:
        get_settings()
    assert "\n" not in str(error.value)
