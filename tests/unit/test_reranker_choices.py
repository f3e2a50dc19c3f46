import pytest

from pipeline.errors import InvalidInput
from pipeline.rerankers import make_reranker, reranker_choices
from pipeline.rerankers.voyage import LAST_FAILURE
from pipeline.settings import Settings


def choice(settings: Settings, name: str):
    return next(c for c in reranker_choices(settings) if c.name == name)


def test_voyage_says_no_key_then_unreachable_after_a_failure(monkeypatch: pytest.MonkeyPatch) -> None:
    no_key = choice(Settings(voyage_api_key=None), "voyage")
    assert (no_key.available, no_key.note) == (False, "no API key (set VOYAGE_API_KEY)")
    keyed = Settings(voyage_api_key="vk-test", voyage_rerank_model="rerank-2.5")
    assert choice(keyed, "voyage").available
    monkeypatch.setitem(LAST_FAILURE, "rerank-2.5", "Voyage rerank-2.5: unreachable (connection refused)")
    failing = choice(keyed, "voyage")
    assert not failing.available
    assert failing.note == "unreachable or failing: Voyage rerank-2.5: unreachable (connection refused)"
    assert choice(keyed, "local").available and choice(keyed, "none").available


def test_unknown_reranker_is_rejected_with_the_valid_names() -> None:
    with pytest.raises(InvalidInput, match="none, local, voyage, cohere"):
        make_reranker("jina", Settings())
    assert make_reranker("none", Settings()) is None
