"""A signed, expiring admin token: what keeps an unlocked admin session across a reload of the page.

A reload starts a new Streamlit session, and a session is where the unlock lives (`dashboard/common/admin.py`).
The dashboard keeps this token in a browser cookie: the admin's name and an expiry, signed with HMAC-SHA256 under
a key derived from the configured admin secret. The secret itself is never in the token; a token cannot be made
without it, nor kept past its expiry or a changed secret (the key changes, every token fails).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from dataclasses import dataclass

CONTEXT = b"retrieval-lab admin token v1\0"  # the key is for this and nothing else


@dataclass(frozen=True)
class AdminToken:
    name: str
    expires_at: float  # epoch seconds


def _key(secret: str) -> bytes:
    return hashlib.sha256(CONTEXT + secret.encode()).digest()


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def sign(name: str, expires_at: float, secret: str) -> str:
    """`<payload>.<signature>`, both base64url: safe as a cookie value as it is."""
    payload = _b64(json.dumps({"n": name, "e": round(expires_at, 3)}, separators=(",", ":")).encode())
    return f"{payload}.{_b64(hmac.new(_key(secret), payload.encode(), hashlib.sha256).digest())}"


def verify(token: str, secret: str, now: float) -> AdminToken | None:
    """The token's admin when `secret` signed it and it has not expired; else None (nothing said why: a forged,
    expired or stale token is simply not an unlock)."""
    if not secret or not token or len(token) > 1024 or token.count(".") != 1:
        return None
    payload, signature = token.split(".")
    expected = _b64(hmac.new(_key(secret), payload.encode(), hashlib.sha256).digest())
    if not hmac.compare_digest(signature.encode(), expected.encode()):
        return None
    try:
        data = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
        name, expires_at = str(data["n"]).strip(), float(data["e"])
    except (ValueError, KeyError, TypeError):
        return None
    if not name or now >= expires_at:
        return None
    return AdminToken(name, expires_at)
