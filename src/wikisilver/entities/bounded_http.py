"""One HTTP request with a bound on its total time and on the size of its answer (the SPARQL client's
transport, :mod:`wikisilver.entities.sparql`).

A socket timeout bounds each read, not the request: a server that sends one byte a second never
trips it. Here a watchdog timer shuts the request's socket down when the deadline passes, whatever
the request is waiting for (the status line, a header, the body), and the body is read in pieces
and given up as soon as it passes ``max_bytes``, so a runaway answer costs at most that much memory.
"""

from __future__ import annotations

import http.client
import io
import socket
import threading
import urllib.error
import urllib.request

from wikisilver.errors import AnswerTooLarge

_PIECE = 1 << 16


class _Watchdog:
    """Shuts down the sockets it tracks once ``seconds`` have passed."""

    def __init__(self, seconds: float) -> None:
        self.expired = threading.Event()
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._fire)
        self._timer.daemon = True

    def _fire(self) -> None:
        with self._lock:
            self.expired.set()
            for sock in self._sockets:
                _shutdown(sock)

    def track(self, sock: socket.socket) -> None:
        with self._lock:
            self._sockets.append(sock)
            if self.expired.is_set():
                _shutdown(sock)

    def __enter__(self) -> _Watchdog:
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.cancel()


def _shutdown(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass  # already closed


def _tracked(base: type[http.client.HTTPConnection], watchdog: _Watchdog) -> type[http.client.HTTPConnection]:
    class Tracked(base):  # type: ignore[misc, valid-type]
        def connect(self) -> None:
            super().connect()
            watchdog.track(self.sock)

    return Tracked


class _HTTP(urllib.request.HTTPHandler):
    def __init__(self, watchdog: _Watchdog) -> None:
        super().__init__()
        self.watchdog = watchdog

    def http_open(self, req):
        return self.do_open(_tracked(http.client.HTTPConnection, self.watchdog), req)


class _HTTPS(urllib.request.HTTPSHandler):
    def __init__(self, watchdog: _Watchdog) -> None:
        super().__init__()
        self.watchdog = watchdog

    def https_open(self, req):
        return self.do_open(_tracked(http.client.HTTPSConnection, self.watchdog), req, context=self._context)


def _read_bounded(response, max_bytes: int) -> bytes:
    length = response.headers.get("Content-Length", "")
    if length.strip().isdigit() and int(length) > max_bytes:
        raise AnswerTooLarge(f"answer of {int(length):,} bytes is over the limit of {max_bytes:,} bytes")
    pieces, total = [], 0
    while True:
        piece = response.read(_PIECE)
        if not piece:
            return b"".join(pieces)
        total += len(piece)
        if total > max_bytes:
            raise AnswerTooLarge(f"answer is over the limit of {max_bytes:,} bytes")
        pieces.append(piece)


def fetch(request: urllib.request.Request, timeout: float, max_bytes: int) -> tuple[http.client.HTTPMessage, bytes]:
    """(headers, body) of a request answered with 2xx, all within ``timeout`` seconds.

    Raises ``TimeoutError`` when the deadline passes, :class:`AnswerTooLarge` for a body over
    ``max_bytes``, ``urllib.error.HTTPError`` (its body, at most 64 kB, already read) for another
    status, and what urllib raises for a failed connection.
    """
    with _Watchdog(timeout) as watchdog:
        opener = urllib.request.build_opener(_HTTP(watchdog), _HTTPS(watchdog))
        try:
            try:
                with opener.open(request, timeout=timeout) as response:
                    headers, body = response.headers, _read_bounded(response, max_bytes)
                if watchdog.expired.is_set():  # the cut socket looked like the end of the body
                    raise TimeoutError(f"no complete answer within {timeout:g} s")
                return headers, body
            except urllib.error.HTTPError as err:
                body = err.read(_PIECE)
                err.close()
                raise urllib.error.HTTPError(err.url, err.code, err.reason, err.headers, io.BytesIO(body)) from None
        except (OSError, http.client.HTTPException):
            if watchdog.expired.is_set():
                raise TimeoutError(f"no complete answer within {timeout:g} s") from None
            raise
