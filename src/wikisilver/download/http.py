"""Getting the inputs of steps 1 and 2, its HTTP: requests with our User-Agent, retried with backoff.

A transient failure (connection reset, timeout, 5xx, short read) is retried after an exponentially
growing pause; a 4xx, a host name that does not resolve and a refused connection are the user's to
fix and become one :class:`InputError` line at once. Only the standard
library is used.
"""

from __future__ import annotations

import http.client
import logging
import socket
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass

from wikisilver import __version__
from wikisilver.errors import InputError, Retryable

log = logging.getLogger(__name__)

USER_AGENT = f"wikisilver/{__version__} (silver NER corpus builder; Python urllib)"

_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently to retry transient failures (exponential backoff, capped)."""

    attempts: int = 6
    backoff_s: float = 1.0
    max_backoff_s: float = 60.0

    def delay(self, attempt: int) -> float:
        return min(self.backoff_s * (2 ** attempt), self.max_backoff_s)


TRANSIENT = (
    urllib.error.URLError, ConnectionError, TimeoutError, socket.timeout, http.client.HTTPException,
)


def network_failure(url: str, error: BaseException) -> Exception:
    """What to raise for a network error: an :class:`InputError` at once when retrying cannot help
    (the host name does not resolve, nothing listens on the port: offline, a typo'd mirror), else
    :class:`Retryable`."""
    reason = getattr(error, "reason", error)
    if isinstance(reason, socket.gaierror):
        return InputError(url, f"cannot resolve the host name ({reason.strerror or reason}); "
                               "check the URL and the network")
    if isinstance(reason, ConnectionRefusedError):
        return InputError(url, "connection refused: nothing answers at that address; check the URL")
    return Retryable(str(reason))


def _request(url: str, headers: dict[str, str] | None = None) -> urllib.request.Request:
    return urllib.request.Request(url, headers={"User-Agent": USER_AGENT, **(headers or {})})


def open_url(url: str, headers: dict[str, str] | None = None) -> http.client.HTTPResponse:
    """Open a URL; HTTP errors become InputError (4xx) or Retryable (5xx, network)."""
    try:
        return urllib.request.urlopen(_request(url, headers), timeout=_TIMEOUT_S)
    except urllib.error.HTTPError as error:
        error.close()
        if error.code == 416:
            raise
        if error.code == 404:
            raise InputError(url, "not found on the server (HTTP 404)") from None
        if 400 <= error.code < 500:
            raise InputError(url, f"refused by the server (HTTP {error.code} {error.reason})") from None
        raise Retryable(f"HTTP {error.code} {error.reason}") from None
    except TRANSIENT as error:
        raise network_failure(url, error) from None


def _sleep(seconds: float) -> None:
    time.sleep(seconds)


def with_retries(
    what: str, action: Callable[[], object], policy: RetryPolicy,
    sleep: Callable[[float], None] | None = None,
) -> object:
    for attempt in range(policy.attempts):
        try:
            return action()
        except Retryable as error:
            if attempt + 1 >= policy.attempts:
                raise InputError(
                    what, f"giving up after {policy.attempts} attempts ({error})"
                ) from None
            delay = policy.delay(attempt)
            log.warning("%s: %s; retrying in %.0f s", what, error, delay)
            (sleep or _sleep)(delay)
    raise AssertionError("unreachable")  # pragma: no cover


def fetch_text(
    url: str, policy: RetryPolicy = RetryPolicy(), sleep: Callable[[float], None] | None = None
) -> str:
    """A small document (dumpstatus.json, a directory listing), with retries."""

    def action() -> str:
        try:
            with open_url(url) as response:
                return response.read().decode("utf-8", errors="replace")
        except TRANSIENT as error:
            raise network_failure(url, error) from None

    return with_retries(url, action, policy, sleep)  # type: ignore[return-value]


def probe_size(
    url: str, policy: RetryPolicy, sleep: Callable[[float], None] | None
) -> int | None:
    """The size a server announces for a URL (HEAD), or None when it does not say."""

    def action() -> int | None:
        request = _request(url)
        request.method = "HEAD"
        try:
            with urllib.request.urlopen(request, timeout=_TIMEOUT_S) as response:
                length = response.headers.get("Content-Length")
                return int(length) if length and length.isdigit() else None
        except urllib.error.HTTPError as error:
            error.close()
            if error.code == 404:
                raise InputError(url, "not found on the server (HTTP 404)") from None
            if error.code < 500:
                return None  # some servers refuse HEAD; the GET will tell
            raise Retryable(f"HTTP {error.code}") from None
        except TRANSIENT as error:
            raise network_failure(url, error) from None

    return with_retries(url, action, policy, sleep)  # type: ignore[return-value]
