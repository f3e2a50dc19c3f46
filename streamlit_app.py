"""Retrieval Lab: every page, listed explicitly in sections (see dashboard/common/navigation.py).

The shared sidebar is drawn here, once, before the page runs; the page body runs under one guard,
so an error shows as one line under the page's title. The page files live in `app_pages/`, not
`pages/`: Streamlit 1.67 still runs its legacy multipage mode whenever a `pages/` folder sits beside
the entry script, which bypasses this navigation.
"""

import streamlit as st

from dashboard.common.admin import draw_admin_box
from dashboard.common.navigation import navigation
from dashboard.common.runtime import page_guard
from dashboard.common.sidebar import draw_details, draw_sidebar

# an emoji favicon is drawn in the browser; a `:material/...:` one is fetched from fonts.gstatic.com on every page
st.set_page_config(page_title="Retrieval Lab", page_icon="🔎", layout="wide")
page = navigation()
draw_sidebar()
draw_admin_box()  # on every page: unlocked once, admin actions stay on across pages until sign-out or idle
draw_details()
with page_guard():
    page.run()
