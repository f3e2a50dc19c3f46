import streamlit as st

from dashboard.common.navigation import SECTIONS
from dashboard.common.runtime import run
from dashboard.common.sidebar import page_context
from dashboard.common.text import label, md

st.title("Retrieval Lab")
st.markdown(
    "Retrieval Lab shows what a hybrid Graphiti search (BM25 + vectors + graph walk) and a reranker "
    "actually return for a deal, with citations, superseded facts and entity merges in plain view. "
    "Use it to tune candidate counts, top-k and rerankers on evidence, and to check what an agent would cite."
)

lab, deal = page_context()
if deal is not None:
    st.subheader(label(deal.name))
    st.caption(md(deal.description))
    counts = run(lab.deal_book.counts(deal.group_id))
    cols = st.columns(5)
    cols[0].metric("Facts", counts.facts)
    cols[1].metric("Current", counts.current_facts)
    cols[2].metric("Superseded", counts.superseded_facts)
    cols[3].metric("Entities", counts.entities)
    cols[4].metric("Episodes", counts.episodes)
    st.caption(f"{counts.merges} recorded entity merges · vectors: {md(deal.embedder_label)}")

st.subheader("Where to go")
for section, specs in SECTIONS.items():
    st.markdown(f"**{section}**")
    for spec in specs:
        st.page_link(spec.path, label=f"{spec.title} — {spec.blurb}", icon=spec.icon)
