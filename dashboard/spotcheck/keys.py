"""The review card's keys: a client-side key queue with a sequence number per key, applied once each on the server.

Streamlit's own button shortcuts are registered again each time the buttons redraw, so a key typed while the page
redraws was dropped, and one typed as the card changed acted on the card drawn next. Here a small component
(`st.components.v2`, in the page itself, no iframe) owns the card's keys instead:

- It knows the queue's item ids and follows Enter / ← / skip itself, at once, so each key is stamped with the
  item id of the card it was pressed on (not the card the server will draw next) and a sequence number that only
  grows (per queue, reviewer and page load: the "epoch").
- It keeps every key not yet acknowledged in a list on `window` (it survives the component's redraws) and sends
  the WHOLE list as its state value on each key: Streamlit coalesces reruns, so a one-shot value could be
  overwritten by the next before a run read it; a list cannot lose a key.
- The server (`apply_keys`, the state's change callback, run before the script) applies the keys with a sequence
  number above the last it applied for that epoch, in order, each on the item id it names, and passes that number
  back (`ack`); the client drops what was acknowledged and sends the rest again if no answer comes. So no key is
  dropped, none moves to another card, and a key sent twice is applied once. A key that cannot be saved (a
  relevance key on a fact sample, a store error) is refused in a line by the card's keys, never silently.
"""

from __future__ import annotations

import logging
import threading
import zlib
from collections.abc import Callable, MutableMapping
from dataclasses import dataclass
from typing import Any

import streamlit as st

from dashboard.common.grading import grade_label
from dashboard.common.text import md
from dashboard.spotcheck.actions import NS
from pipeline.api import Lab
from pipeline.api.models import VERDICTS, Queue, QueueItem
from pipeline.errors import RetrievalLabError

log = logging.getLogger("retrieval_lab")

GRADE_KEYS = {"a": 0, "s": 1, "d": 2, "f": 3}
SUPPORT_KEYS = {"1": "supported", "2": "partially_supported", "3": "not_supported", "4": "wrong_source"}
UNDO_KEY = "z"
SKIP_KEYS = ("k", "ArrowRight")
APPLIED = f"{NS}.keys.applied"  # {(queue, reviewer, epoch): last sequence number applied}
LINES = f"{NS}.keys.lines"  # {(queue, reviewer): (the last keys' confirmation, their refusals)}
UNDO = f"{NS}.keys.undo"  # {(queue, reviewer): [(item id, question, value before the answer), ...]}
# Under load Streamlit can start a session's next run on a new thread while the old one still runs its callbacks:
# two runs would both read the same last sequence number and apply a key twice. One key application at a time.
_APPLYING = threading.Lock()
MAX_EVENTS = 500  # a client sends at most this many unacknowledged keys; more is not a reviewer typing

