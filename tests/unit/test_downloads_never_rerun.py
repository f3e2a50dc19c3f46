"""Every download button leaves the page alone when clicked (`on_click="ignore"`).

A click on a download button whose file is built on click (`data` a callable) makes Streamlit build the file and
hand the browser its URL; with the default `on_click="rerun"` the same click also reruns the page, and the end of
that rerun prunes files no session refers to, the one just built included. Under load the browser then asks for a
file that is gone and nothing downloads (a browser test saw it). A download never needs a rerun, so none asks.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def download_buttons() -> list[tuple[str, ast.Call]]:
    found = []
    for path in sorted([*(ROOT / "dashboard").rglob("*.py"), *(ROOT / "app_pages").rglob("*.py")]):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "download_button":
                found.append((f"{path.relative_to(ROOT)}:{node.lineno}", node))
    return found


def test_every_download_button_is_clicked_without_a_rerun() -> None:
    buttons = download_buttons()
    assert len(buttons) >= 9, [where for where, _ in buttons]  # the scan sees the page's buttons
    rerunning = [
        where
        for where, call in buttons
        if not any(
            k.arg == "on_click" and isinstance(k.value, ast.Constant) and k.value.value == "ignore"
            for k in call.keywords
        )
    ]
    assert not rerunning, rerunning
