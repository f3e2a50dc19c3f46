"""Issue 38, items 7 and 11: a custom recipe that is no SearchConfig is one line naming the field at fault, on the
Evaluate page and on the CLI (exit 2); NaN, Infinity and deep nesting are refused the same way, never a blank page
("Something went wrong: ValidationError / RecursionError") or a job that fails later. N and k in a Compare or
Scores link are digits 0-9 only."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from pipeline.cli import main
from pipeline.errors import InvalidInput
from pipeline.retrieval.recipes import Recipe
from tests.app.conftest import no_errors, open_page
from tests.app.test_bad_links import opened

DEEP = '{"edge_config": ' * 3000 + "{}" + "}" * 3000
BAD = [
    # NaN where pydantic takes a float: it was stored as null and failed when the sweep job read it back
    ('{"search_methods": ["bm25"], "reranker": "mmr", "mmr_lambda": NaN}', "NaN is not a number JSON allows"),
    ('{"edge_config": {"search_methods": ["bm25"]}, "reranker_min_score": Infinity}', "Infinity is not a number"),
    ('{"search_methods": ["bm25"], "sim_min_score": -Infinity}', "-Infinity is not a number"),
    (DEEP, "nests arrays or objects more than 20 deep"),
    ("[" * 100_000, "nests arrays or objects more than 20 deep"),
]


@pytest.mark.parametrize(("text", "says"), BAD)
def test_nan_infinity_and_deep_nesting_are_refused_in_one_line(text: str, says: str) -> None:
    with pytest.raises(InvalidInput, match=says) as refused:
        Recipe.from_config(text, "The custom recipe")
    assert "\n" not in str(refused.value) and len(str(refused.value)) < 300


def test_a_wrong_field_is_named_with_the_value_given() -> None:
    with pytest.raises(InvalidInput) as refused:
        Recipe.from_config('{"edge_config": {"search_methods": ["bm25"], "reranker": "rrf"}}')
    line = str(refused.value)
    assert "edge_config.reranker: 'rrf' is refused: Input should be 'reciprocal_rank_fusion'" in line, line
    with pytest.raises(InvalidInput, match=r"edge_config\.search_methods\.0: 'sql' is refused"):
        Recipe.from_config('{"search_methods": ["sql"]}')


@pytest.mark.parametrize(("text", "says"), [BAD[0], BAD[3]])
def test_the_cli_exits_2_naming_the_file(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, says: str):
    path = tmp_path / "prod.json"
    path.write_text(text)
    with pytest.raises(InvalidInput, match=says):
        Recipe.parse(str(path))
    assert main(["eval", "--group", "demo", "--recipes", str(path), "--reranker", "none", "--no-save"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"error: {path}: not a graphiti SearchConfig") and says in err[0]


@pytest.mark.parametrize(("text", "says"), [BAD[0], BAD[3]])
def test_the_evaluate_page_says_one_line_and_waits(app: AppTest, text: str, says: str) -> None:
    open_page(app, "app_pages/evaluate.py")
    app.text_area(key="evaluate.custom_recipe").input(text).run()
    assert not app.exception, [e.value for e in app.exception]
    errors = [e.value for e in app.error]
    assert len(errors) == 1 and says in errors[0] and "Something went wrong" not in errors[0], errors
    assert app.button(key="evaluate.run").disabled  # nothing runs until the paste is fixed


@pytest.mark.parametrize(
    ("page", "keys"),
    [("app_pages/compare.py", ("compare.a.n", "compare.b.k")), ("app_pages/scores.py", ("scores.n", "scores.k"))],
)
def test_n_and_k_in_a_link_are_ascii_digits_only(demo: str, page: str, keys: tuple[str, str]) -> None:
    # Python's int() reads "٢٥" as 25 and "٣" as 3: the sliders took them from the URL as those numbers
    app = opened(page, {keys[0]: "٢٥", keys[1]: "٣"})
    no_errors(app)
    lines = [w.value for w in app.warning if "left out" in w.value]
    assert len(lines) == 2 and "“٢٥”" in lines[0] and "“٣”" in lines[1], lines
    assert keys[0] not in app.query_params and keys[1] not in app.query_params
    assert app.slider(key=keys[0]).value == 50 and app.slider(key=keys[1]).value == 10  # the defaults
    good = opened(page, {keys[0]: "25", keys[1]: "3"})  # digits 0-9 still open as given
    assert good.slider(key=keys[0]).value == 25 and good.slider(key=keys[1]).value == 3
    assert not [w.value for w in good.warning if "left out" in w.value]
