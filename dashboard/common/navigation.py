"""Every page of the app, in its section, with a one-line description (the home page lists them).

The sidebar lists every page but the views of one record that other pages link to (Evidence, a fact's): past twelve
entries Streamlit folds the rest under "View more", which would hide the Admin section."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st
from streamlit.navigation.page import StreamlitPage


@dataclass(frozen=True)
class PageSpec:
    path: str
    title: str
    icon: str
    url_path: str
    blurb: str
    listed: bool = True  # in the sidebar; else reached through links (and Home's list), as a view of a record


# Kept as a table (fmt: skip below): one page per entry reads better than ruff spreading each over 7 lines.
SECTIONS: dict[str, list[PageSpec]] = {
    "Explore": [
        PageSpec("app_pages/compare.py", "Compare", ":material/compare_arrows:", "compare",
                 "one query with and without reranking, side by side: what moved, came in, dropped out"),
        PageSpec("app_pages/scores.py", "Scores", ":material/table_chart:", "scores",
                 "every candidate's fused score and BM25 / cosine / BFS ranks beside its reranker score"),
        PageSpec("app_pages/timeline.py", "Timeline", ":material/timeline:", "timeline",
                 "superseded facts on a timeline, what was true as of any date, fact corrections"),
        PageSpec("app_pages/evidence.py", "Evidence", ":material/hub:", "evidence",
                 "a fact's neighbourhood: its entities, versions, sources, and where a query found it (open it "
                 "from any fact)", listed=False),
    ],
    "Evaluate": [
        PageSpec("app_pages/evaluate.py", "Evaluate & tune", ":material/tune:", "evaluate",
                 "metrics on labelled query sets; sweep candidates, top-k and rerankers"),
        PageSpec("app_pages/why.py", "Loss X-ray", ":material/troubleshoot:", "why",
                 "where each judged-relevant fact was lost: no list, a floor, N, k; what-ifs"),
        PageSpec("app_pages/spotcheck.py", "Citation spot-check", ":material/fact_check:", "spotcheck",
                 "review what the agent would cite and record verdicts"),
        PageSpec("app_pages/latency.py", "Latency & cost", ":material/speed:", "latency",
                 "per-stage latency percentiles against budgets, and reranking cost"),
        PageSpec("app_pages/history.py", "History", ":material/history:", "history",
                 "every run kept: open one as it was, compare two"),
    ],
    "Admin": [
        PageSpec("app_pages/merges.py", "Entity merges", ":material/merge:", "merges",
                 "recorded merges, candidate duplicates, merge / reject / undo"),
        PageSpec("app_pages/deals.py", "Deals & data", ":material/database:", "deals",
                 "deals with their counts; reset the demo deal"),
        PageSpec("app_pages/audit.py", "Audit log", ":material/receipt_long:", "audit",
                 "every admin action: who, when, what changed, before and after; undo where possible"),
    ],
}  # fmt: skip

HOME = PageSpec("app_pages/home.py", "Home", ":material/home:", "", "what Retrieval Lab is")


def all_pages() -> list[PageSpec]:
    return [HOME, *(page for specs in SECTIONS.values() for page in specs)]


def navigation() -> StreamlitPage:
    pages = {"": [st.Page(HOME.path, title=HOME.title, icon=HOME.icon, default=True)]}
    for section, specs in SECTIONS.items():
        pages[section] = [
            st.Page(
                p.path, title=p.title, icon=p.icon, url_path=p.url_path, visibility="visible" if p.listed else "hidden"
            )
            for p in specs
        ]
    return st.navigation(pages)
