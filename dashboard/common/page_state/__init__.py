"""Page state, kept one way by every page.

- `url`: what a reload or a link must show again is in the URL (bound widgets, or a record's id or name); a pick
  the page also sets itself is keyed by `pick_key`, so the browser's older copy cannot undo it.
  It is the only module that touches `st.query_params` (`tests/unit/test_page_state_only.py`).
- `memo`: results worth keeping across a session's reruns, bounded (`SessionMemo`).
- `flash`: an action's one-line outcome, shown beside the action on the run that follows it.

Tabs are keyed and bound to the URL (`st.tabs(..., key=..., on_change="rerun", bind="query-params")`), so an
action in a tab, a rerun or a reload stays on that tab. Keys are `<page>.<name>`, each defined once as a
constant of the module that draws its widget and imported where another module needs it.
"""
