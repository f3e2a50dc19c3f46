import streamlit as st

from dashboard.common.admin import admin_actor, read_only_notice
from dashboard.common.runtime import run
from dashboard.common.sidebar import page_context
from pipeline.graph.deals import deal_counts
from pipeline.ingest.demo.seed import reset_demo

st.title("Deals & data")
st.caption("Every deal in the graph backend with its counts; the demo deal can be reset to its original state.")

lab, _ = page_context()
actor = admin_actor(lab.settings)
rows = []
for deal in run(lab.deals()):
    counts = run(deal_counts(lab.backend, deal.group_id))
    rows.append(
        {
            "deal": deal.group_id,
            "name": deal.name,
            "source": deal.source,
            **counts.__dict__,
            "embedder": deal.embedder.describe(),
            "built": deal.created_at,
        }
    )
st.dataframe(rows, hide_index=True, key="deals.table")
st.code("python -m pipeline import-beir ../shared/data/tatqa --group tatqa", language="bash")

st.subheader("Reset the demo deal")
st.caption("Rebuilds `demo` from the bundled data: corrections and merges made to it are dropped (audited).")
if actor is None:
    read_only_notice()
elif st.button("Reset demo deal", key="deals.reset", type="primary", icon=":material/restart_alt:"):
    with st.spinner("Rebuilding the demo deal…"):
        result = run(reset_demo(lab.backend, lab.embedder, lab.settings.resolved_data_dir, lab.store, actor))
    st.success(f"Demo deal reset: {result.facts} facts, {result.entities} entities, {result.merges} merges.")
