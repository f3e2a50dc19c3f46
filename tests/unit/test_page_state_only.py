"""One page-state mechanism: only `dashboard/common/page_state/` touches `st.query_params`. A page that read or
wrote the URL itself would decide on its own what a link may say and what a reload shows (three such places had
drifted apart); links between pages (`st.page_link(..., query_params=...)`) are keyword arguments, not the URL
object, and stay allowed."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ALLOWED = ROOT / "dashboard" / "common" / "page_state"


def url_uses(source: str) -> list[int]:
    """Lines that reach the URL object: `<anything>.query_params` or `from streamlit import query_params`."""

    def reaches(node: ast.AST) -> bool:
        if isinstance(node, ast.Attribute):
            return node.attr == "query_params"
        return isinstance(node, ast.ImportFrom) and any(alias.name == "query_params" for alias in node.names)

    return sorted(node.lineno for node in ast.walk(ast.parse(source)) if reaches(node))


def test_the_checker_finds_a_read_a_write_and_an_import_but_not_a_page_links_argument() -> None:
    source = (
        "import streamlit as st\n"
        "from streamlit import query_params\n"
        "x = st.query_params.get('a')\n"
        "del st.query_params['a']\n"
        "st.page_link('p.py', query_params={'a': '1'})\n"
    )
    assert url_uses(source) == [2, 3, 4]


def test_only_page_state_touches_the_url() -> None:
    files = [*(ROOT / "dashboard").rglob("*.py"), *(ROOT / "app_pages").rglob("*.py"), ROOT / "streamlit_app.py"]
    outside = [
        f"{path.relative_to(ROOT)}:{line}"
        for path in files
        if path.exists() and ALLOWED not in path.parents
        for line in url_uses(path.read_text(encoding="utf-8"))
    ]
    assert outside == [], "st.query_params outside dashboard/common/page_state/: " + ", ".join(outside)
