import streamlit as st

from dashboard.common.sidebar import page_context
from dashboard.why.view import SWEPT, controls, render, render_swept, source_control, sweep_control

st.title("Loss X-ray")
st.caption(
    "Where each judged-relevant fact was lost under each setting: in no method's list, under the cosine floor, cut "
    "by N, ranked below k, or filtered by date; and what a larger N or a lifted floor would bring."
)

lab, deal = page_context()
if deal is not None:
    if source_control() == SWEPT:
        experiment = sweep_control(lab, deal.group_id)
        if experiment is not None:
            render_swept(lab, deal, experiment)
    else:
        chosen = controls(lab, deal.group_id)
        if chosen is not None:
            render(lab, deal, *chosen)
