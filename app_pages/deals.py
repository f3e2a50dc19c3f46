import streamlit as st

from dashboard.common.admin import admin_actor, ask, confirmed, read_only_notice
from dashboard.common.runtime import run
from dashboard.common.sidebar import page_context
from dashboard.common.tables import show_table
from dashboard.common.text import md
from pipeline.api.models import DEMO_GROUP

st.title("Deals & data")
st.caption(
    "Every deal in the graph backend, whoever wrote it, with its counts, the dimension of its stored vectors and "
    "whether the configured embedder fits them; the demo deal can be reset to its original state."
)

lab, _ = page_context()
actor = admin_actor(lab.settings)
summaries = run(lab.deal_book.summaries())
rows = [
    {
        "deal": s.deal.group_id,
        "name": s.deal.name,
        "source": s.deal.source,
        **s.counts.__dict__,
        "vector dim": s.deal.embedder_dim,
        "built with": s.deal.embedder_model,
        "embedder match": s.embedder_match,
        "read-only": s.deal.read_only,
        "built": s.deal.created_at,
        "import": s.deal.import_note,
    }
    for s in summaries
]
for s in summaries:
    if s.deal.import_note:
        st.warning(f"Deal {md(s.deal.group_id)}: {md(s.deal.import_note)}.", icon=":material/warning:")
show_table(rows, "deals.table", times=("built",))
st.caption(
    f"Configured embedder: {lab.embedder.info.describe()}. Set a deal read-only with "
    "`python -m pipeline deals --read-only GROUP` (`--writable GROUP` undoes it)."
)
st.code("python -m pipeline import-beir ../shared/data/tatqa --group tatqa", language="bash")

st.subheader("Reset the demo deal")
st.caption("Rebuilds `demo` from the bundled data: corrections and merges made to it are dropped (audited).")
if not lab.access.permits(DEMO_GROUP):
    st.info("This deployment does not include the demo deal (RETRIEVAL_LAB_ALLOWED_DEALS).", icon=":material/lock:")
elif actor is None:
    read_only_notice()
else:
    demo = next((s for s in summaries if s.deal.group_id == DEMO_GROUP), None)
    open_corrections = sum(not c.undone for c in lab.corrections.list_corrections(DEMO_GROUP))
    summary = (
        f"Reset the demo deal: its {demo.counts.facts if demo else 0:,} facts and {demo.counts.merges if demo else 0} "
        f"merges are rebuilt from the bundled data; {open_corrections} open correction(s) and every merge made by "
        "an admin are dropped (audited)."
    )
    if st.button("Reset demo deal…", key="deals.reset", icon=":material/restart_alt:"):
        ask("deals.reset", summary)
    if confirmed("deals.reset", summary):
        with st.spinner("Rebuilding the demo deal…"):
            result = run(lab.ingest.reset_demo(actor))
        st.success(f"Demo deal reset: {result.facts} facts, {result.entities} entities, {result.merges} merges.")
