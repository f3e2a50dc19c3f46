"""Tests' own clients of a graph server: redis-py's client with a read timeout for a stuck server only.

redis-py's default (5 s) is shorter than a freshly started server's first answer on a loaded machine: a CI run
failed on the handshake of a test's setup query, before anything was tested."""

from __future__ import annotations

from typing import Any

import redis

STUCK_S = 120.0


def redis_client(**connection: Any) -> redis.Redis:
    """`redis.Redis(**connection)` (a unix socket path, or host, port and password)."""
    return redis.Redis(socket_timeout=STUCK_S, socket_connect_timeout=STUCK_S, **connection)