_JS = """
export default function (component) {
  const { data, setStateValue, parentElement } = component;
  const G = (window.__retrievalLabSpotKeys ||= {
    epoch: Math.random().toString(36).slice(2) + Date.now().toString(36),
    boards: {}, active: null, listening: false,
  });
  const b = (G.boards[data.board] ||= { seq: 0, sent: 0, pending: [], cursor: data.position, help: false });
  b.items = data.items; b.send = setStateValue; b.keys = data.keys;
  // the page can hold this component twice for a moment (the old one while a rerun redraws): every live copy
  // shows the same line, and only the last copy unmounted stops the keys
  (b.roots ||= new Set()).add(parentElement);
  b.root = parentElement;
  if (data.epoch === G.epoch) b.pending = b.pending.filter((e) => e.seq > data.ack);
  // the server's card is the truth once it has every key (a mouse click on Next / Previous moves it too)
  if (b.pending.length === 0) b.cursor = data.position;
  b.cursor = Math.min(Math.max(1, b.cursor), b.items.length);
  G.active = b;

  // the whole unacknowledged list, every time: a rerun that reads only the newest value still gets every key
  G.push = (a) => {
    a.sent += 1;
    a.lastSend = Date.now();
    a.send("events", { epoch: G.epoch, list: a.pending.slice(), sent: a.sent });
  };
  const draw = () => {
    const n = b.pending.length;
    for (const root of b.roots) {
      const line = root.querySelector(".line");
      if (!line) continue;
      line.textContent = `Keys go to card ${b.cursor} of ${b.items.length} · ` +
        (n ? `${n} key${n > 1 ? "s" : ""} being saved` : "all keys saved") + " · ? keys help";
      line.dataset.pending = String(n);
      line.dataset.cursor = String(b.cursor);
      root.querySelector(".help").hidden = !b.help;
    }
  };
  b.draw = draw;

  if (!G.listening) {
    G.listening = true;
    document.addEventListener("keydown", (ev) => {
      const a = G.active;
      if (!a || ev.ctrlKey || ev.metaKey || ev.altKey || ev.isComposing) return;
      const t = ev.target;
      if (t && (t.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(t.tagName))) return;
      const shown = [...a.roots].some((r) => {
        const host = r.host || r;
        return host.isConnected && host.getClientRects().length > 0;
      });
      if (!shown) return;  // the card is on another tab, or gone
      const key = ev.key.length === 1 ? ev.key.toLowerCase() : ev.key;
      if (key === "?") { a.help = !a.help; a.draw(); ev.preventDefault(); return; }
      const action = a.keys[key];
      if (!action) return;
      ev.preventDefault();
      ev.stopPropagation();
      const item = a.items[a.cursor - 1];
      a.seq += 1;
      a.pending.push({ seq: a.seq, item: item, action: action });
      if (action === "next" || action === "skip") a.cursor = Math.min(a.cursor + 1, a.items.length);
      if (action === "prev") a.cursor = Math.max(a.cursor - 1, 1);
      a.draw();
      G.push(a);
    }, true);
    // keys not acknowledged in a while are sent again (a reconnect, a lost rerun): the server applies each once
    setInterval(() => {
      const a = G.active;
      if (a && a.pending.length && Date.now() - (a.lastSend || 0) > 3000) G.push(a);
    }, 1000);
  }
  draw();
  return () => {
    b.roots.delete(parentElement);
    if (G.active === b && b.roots.size === 0) G.active = null;
  };
}
"""

_HTML = """
<div class="line" data-testid="spotcheck-keys-line"></div>
<div class="help" hidden>
<b>Keys on the review card</b> (not while typing in a field)
<ul>
<li><b>A S D F</b>: relevance 0-3 · <b>1-4</b>: support (supported, partially, not supported, wrong source)
 — saved on the card the key was pressed on; the card stays</li>
<li><b>Enter</b>: next card · <b>←</b>: previous card · <b>K</b> or <b>→</b>: skip this card (next card, no answer)</li>
<li><b>Z</b>: undo your last answer (its previous answer comes back as a new revision)</li>
<li><b>?</b>: show or hide this help</li>
</ul>
</div>
"""

_CSS = """
.line { font-size: 0.85rem; opacity: 0.75; }
.help { font-size: 0.85rem; border: 1px solid rgba(128,128,128,0.4); border-radius: 0.5rem; padding: 0.25rem 0.75rem; }
"""

_keys_component = st.components.v2.component("spotcheck_review_keys", html=_HTML, js=_JS, css=_CSS)

KEYMAP: dict[str, str] = {
    **{k: f"relevance:{g}" for k, g in GRADE_KEYS.items()},
    **{k: f"support:{v}" for k, v in SUPPORT_KEYS.items()},
    "Enter": "next",
    "ArrowLeft": "prev",
    **dict.fromkeys(SKIP_KEYS, "skip"),
    UNDO_KEY: "undo",
}


def _board(queue: Queue, reviewer: str) -> tuple[int, str]:
    return (queue.id, reviewer.strip().casefold())


def undo_stack(queue_id: int, reviewer: str) -> list[tuple[int, str, Any]]:
    """This reviewer's answers saved in this session on the queue, oldest first: (item id, question, the answer
    it replaced or None)."""
    undo = st.session_state.setdefault(UNDO, {})
    return undo.setdefault((queue_id, reviewer.strip().casefold()), [])


