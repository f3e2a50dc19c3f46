"""Retrieval Lab: every page, listed explicitly in sections (see dashboard/common/navigation.py).

The page files live in `app_pages/`, not `pages/`: Streamlit 1.67 still runs its legacy multipage
mode whenever a `pages/` folder sits beside the entry script, which bypasses this navigation.
"""

import streamlit as st

from dashboard.common.navigation import navigation

st.set_page_config(page_title="Retrieval Lab", page_icon=":material/manage_search:", layout="wide")
navigation().run()
