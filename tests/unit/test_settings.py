import os
from pathlib import Path

import pytest

from pipeline import settings as settings_module
from pipeline.settings import LOCAL_EMBEDDER, VOYAGE_EMBEDDER, Settings


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    for name in list(os.environ):
        if name.startswith(("RETRIEVAL_LAB_", "NEO4J_", "VOYAGE_")):
            monkeypatch.delenv(name)
    secrets = tmp_path / "secrets.toml"
    monkeypatch.setattr(settings_module, "SECRETS_FILE", secrets)
    return secrets


def test_defaults_are_offline(clean_env: Path) -> None:
    s = Settings()
    assert s.graph_backend == "falkordb"
    assert s.embedder_name == LOCAL_EMBEDDER
    assert (s.default_candidates, s.default_top_k, s.voyage_rerank_model) == (50, 10, "rerank-2.5")
    assert s.resolved_data_dir.name == ".data"


def test_environment_switches_backend_and_embedder(clean_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NEO4J_URI", "bolt://db.example:7687")
    monkeypatch.setenv("VOYAGE_API_KEY", "vk-test")
    monkeypatch.setenv("RETRIEVAL_LAB_DEFAULT_TOP_K", "5")
    s = Settings()
    assert s.graph_backend == "neo4j"
    assert s.embedder_name == VOYAGE_EMBEDDER
    assert s.voyage_api_key is not None and s.voyage_api_key.get_secret_value() == "vk-test"
    assert s.default_top_k == 5
    monkeypatch.setenv("RETRIEVAL_LAB_EMBEDDER", "local")
    assert Settings().embedder_name == LOCAL_EMBEDDER


def test_secrets_file_is_read_and_env_wins(clean_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    clean_env.write_text('NEO4J_URI = "bolt://from-secrets:7687"\ndefault_top_k = 7\n')
    s = Settings()
    assert s.neo4j_uri == "bolt://from-secrets:7687"
    assert s.default_top_k == 7
    monkeypatch.setenv("RETRIEVAL_LAB_DEFAULT_TOP_K", "3")
    assert Settings().default_top_k == 3


def test_allowed_deals_accepts_a_comma_separated_list(clean_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert Settings().allowed_deals is None
    monkeypatch.setenv("RETRIEVAL_LAB_ALLOWED_DEALS", "demo, tatqa")
    assert Settings().allowed_deals == ["demo", "tatqa"]


@pytest.mark.parametrize("value", ["", ",", " ", " , ", ",,"])
def test_a_blank_allow_list_is_an_error_not_every_deal(
    clean_env: Path, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    from pipeline.errors import InvalidInput
    from pipeline.settings import get_settings

    monkeypatch.setenv("RETRIEVAL_LAB_ALLOWED_DEALS", value)
    get_settings.cache_clear()
    with pytest.raises(InvalidInput, match=r"^RETRIEVAL_LAB_ALLOWED_DEALS is set but names no deal"):
        get_settings()
    get_settings.cache_clear()


@pytest.mark.parametrize("value", ["demo,", "demo,,tatqa", "demo\n", "de mo", "../demo", "x" * 65])
def test_a_malformed_allow_list_entry_is_an_error(clean_env: Path, monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    from pydantic import ValidationError

    monkeypatch.setenv("RETRIEVAL_LAB_ALLOWED_DEALS", value)
    if value == "demo\n":  # surrounding whitespace is trimmed, as for every entry
        assert Settings().allowed_deals == ["demo"]
        return
    with pytest.raises(ValidationError, match="is not a deal name"):
        Settings()


def test_the_allow_list_from_the_secrets_file_is_checked_too(clean_env: Path) -> None:
    from pydantic import ValidationError

    clean_env.write_text('allowed_deals = "demo,tatqa"\n')
    assert Settings().allowed_deals == ["demo", "tatqa"]
    clean_env.write_text("allowed_deals = []\n")
    with pytest.raises(ValidationError, match="names no deal"):
        Settings()


def test_adjudicators_are_a_comma_separated_list_of_names(clean_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert Settings().adjudicators == []  # unset: only an unlocked admin adjudicates
    monkeypatch.setenv("RETRIEVAL_LAB_ADJUDICATORS", " Ana  Lee ,Ben,, ")
    assert Settings().adjudicators == ["Ana Lee", "Ben"]
    monkeypatch.setenv("RETRIEVAL_LAB_ADJUDICATORS", "x" * 81)
    with pytest.raises(ValueError, match="adjudicators"):
        Settings()


def test_voyage_rerank_model_keeps_its_earlier_name(clean_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RETRIEVAL_LAB_RERANK_MODEL", "rerank-2.5-lite")
    assert Settings().voyage_rerank_model == "rerank-2.5-lite"
    monkeypatch.setenv("RETRIEVAL_LAB_VOYAGE_RERANK_MODEL", "rerank-2")
    assert Settings().voyage_rerank_model == "rerank-2"  # the new name wins
    monkeypatch.delenv("RETRIEVAL_LAB_RERANK_MODEL")
    monkeypatch.delenv("RETRIEVAL_LAB_VOYAGE_RERANK_MODEL")
    clean_env.write_text('rerank_model = "rerank-2.5-lite"\n')  # the secrets file's earlier key
    assert Settings().voyage_rerank_model == "rerank-2.5-lite"
    monkeypatch.setenv("RERANK_MODEL", "rerank-2")  # not a name of ours: ignored
    assert Settings().voyage_rerank_model == "rerank-2.5-lite"
    monkeypatch.setenv("RETRIEVAL_LAB_RERANK_MODEL", "rerank-2")  # the environment wins over the file
    assert Settings().voyage_rerank_model == "rerank-2"
    monkeypatch.delenv("RETRIEVAL_LAB_RERANK_MODEL")
    clean_env.write_text('voyage_rerank_model = "rerank-2"\n')
    assert Settings().voyage_rerank_model == "rerank-2"
    assert Settings(voyage_rerank_model="rerank-2.5").voyage_rerank_model == "rerank-2.5"
    clean_env.write_text("")
    assert Settings(rerank_model="rerank-2.5-lite").voyage_rerank_model == "rerank-2.5-lite"  # a caller's old name
