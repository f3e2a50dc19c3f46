"""Requests that would leave the machine, caught in a real browser: the app must make none (it runs offline)."""

from __future__ import annotations

from urllib.parse import urlparse

from playwright.async_api import Page, Request, Route

LOOPBACK = {"127.0.0.1", "localhost", "::1", "[::1]"}


def leaves_the_machine(url: str) -> bool:
    return url.startswith(("http:", "https:", "ws:", "wss:")) and (urlparse(url).hostname or "") not in LOOPBACK


async def watch(page: Page, outbound: list[str]) -> None:
    """Abort and record every request to a host that is not this machine."""

    async def route(r: Route) -> None:
        if leaves_the_machine(r.request.url):
            outbound.append(r.request.url)
            await r.abort()
        else:
            await r.continue_()

    def seen(request: Request) -> None:  # requests routing cannot see (e.g. from a service worker)
        if leaves_the_machine(request.url) and request.url not in outbound:
            outbound.append(request.url)

    await page.route("**/*", route)
    page.on("request", seen)