def record_answer(
    lab: Lab, item: QueueItem, reviewer: str, question: str, value: Any, note: str, undo: list[tuple[int, str, Any]]
) -> str:
    """Save one answer on `item` (a new revision when there was one) and remember it on `undo`; the card's line.
    No Streamlit call: a key's callback calls it where a rerun must not cut in (see `_Session`)."""
    previous: Any
    if question == "relevance":
        grade = lab.spotcheck.relevance_by(item.queue_id, reviewer).get(item.id)
        previous = grade.grade if grade else None
        saved: Any = lab.spotcheck.record_relevance(item.id, reviewer, int(value), note)
        said = f"relevance **{grade_label(saved.grade)}**"
    else:
        verdict = lab.spotcheck.verdicts_by(item.queue_id, reviewer).get(item.id)
        previous = verdict.verdict if verdict else None
        saved = lab.spotcheck.record_verdict(item.id, reviewer, str(value), note)
        said = f"support **{VERDICTS[saved.verdict].lower()}**"
    undo.append((item.id, question, previous))
    del undo[:-200]
    again = f" (revision {saved.revision})" if saved.revision > 1 else ""
    return f"Saved on card {item.position}: {said}{again}."


def undo_last(lab: Lab, reviewer: str, items: dict[int, QueueItem], undo: list[tuple[int, str, Any]]) -> str:
    """Undo this reviewer's last answer saved in this session: its previous answer is saved again, as a new
    revision (the history keeps every answer, the undone one too). A first answer has nothing to go back to: the
    store keeps one row per answer with its audit trail, so it is not deleted; the reviewer is told so."""
    if not undo:
        raise RetrievalLabError("Nothing to undo: no answer saved in this session on this queue.")
    item_id, question, previous = undo[-1]
    item = items.get(item_id)
    if item is None:
        undo.pop()
        raise RetrievalLabError("Nothing to undo: the last answer's card is no longer in this queue.")
    if previous is None:
        raise RetrievalLabError(
            f"Not undone: card {item.position}'s {question} was its first answer, and answers are never deleted "
            "(each is kept with its revisions). Press the right key to change it."
        )
    undo.pop()
    saved: Any
    if question == "relevance":
        saved = lab.spotcheck.record_relevance(item.id, reviewer, int(previous), "")
        said = f"relevance back to **{grade_label(saved.grade)}**"
    else:
        saved = lab.spotcheck.record_verdict(item.id, reviewer, str(previous), "")
        said = f"support back to **{VERDICTS[saved.verdict].lower()}**"
    return f"Undone on card {item.position}: {said} (revision {saved.revision})."


@dataclass
class _Session:
    """The session's objects a key touches, fetched before any key is applied. Every read or write of
    `st.session_state` is a point where Streamlit stops a run that a newer rerun replaces (its "yield" check): none
    may come between a key's save and the record of its sequence number, or a key saved but not recorded as
    applied would be saved again by the next run."""

    applied: dict[tuple[int, str, str], int]
    lines: dict[tuple[int, str], tuple[str | None, str]]
    undo: list[tuple[int, str, Any]]
    positions: MutableMapping[Any, Any]
    position_key: Any
    note_item: int | None
    note: str


def _apply_one(
    lab: Lab, reviewer: str, items: dict[int, QueueItem], event: dict[str, Any], session: _Session
) -> str | None:
    item = items.get(int(event.get("item") or 0))
    action = str(event.get("action", ""))
    if item is None:
        raise RetrievalLabError("Not saved: that key named a card that is not in this queue.")
    if action in ("next", "skip", "prev"):
        to = item.position - 1 if action == "prev" else item.position + 1
        session.positions[session.position_key] = min(max(to, 1), len(items))
        return None
    if action == "undo":
        return undo_last(lab, reviewer, items, session.undo)
    note = session.note if session.note_item == item.id else ""  # the note typed on that card, only
    question, _, value = action.partition(":")
    if question == "relevance" and value.isdigit():
        asked_on = lab.spotcheck.relevance_cards(list(items.values())).get(item.id, item.id)
        if asked_on != item.id:
            raise RetrievalLabError(
                f"Not saved: relevance of this fact to this query is asked on card {items[asked_on].position}; "
                f"card {item.position} asks support only."
            )
        return record_answer(lab, item, reviewer, "relevance", int(value), note, session.undo)
    if question == "support" and value in VERDICTS:
        return record_answer(lab, item, reviewer, "support", value, note, session.undo)
    raise RetrievalLabError("Not saved: an unknown key.")


