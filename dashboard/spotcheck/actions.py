"""Session keys of the spot-check page and how its buttons act: in `on_click` callbacks (before the script
reruns), which write to the store at once; a message, or a failure in one line, is shown on the next run beside
the action that gave it (`place`: the review card's answers by the card, the Adjudicate form's under it), not at
the top of the page, out of sight."""

from __future__ import annotations

import logging
from collections.abc import Callable

from dashboard.common.page_state.flash import flash, show_flash
from dashboard.common.text import md
from pipeline.errors import RetrievalLabError

log = logging.getLogger("retrieval_lab")
NS = "spotcheck"
QUEUE = f"{NS}.queue"  # the queue picked: its picker's key and the URL's parameter
PAGE = "page"  # actions that change the whole page (a queue or pool built, the judge run): shown above the tabs
CARD = "card"
ADJUDICATE = "adjudicate"


def _keys(place: str) -> tuple[str, str]:
    return f"{NS}.{place}.flash", f"{NS}.{place}.error"


def safely(action: Callable[[], str | None], place: str = PAGE) -> None:
    """Run a callback action; its message (or its error, one line) is shown at `place` on the next run."""
    done, failed = _keys(place)
    try:
        message = action()
        if message:
            flash(done, message)
    except RetrievalLabError as exc:
        flash(failed, md(exc), "error")
    except Exception as exc:  # the trace goes to the server log, the page shows one line
        log.exception("spot-check action failed")
        flash(failed, f"Something went wrong: {type(exc).__name__}: {md(exc)}", "error")


def show_messages(place: str = PAGE) -> None:
    done, failed = _keys(place)
    show_flash(failed)
    show_flash(done)
