"""What the loopback API stand-ins share: a threaded HTTP server on 127.0.0.1, a bearer key, a script of
faults, and a record of every request.

A fake subclasses `LoopbackServer` (lifecycle, script, record) and `LoopbackHandler` (reads the request,
checks the key and the path, plays the scripted fault); each keeps only what its API says: the paths, the
answers, the error bodies.

Faults are scripted per request: `server.script(["429", "ok"])` answers the next request with 429, the one
after normally; once the script is used up every request is answered normally. Modes: `ok`, `hang`
(answer nothing for `hang_s`; `reset()` and teardown release it at once), `malformed` (200 with a body that is not
JSON), `partial` (a normal answer with its last list item dropped), or any HTTP status as a string
(`"429"`, `"500"`, `"503"`, `"400"`, ...): the status with the API's error body.
Every request is recorded (`server.requests`: path, parsed body, headers, the `time.monotonic()` it came in)
whatever it was answered: tests prove a client's backoff from the gaps between those times (lower bounds
only, so a slow machine cannot fail them).

Concurrency: a request is in flight from the moment it is read until its answer starts (a hang: until it
ends), so a client that sends its next request only after an answer never overlaps the two.
`server.max_in_flight` is the most there ever were at once. `server.hold_until_in_flight(n)` holds every
request until `n` are in flight together (then lets all through, from then on): a client allowed `n` at a
time reaches exactly `n`; one that is not bounded shows more.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, ClassVar, Self

FAULT_MODES = ("ok", "hang", "malformed", "partial")

_WORD = re.compile(r"\w+")


def words(text: str) -> list[str]:
    """The fakes' words: what their scores, vectors and token counts are made of."""
    return _WORD.findall(text.lower())


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    body: Any  # parsed JSON, or the raw text when it was not JSON
    headers: dict[str, str] = field(default_factory=dict)
    answered: str = "ok"  # the mode or status it was answered with
    at: float = 0.0  # time.monotonic() when it was read (the same clock in every thread of the process)


class LoopbackHandler(BaseHTTPRequestHandler):
    """One request: key, path, scripted fault, then the API's answer (`answer`)."""

    server: LoopbackHTTPServer
    protocol_version = "HTTP/1.0"  # one request per connection: nothing lingers at teardown
    paths: ClassVar[frozenset[str]]  # the POST paths the API serves
    malformed: ClassVar[bytes]  # a 200 body cut off mid-JSON
    list_field: ClassVar[str] = "data"  # the answer's list of items ("partial" drops its last one)

    def answer(self, body: Any) -> dict[str, Any] | None:
        """The API's answer to `body` at `self.path`, or None when it has sent an error itself."""
        raise NotImplementedError

    def _send_error(self, status: int) -> None:
        """Answer with `status` and the API's error body."""
        raise NotImplementedError

    def refuse_key(self, authorization: str) -> None:
        self._send_error(401)

    def not_found(self) -> None:
        self._send_error(404)

    def headers_for_every_answer(self) -> dict[str, str]:
        return {}

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def do_GET(self) -> None:
        self._handle()

    def do_POST(self) -> None:
        self._handle()

    def _handle(self) -> None:
        fake = self.server.fake
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body: Any = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode("utf-8", "replace")
        headers = {k: v for k, v in self.headers.items()}

        auth = self.headers.get("Authorization") or ""
        if auth != f"Bearer {fake.api_key}":
            fake._record(self.command, self.path, body, headers, "401")
            self.refuse_key(auth)
            return
        if self.command != "POST" or self.path not in self.paths:
            fake._record(self.command, self.path, body, headers, "404")
            self.not_found()
            return

        mode = fake._next_mode()
        fake._record(self.command, self.path, body, headers, mode)
        self._in_flight = True
        fake._arrived()
        try:
            if mode == "hang":
                fake._hang()
                return  # the client has given up (or the test is over): close without an answer
            if mode == "malformed":
                self._send(200, self.malformed)
                return
            if mode not in ("ok", "partial"):
                self._send_error(int(mode))
                return
            payload = self.answer(body)
            if payload is None:
                return
            if mode == "partial":
                payload[self.list_field] = payload[self.list_field][:-1]
            self._send(200, json.dumps(payload).encode())
        finally:
            self._depart()

    def _depart(self) -> None:
        """No longer in flight: called before the answer's first byte, so the client cannot overlap it."""
        if getattr(self, "_in_flight", False):
            self._in_flight = False
            self.server.fake._departed()

    def _send(self, status: int, payload: bytes, extra_headers: dict[str, str] | None = None) -> None:
        self._depart()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            for name, value in {**self.headers_for_every_answer(), **(extra_headers or {})}.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(payload)
        except OSError:  # the client went away first
            pass


class LoopbackHTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    fake: LoopbackServer


class LoopbackServer:
    """A loopback API. Use as a context manager, or call `start()` / `stop()`."""

    api_name: ClassVar[str]  # "Voyage": names the thread and the not-running error
    handler: ClassVar[type[LoopbackHandler]]

    def __init__(self, api_key: str, hang_s: float = 30.0) -> None:
        self.api_key = api_key
        self.hang_s = hang_s
        self._lock = threading.Lock()
        self._script: deque[str] = deque()
        self._requests: list[RecordedRequest] = []
        self._closing = threading.Event()
        self._changed = threading.Condition(self._lock)  # in-flight counts
        self._in_flight = 0
        self._max_in_flight = 0
        self._hold_until: int | None = None
        self._generation = 0  # reset() starts a new one: hangs of the one before end
        self._httpd: LoopbackHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # lifecycle
    def start(self) -> Self:
        self._closing.clear()
        httpd = LoopbackHTTPServer(("127.0.0.1", 0), self.handler)
        httpd.fake = self
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=f"fake-{self.api_name.lower()}",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._closing.set()  # releases hanging and held handlers at once
        with self._changed:
            self._changed.notify_all()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError(f"the fake {self.api_name} server is not running")
        return self._httpd.server_address[1]

    @property
    def base_url(self) -> str:
        """What to pass as the SDK's `base_url` (the SDK appends the endpoint's path)."""
        return f"http://127.0.0.1:{self.port}/v1"

    # scripting and inspection
    def script(self, modes: Iterable[str]) -> None:
        """Answer the next requests with these modes, in order; then normally."""
        modes = [str(m) for m in modes]
        for m in modes:
            if m not in FAULT_MODES and not (m.isdigit() and 100 <= int(m) <= 599):
                raise ValueError(f"unknown fault mode {m!r}: use {FAULT_MODES} or an HTTP status")
        with self._lock:
            self._script.extend(modes)

    def reset(self) -> None:
        """Forget recorded requests and any script left; end hangs and holds, wait (at most `hang_s`) until no
        request is in flight, and start counting the most in flight again."""
        with self._changed:
            self._script.clear()
            self._requests.clear()
            self._hold_until = None
            self._generation += 1
            self._changed.notify_all()
            self._changed.wait_for(lambda: self._in_flight == 0, timeout=self.hang_s)
            self._max_in_flight = self._in_flight

    def hold_until_in_flight(self, n: int) -> None:
        """Hold each request until `n` are in flight at once (at most `hang_s`); from then on, hold none."""
        with self._lock:
            self._hold_until = n

    @property
    def max_in_flight(self) -> int:
        with self._lock:
            return self._max_in_flight

    def _arrived(self) -> None:
        with self._changed:
            self._in_flight += 1
            self._max_in_flight = max(self._max_in_flight, self._in_flight)
            if self._hold_until is not None and self._in_flight >= self._hold_until:
                self._hold_until = None
            self._changed.notify_all()
            self._changed.wait_for(lambda: self._hold_until is None or self._closing.is_set(), timeout=self.hang_s)

    def _hang(self) -> None:
        """Answer nothing until `hang_s` has passed, the test resets the server, or the server stops."""
        with self._changed:
            generation = self._generation
            self._changed.wait_for(
                lambda: self._generation != generation or self._closing.is_set(), timeout=self.hang_s
            )

    def _departed(self) -> None:
        with self._changed:
            self._in_flight -= 1
            self._changed.notify_all()

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    def requests_to(self, path: str) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path == path]

    def _next_mode(self) -> str:
        with self._lock:
            return self._script.popleft() if self._script else "ok"

    def _record(self, method: str, path: str, body: Any, headers: dict[str, str], answered: str) -> None:
        with self._lock:
            self._requests.append(RecordedRequest(method, path, body, headers, answered, time.monotonic()))
