"""Retrieval Lab: every page, listed explicitly in sections.

The page files live in `app_pages/`, not `pages/`: Streamlit 1.67 still runs its legacy multipage
mode whenever a `pages/` folder sits beside the entry script, which bypasses this navigation.
"""

import streamlit as st

st.set_page_config(page_title="Retrieval Lab", page_icon=":material/manage_search:", layout="wide")

pages = {
    "": [st.Page("app_pages/home.py", title="Home", icon=":material/home:", default=True)],
    "Explore": [
        st.Page("app_pages/compare.py", title="Compare", icon=":material/compare_arrows:", url_path="compare"),
        st.Page("app_pages/scores.py", title="Scores", icon=":material/table_chart:", url_path="scores"),
    ],
}
st.navigation(pages).run()