def apply_keys(
    lab: Lab,
    queue: Queue,
    reviewer: str,
    widget: str,
    positions: Callable[[], tuple[MutableMapping[Any, Any], Any]],
    note: Callable[[], tuple[int | None, str]],
) -> None:
    """Apply the keys the client sent that were not applied yet, in order, exactly once each, on the card each
    names. Runs as the component's change callback, before the script. `positions` gives the session's card
    positions and this board's key in them; `note`, the card the note field is on and its text."""
    value = st.session_state.get(widget) or {}
    sent = value.get("events") if isinstance(value, dict) else None
    if not isinstance(sent, dict) or not reviewer.strip():
        return
    applied, lines = st.session_state.setdefault(APPLIED, {}), st.session_state.setdefault(LINES, {})
    session = _Session(applied, lines, undo_stack(queue.id, reviewer), *positions(), *note())
    with _APPLYING:  # from here to the messages, no Streamlit call (`_Session`)
        done, refused = _apply_sent(lab, queue, reviewer, sent, session)
        # the lines by the card's keys, kept (not shown once: a run that showed them could be replaced at once by
        # a newer one) until the next key; under the lock, so an older run's line never lands after a newer one's
        if done or refused:
            session.lines[_board(queue, reviewer)] = (done, " · ".join(dict.fromkeys(refused)))


def _apply_sent(
    lab: Lab, queue: Queue, reviewer: str, sent: dict[str, Any], session: _Session
) -> tuple[str | None, list[str]]:
    epoch = str(sent.get("epoch", ""))[:64]
    events = [e for e in (sent.get("list") or [])[:MAX_EVENTS] if isinstance(e, dict) and "seq" in e]
    board = (*_board(queue, reviewer), epoch)
    last = session.applied.get(board, 0)
    fresh = sorted((e for e in events if int(e["seq"]) > last), key=lambda e: int(e["seq"]))
    if not fresh:
        return None, []
    items = {i.id: i for i in lab.spotcheck.items(queue.id)}
    done: str | None = None
    refused: list[str] = []
    for event in fresh:
        try:
            done = _apply_one(lab, reviewer, items, event, session) or done
        except RetrievalLabError as exc:
            refused.append(md(exc))
        except Exception as exc:  # the trace goes to the server log, the card shows one line
            log.exception("spot-check key failed")
            refused.append(f"Not saved: {type(exc).__name__}: {md(exc)}")
        session.applied[board] = int(event["seq"])  # applied or refused (visibly): never again
    return done, refused


def render_keys(
    lab: Lab, queue: Queue, reviewer: str, items: list[QueueItem], position: int, on_change: Callable[[], None]
) -> None:
    """Mount the key component for this queue and reviewer (its widget key names both, so another reviewer's
    or queue's keys start afresh), with the acknowledgement of the keys applied so far."""
    widget = key_widget(queue, reviewer)
    value = st.session_state.get(widget) or {}
    sent = value.get("events") if isinstance(value, dict) else None
    epoch = str(sent.get("epoch", "")) if isinstance(sent, dict) else ""
    ack = st.session_state.get(APPLIED, {}).get((*_board(queue, reviewer), epoch), 0)
    _keys_component(
        key=widget,
        data={
            "board": f"{queue.id}:{reviewer.strip().casefold()}",
            "items": [i.id for i in items],
            "position": position,
            "epoch": epoch,
            "ack": ack,
            "keys": KEYMAP,
        },
        on_events_change=on_change,
        height="content",
    )


def key_widget(queue: Queue, reviewer: str) -> str:
    return f"{NS}.keys.{queue.id}.{zlib.crc32(reviewer.strip().casefold().encode()):08x}"


def show_key_lines(queue: Queue, reviewer: str) -> None:
    """The last keys' confirmation and refusals, by the card's buttons: two slots drawn on every run (a slot drawn
    only with a message would shift the page's elements and make the browser rebuild them)."""
    refused_slot, done_slot = st.empty(), st.empty()
    done, refused = st.session_state.get(LINES, {}).get(_board(queue, reviewer), (None, ""))
    if refused:
        refused_slot.error(refused, icon=":material/error:")
    if done:
        done_slot.success(done, icon=":material/check_circle:")
