"""Session keys of the spot-check page and how its buttons act: in `on_click` callbacks (before the script
reruns), which write to the store at once; a message, or a failure in one line, is shown on the next run."""

from __future__ import annotations

import logging
from collections.abc import Callable

from dashboard.common.flash import flash, show_flash
from dashboard.common.text import md
from pipeline.errors import RetrievalLabError

log = logging.getLogger("retrieval_lab")
NS = "spotcheck"
FLASH = f"{NS}.flash"
ERROR = f"{NS}.error"


def safely(action: Callable[[], str | None]) -> None:
    """Run a callback action; its message (or its error, one line) is shown on the next run."""
    try:
        message = action()
        if message:
            flash(FLASH, message)
    except RetrievalLabError as exc:
        flash(ERROR, md(exc), "error")
    except Exception as exc:  # the trace goes to the server log, the page shows one line
        log.exception("spot-check action failed")
        flash(ERROR, f"Something went wrong: {type(exc).__name__}: {md(exc)}", "error")


def show_messages() -> None:
    show_flash(ERROR)
    show_flash(FLASH)
