import streamlit as st

from dashboard.common.page_state.url import publish_id, restore_id
from dashboard.common.run_filters import any_runs, run_filter_controls
from dashboard.common.sidebar import store_context
from dashboard.common.text import OPTION_CHARS, plain
from dashboard.history.query_set import render_history_as_set
from dashboard.history.view import render_run_comparison, render_run_list, render_stored_run

st.title("History")
st.caption("Every recorded run: open one to see it again exactly as it was, or compare two side by side.")

lab, deal = store_context()
if deal is not None and any_runs(lab.store):
    render_history_as_set(lab, deal.group_id)
if any_runs(lab.store):
    flt = run_filter_controls("history", lab.store, deal.group_id if deal else None, text_search=True)
    runs = lab.history.list_runs(flt)
    if not runs:
        st.info("No run matches these filters.")
    else:
        render_run_list(runs, lab.history.count_runs(flt))
        labels = {r.id: lab.history.run_label(r) for r in runs}
        for key in ("history.open", "history.compare"):
            restore_id(key, labels, "run", "a run these filters list")  # a link or a reload opens the same runs
            if st.session_state.get(key) not in (None, *labels):  # a run the filters now hide is deselected
                st.session_state[key] = None
        # one picker a row: a run's label (when, reranker, N, query) needs the page's width at 1280 px
        first = st.selectbox(
            "Open a run",
            [None, *labels],
            key="history.open",
            format_func=lambda i: "Pick a run…" if i is None else plain(labels[i], OPTION_CHARS),
        )
        second = st.selectbox(
            "Compare it with",
            [None, *labels],
            key="history.compare",
            format_func=lambda i: "Pick a second run…" if i is None else plain(labels[i], OPTION_CHARS),
        )
        publish_id("history.open", first)
        publish_id("history.compare", second)
        if first is not None and second is not None and first != second:
            render_run_comparison(lab.store, lab.history.load_run(first), lab.history.load_run(second))
        elif first is not None:
            render_stored_run(lab.history.load_run(first))
