"""The Evaluate & tune page's saved experiments: the one shown, and two compared.

The result shown is always a saved experiment, named in the URL (`evaluate.experiment`), so a reload shows the same
numbers; it can be renamed. A cancelled sweep keeps the queries it finished, as a partial experiment, marked partial
wherever it is named or shown. Two experiments of the deal side by side: what each recommends and why they differ,
then the settings both ran.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboard.common.page_state.url import current_pick, linked_id, pick_key, publish_id, set_pick
from dashboard.common.tables import show_table
from dashboard.common.text import OPTION_CHARS, md, plain
from dashboard.evaluate.jobs_view import NS, OPEN
from pipeline.api import Lab
from pipeline.api.models import METRIC_NAMES, SweepResult
from pipeline.errors import InvalidInput

NONE = 0  # "Show" option for no experiment (experiment ids start at 1)


def pick_result(lab: Lab, group_id: str) -> tuple[SweepResult | None, str | None]:
    """The saved experiment to show: the one in the URL (`evaluate.experiment`, set when this session's sweep
    ended or an experiment is picked), so a reload shows the same result."""
    experiments = lab.evaluation.list_experiments(group_id)
    labels = {e.id: lab.evaluation.experiment_label(e) for e in experiments}
    if (linked := linked_id(OPEN, labels, "experiment", "an experiment of this deal")) is not None:
        set_pick(OPEN, linked)
    if current_pick(OPEN) not in (NONE, *labels):
        st.session_state[pick_key(OPEN)] = NONE
    opened = st.selectbox(
        "Show",
        [NONE, *labels],
        key=pick_key(OPEN),  # the page opens a finished sweep's experiment itself: see pick_key
        format_func=lambda i: "(pick a saved sweep)" if i == NONE else plain(labels.get(i, f"#{i}"), OPTION_CHARS),
        help="Every finished sweep is saved as an experiment; the one shown is in the page's URL.",
    )
    publish_id(OPEN, None if opened == NONE else opened)
    if opened == NONE:
        return None, None
    info, result = lab.evaluation.load_experiment(opened, rankings=False)  # rankings: read where shown
    _fingerprint_line(lab, result)
    _rename_form(lab, info.id, group_id, info.name)
    return result, f"#{info.id} {info.name}"


def _fingerprint_line(lab: Lab, result: SweepResult) -> None:
    if "judge_agreement" in result.eval_set:  # beside metrics that rest on the LLM judge's grades
        st.caption(md(result.eval_set["judge_agreement"]))
    fp = result.fingerprint
    if fp:
        graph, judgments = (
            lab.evaluation.describe_graph(fp["graph"]),
            lab.evaluation.describe_judgments(fp["judgments"]),
        )
        st.caption(f"Ran on {md(graph)}; judgments {md(judgments)}.")
    else:
        st.caption("Saved before run fingerprints: the graph and judgment states it ran on were not recorded.")


def _rename_form(lab: Lab, exp_id: int, group_id: str, name: str) -> None:
    with st.popover("Rename", icon=":material/edit:"), st.form(f"{NS}.rename_form", border=False):
        new = st.text_input("Experiment name", value=name, key=f"{NS}.name_{exp_id}")
        if st.form_submit_button("Rename"):
            try:
                lab.evaluation.rename_experiment(exp_id, group_id, new)
            except InvalidInput as exc:
                st.error(md(exc))
            else:
                st.rerun()


def render_comparison(lab: Lab, group_id: str) -> None:
    experiments = lab.evaluation.list_experiments(group_id)
    st.subheader("Compare experiments")
    if len(experiments) < 2:
        st.caption("Save two experiments on this deal to compare them.")
        return
    labels = {e.id: lab.evaluation.experiment_label(e) for e in experiments}

    def option(i: int) -> str:
        return plain(labels[i], OPTION_CHARS)

    # one experiment a row: their labels (name, deal, queries, when) need the page's width at 1280 px
    a = st.selectbox("Experiment A", list(labels), index=1, key=f"{NS}.cmp_a", format_func=option)
    b = st.selectbox("Experiment B", list(labels), index=0, key=f"{NS}.cmp_b", format_func=option)
    metric = st.columns(3)[0].selectbox("Metric", list(METRIC_NAMES), key=f"{NS}.cmp_metric")
    if a == b:
        st.caption("Pick two different experiments.")
        return
    result_a, result_b = (lab.evaluation.load_experiment(e, rankings=False)[1] for e in (a, b))
    _recommendations(lab, result_a, result_b, metric)
    for line in lab.evaluation.data_warnings(result_a, result_b):
        st.warning(md(line), icon=":material/warning:")
    rows = lab.evaluation.compare_experiments(result_a, result_b, metric)
    if not rows:
        st.info("The two experiments share no setting.")
        return
    st.markdown(f"**The settings both ran** ({metric})")
    show_table(
        pd.DataFrame(
            [
                {
                    "setting": r.setting,
                    f"A {metric}": round(r.metric_a, 4),
                    f"B {metric}": round(r.metric_b, 4),
                    "delta": round(r.delta, 4),
                    "p (paired, shared queries)": r.p_value,
                    "shared queries": r.queries,
                    "A p50 ms": round(r.p50_a, 1),
                    "B p50 ms": round(r.p50_b, 1),
                }
                for r in rows
            ]
        ),
        f"{NS}.cmp_table",
    )


def _recommendations(lab: Lab, a: SweepResult, b: SweepResult, metric: str) -> None:
    """What each experiment recommends, side by side (setting, metric with its confidence interval, why), then
    how their setups differ, which is what makes two recommendations differ on the same data."""
    sides = {"A": lab.evaluation.recommended_side(a, metric), "B": lab.evaluation.recommended_side(b, metric)}
    cols = st.columns(2)
    for col, (which, side) in zip(cols, sides.items(), strict=True):
        with col.container(border=True, key=f"{NS}.cmp_rec_{which}"):
            rec = side.recommendation
            st.markdown(f"**{which} recommends {md(rec.key)}**" + (" (partial run)" if side.partial else ""))
            st.markdown(md(f"{lab.evaluation.metric_label(metric)} {side.interval.text()}"))
            st.caption(md(rec.sentence))
    same = sides["A"].recommendation.key == sides["B"].recommendation.key
    differences = lab.evaluation.setup_differences(a, b)
    verdict = "Both recommend the same setting." if same else "They recommend different settings."
    if differences:
        st.markdown(f"{verdict} How the two sweeps differ:")
        st.markdown("\n".join(f"- {md(line)}" for line in differences))
    else:
        st.caption(f"{verdict} Same grid, queries, judgment source and time options.")
