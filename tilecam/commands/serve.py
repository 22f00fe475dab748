"""``tilecam serve``: run the HTTP service (API and phone page) with uvicorn.

Settings come from ``TILECAM_*`` environment variables (:mod:`tilecam.settings`);
``--host``/``--port``/``--forwarded-allow-ips`` override them. Each worker process loads
the detector once at startup and runs up to ``TILECAM_RECOGNIZE_CONCURRENCY``
recognitions at a time.

Slow or idle clients cannot hold the server (:func:`server_options`):

- a connection must send a request's line and headers within
  ``TILECAM_HEADER_TIMEOUT_S`` (10 s; :class:`HeaderDeadlineProtocol`), and a request's
  body within ``TILECAM_REQUEST_TIMEOUT_S`` (30 s, 408; the app's body limit) — the rest
  of a body answered before it was read (401, 503 busy …) within that much after the
  answer, or the connection is closed;
- an idle keep-alive connection is closed after ``TILECAM_KEEP_ALIVE_S`` (5 s);
- a worker holds at most ``TILECAM_MAX_CONNECTIONS`` (500) connections and requests at
  once — past that a request is answered at once, unread, 503 ``busy`` in the service's
  JSON error shape with ``Retry-After`` and ``Connection: close`` (:class:`CapacityGate`
  in uvicorn's ``limit_concurrency`` place) — and its open-file limit is raised to fit
  them (or the service refuses to start).

``X-Forwarded-For``/``X-Forwarded-Proto`` are believed only from the proxies named in
``TILECAM_FORWARDED_ALLOW_IPS`` (none by default: uvicorn's own default believed them
from 127.0.0.1, so a local client could pick its address for the per-address limits).

The access log never holds a key sent in a URL (``?key=tc_…``, which the service does not
take but a client may send): a table or viewing key (``tc_…``, ``tv_…``) anywhere in the
path or query, as sent or percent-decoded, the admin and referee keys by their value
(as given, percent-encoded or with ``+`` for a space), and the value of a query parameter
whose name's last word is a key's (``key``, ``api_key``, ``token``, ``password``, ``pw``,
``auth`` …, never ``monkey`` or ``author``) are written ``[redacted]``
(:mod:`tilecam.access_log`).
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import errno
import json
import logging
import socket
import weakref
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Receive, Scope, Send

    from tilecam.settings import Settings

#: Open files a worker needs beside its connections (database, model, logs, pipes).
FILE_HEADROOM = 100
#: Seconds a request refused for the worker's capacity is told to wait (``Retry-After``):
#: connections come and go in well under that.
CAPACITY_RETRY_AFTER_S = 2


def register(sub: Any) -> None:
    p = sub.add_parser(
        "serve",
        help="run the HTTP service (API and phone page)",
        description="Run the tilecam HTTP service: the API under /v1, docs at /docs, "
        "the phone page at /.",
    )
    p.add_argument("--host", default=None, help="bind address (default from settings: 127.0.0.1)")
    p.add_argument("--port", type=port_number, default=None,
                   help="TCP port (default from settings: 8000)")
    p.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    p.add_argument(
        "--log-level",
        default="info",
        choices=["critical", "error", "warning", "info", "debug"],
        help="server log level (default info)",
    )
    p.add_argument(
        "--no-access-log", action="store_true", help="do not log each request (faster under load)"
    )
    p.add_argument(
        "--forwarded-allow-ips", default=None, metavar="ADDRESSES",
        help="comma-separated addresses or networks of reverse proxies whose "
        "X-Forwarded-For/-Proto are believed, or * for any (default from settings, "
        "TILECAM_FORWARDED_ALLOW_IPS: none)",
    )
    p.set_defaults(func=run)


def port_number(text: str) -> int:
    """``--port``'s value as a whole number in ASCII digits (:func:`run` checks its
    range), as ``TILECAM_PORT`` is read: ``int()`` alone took a Chinese keyboard's
    ``８８６１`` (and ``٨٨``) too. ``make serve`` passes ``TILECAM_PORT`` (or ``PORT=``)
    here, so the message names them too.

    >>> port_number("8080")
    8080
    >>> port_number("abc")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: 'abc' is not a port (a whole number 0-65535; ...
    >>> port_number("８８６１")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: '８８６１' is not a port (a whole number 0-65535 in ASCII ...
    """
    if text.isascii():
        try:
            return int(text)
        except ValueError:
            pass
    ascii_only = "" if text.isascii() else " in ASCII digits 0-9"
    raise argparse.ArgumentTypeError(
        f"{text!r} is not a port (a whole number 0-65535{ascii_only}; make serve passes "
        "TILECAM_PORT or PORT= here)")


def check_runtime_settings() -> None:
    """Raise ValueError naming a bad ``TILECAM_THREADS`` or ``TILECAM_SPIN`` (read by the
    model's runtime, not :mod:`tilecam.settings`) or a database URL that is none, before
    the service starts: otherwise it would start, and answer every photo 503 when the
    model failed to load, or every table request 503 "try again"."""
    from tilecam.db.engine import parsed_url
    from tilecam.settings import get_settings
    from vision.backends.onnx import default_threads, spinning

    default_threads()
    spinning()
    try:
        parsed_url(get_settings().sqlalchemy_url)
    except ValueError as exc:
        raise ValueError(f"TILECAM_DATABASE_URL: {exc}") from None


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from tilecam import access_log
    from tilecam.settings import get_settings, proxy_addresses

    if args.workers < 1:
        raise ValueError(f"--workers must be at least 1, got {args.workers}")
    port = args.port if args.port is not None else get_settings().port
    if not 0 <= port <= 65535:
        raise ValueError(f"--port must be 0-65535, got {port}")
    settings = get_settings()
    check_runtime_settings()
    host = args.host or settings.host
    problem = bind_problem(host, port)  # before the model loads and uvicorn says it its way
    if problem is not None:
        raise ValueError(problem)
    proxies = settings.forwarded_allow_ips
    if args.forwarded_allow_ips is not None:
        try:
            proxies = proxy_addresses(args.forwarded_allow_ips)
        except ValueError as exc:
            raise ValueError(f"--forwarded-allow-ips: {exc}") from None
    raise_open_file_limit(settings.max_connections + FILE_HEADROOM)
    uvicorn.run(
        "tilecam.app:create_app",
        factory=True,
        host=host,
        port=port,
        workers=args.workers,
        log_level=args.log_level,
        access_log=not args.no_access_log,
        log_config=access_log.log_config(),
        timeout_graceful_shutdown=5,
        **server_options(settings, proxies),
    )
    return 0


def server_options(settings: Settings, proxies: str) -> dict[str, Any]:
    """The uvicorn options that bound what slow or many clients can hold, and whose
    forwarding headers are believed (``proxies``: comma-separated addresses or networks,
    ``*``, or empty for none).

    >>> from tilecam.settings import Settings
    >>> options = server_options(Settings(), "")
    >>> options["proxy_headers"], options["limit_concurrency"], options["timeout_keep_alive"]
    (False, 500, 5)
    >>> options["ws"]
    'none'
    >>> server_options(Settings(), "10.0.0.2")["forwarded_allow_ips"]
    '10.0.0.2'
    """
    options: dict[str, Any] = {
        "http": HeaderDeadlineProtocol,
        "ws": "none",  # no websocket routes: an upgrade is answered as a plain request
        "limit_concurrency": settings.max_connections,
        "timeout_keep_alive": settings.keep_alive_s,
        "proxy_headers": bool(proxies),
    }
    if proxies:
        options["forwarded_allow_ips"] = proxies
    return options


def raise_open_file_limit(needed: int) -> int:
    """Make sure this process (and the workers it starts) may open ``needed`` files:
    raise the soft limit up to the hard one if it is lower. Returns the soft limit now
    (``needed`` when there is none); raises ValueError saying what to do when even the
    hard limit is lower.
    """
    try:
        import resource
    except ImportError:  # pragma: no cover - not on Windows
        return needed
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or soft >= needed:
        return needed if soft == resource.RLIM_INFINITY else soft
    if hard != resource.RLIM_INFINITY and hard < needed:
        raise ValueError(
            f"TILECAM_MAX_CONNECTIONS needs {needed} open files per worker (connections "
            f"and {FILE_HEADROOM} more), but this process may open only {hard} (ulimit -Hn): "
            "lower TILECAM_MAX_CONNECTIONS or raise the limit")
    resource.setrlimit(resource.RLIMIT_NOFILE, (needed, hard))
    return needed


class CapacityGate:
    """The worker's app behind a gate that answers the requests past its capacity: 503
    ``busy`` in the service's JSON error shape, with ``Retry-After``
    (:data:`CAPACITY_RETRY_AFTER_S`) and ``Connection: close``, without reading the body.

    It takes the place of uvicorn's ``limit_concurrency``, whose answer is a plain-text
    ``Service Unavailable``, and keeps its rule: a request is refused when ``limit`` or
    more connections are open (its own among them), or ``limit`` or more other requests
    are in progress. The connections are the :class:`HeaderDeadlineProtocol` instances
    that joined it (:meth:`HeaderDeadlineProtocol.connection_made`); the requests, the
    calls of the app in progress. One gate serves one uvicorn server (:func:`gated_config`).
    """

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        #: connections, and requests in progress, at which a request is refused
        self.limit = limit
        #: the open connections (protocols) of the server
        self.connections: set[object] = set()
        #: requests the app is answering now
        self.requests = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if len(self.connections) >= self.limit or self.requests >= self.limit:
            await self.refuse(scope, receive, send)
            return
        self.requests += 1
        try:
            await self.app(scope, receive, send)
        finally:
            self.requests -= 1

    async def refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer 503 ``busy`` and close the connection; the body is left unread."""
        from tilecam.api.errors import error_response

        # uvicorn's own words for it, which an operator's log alerts may look for
        logging.getLogger("uvicorn.error").warning("Exceeded concurrency limit.")
        message = (f"the server is busy: it is at its limit of {self.limit} connections and "
                   f"requests at once ({len(self.connections)} connections open, "
                   f"{self.requests} requests in progress); try again")
        response = error_response(503, "busy", message, headers={
            "Retry-After": str(CAPACITY_RETRY_AFTER_S), "Connection": "close"})
        await response(scope, receive, send)


#: Per uvicorn config (one a server): the copy of it the protocols are made with, whose
#: app is a :class:`CapacityGate` and whose own limit is off, and that gate; None where
#: the config is not one the gate can take over (uvicorn then answers its own way).
_GATED: weakref.WeakKeyDictionary[Any, tuple[Any, CapacityGate] | None] = (
    weakref.WeakKeyDictionary())


def gated_config(config: Any) -> tuple[Any, CapacityGate] | None:
    """The copy of a uvicorn ``config`` whose app is a :class:`CapacityGate` in front of
    its own, with the gate, made once per config; None — uvicorn keeps its plain-text
    answer — when it sets no ``limit_concurrency``, has not loaded its app, serves
    websockets (a connection handed to a websocket protocol never tells this one it
    closed, so its place in the gate would never be freed) or is not of the shape known
    (an object without these public ``Config`` fields)."""
    try:
        if config in _GATED:
            return _GATED[config]
    except TypeError:  # neither hashable nor weakly referable: not a uvicorn Config
        return None
    limit = getattr(config, "limit_concurrency", None)
    app = getattr(config, "loaded_app", None)
    if not getattr(config, "loaded", False) or app is None:
        return None  # the protocol loads it; the next connection finds it loaded
    gated: tuple[Any, CapacityGate] | None = None
    if isinstance(limit, int) and limit > 0 and getattr(config, "ws", None) == "none":
        gate = CapacityGate(app, limit)
        copied = copy.copy(config)
        copied.limit_concurrency = None
        copied.loaded_app = gate
        gated = (copied, gate)
    _GATED[config] = gated
    return gated


#: What a :class:`HeaderDeadlineProtocol` connection waits for: a request's line and
#: headers, the rest of a body whose request was answered before the app read it, or
#: (that rest in) a next request.
_HEAD = "head"
_REST = "rest"
_IDLE = "idle"


class HeaderDeadlineProtocol(asyncio.Protocol):
    """uvicorn's HTTP protocol (httptools when installed, else h11, as uvicorn's ``auto``)
    with a deadline on request heads, which uvicorn lacks: a connection that has not sent
    a whole request line and headers ``TILECAM_HEADER_TIMEOUT_S`` seconds after it opened,
    or after the first bytes of its next request, is answered 408 and closed (if it sent
    nothing, just closed). An idle keep-alive connection is uvicorn's to close
    (``timeout_keep_alive``); a request's body is the app's to time out.

    A request the app answered before it read the whole body (401, 404, 429, 503 busy,
    413 …) leaves the rest of that body to come: uvicorn reads and drops it and keeps the
    connection, and the client reads the answer once it has sent it all. Those bytes are
    no head: they may take ``TILECAM_REQUEST_TIMEOUT_S`` from the first of them after the
    answer, and then the connection is closed without a second answer. (h11 tells where
    such a body ends; the connection may then wait ``TILECAM_KEEP_ALIVE_S`` for its next
    request — uvicorn's own keep-alive timer was stopped by those bytes. httptools does
    not: the rest lasts until a next request's first byte.)

    Every call of the transport is passed to the wrapped protocol; only the time a head
    (or such a rest) takes is watched, from the protocol's ``cycle`` (the request in
    progress). A connection handed to another protocol (an upgrade) is not watched.

    When the server has a ``limit_concurrency`` (and no websockets), the wrapped protocol
    is made with a copy of its config whose app is a :class:`CapacityGate` and whose own
    limit is off, and each connection counts in that gate while it is open: a request
    past the capacity is answered in the service's JSON shape, not uvicorn's plain text.
    A uvicorn that does not take both from that config keeps its own answer.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        from tilecam.settings import get_settings

        #: the server's capacity gate this connection counts in; None: uvicorn's own limit
        self.gate: CapacityGate | None = None
        self.inner: Any = self._inner_protocol(args, kwargs)
        settings = get_settings()
        #: seconds a request head may take
        self.timeout_s = settings.header_timeout_s
        #: seconds the rest of an answered request's body may take
        self.rest_timeout_s = settings.request_timeout_s
        #: seconds a connection may then wait idle (uvicorn's keep-alive timer, which
        #: those bytes stopped)
        self.idle_timeout_s = float(settings.keep_alive_s)
        # a uvicorn without ``cycle`` (another version) is watched not at all rather than
        # taken to be idle for ever and cut off mid-request
        self._watch = hasattr(self.inner, "cycle")
        self._transport: asyncio.Transport | None = None
        self._waiting: str | None = None  # _HEAD, _REST, _IDLE, or None: a request is in
        self._deadline: float | None = None  # loop time the connection is cut off
        self._heard = False  # bytes of the head awaited came (else it is closed unanswered)
        self._timer: asyncio.TimerHandle | None = None

    def _inner_protocol(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """uvicorn's protocol for this connection, made with the :func:`gated_config` copy
        of the server's config when there is one — then a request past the capacity is
        answered by :class:`CapacityGate` — else with the server's own. The copy is kept
        only when the protocol took both its app and its limit from it (uvicorn 0.55
        does): another version that reads either elsewhere is made with the server's
        config and answers over-capacity requests its own plain-text way, rather than
        losing the limit."""
        from uvicorn.protocols.http.auto import AutoHTTPProtocol

        protocol: Any = AutoHTTPProtocol  # httptools' or h11's, made with uvicorn's arguments
        in_kwargs = "config" in kwargs
        config = kwargs["config"] if in_kwargs else (args[0] if args else None)
        gated = gated_config(config) if config is not None else None
        if gated is not None:
            copied, gate = gated
            if in_kwargs:
                inner = protocol(*args, **{**kwargs, "config": copied})
            else:
                inner = protocol(copied, *args[1:], **kwargs)
            if (getattr(inner, "app", None) is gate
                    and getattr(inner, "limit_concurrency", 0) is None):
                self.gate = gate
                return inner
            _GATED[config] = None  # not the shape known: every connection of it ungated
        return protocol(*args, **kwargs)

    def _phase(self) -> str | None:
        """What the connection waits for now: _HEAD (no request is in progress), _REST (the
        last one was answered, its body is still coming) or None (a request is in)."""
        cycle = self.inner.cycle
        if cycle is None:
            return _HEAD
        if not getattr(cycle, "response_complete", False):
            return None
        return _REST if self._body_unfinished(cycle) else _HEAD

    def _body_unfinished(self, cycle: Any) -> bool:
        """The answered request ``cycle``'s body has not all come, and no next request
        has begun."""
        conn = getattr(self.inner, "conn", None)
        if conn is not None:  # h11: the client's state says it
            import h11

            return conn.their_state is h11.SEND_BODY
        # httptools clears ``more_body`` when the body is all in, but not once the answer
        # went; then only a next request's first byte (a new ``scope``) ends the rest
        return (bool(getattr(cycle, "more_body", False))
                and getattr(self.inner, "scope", None) is getattr(cycle, "scope", None))

    def _head_heard(self) -> bool:
        """Bytes came that began a head (not just the end of an answered request's body),
        when no request is in progress."""
        conn = getattr(self.inner, "conn", None)
        if conn is not None:  # h11 holds the part of a head it has
            return bool(conn.trailing_data[0])
        return True  # httptools: the rest of a body lasts until a new request's first byte

    def _handed_over(self) -> bool:
        """The transport was given to another protocol (a websocket upgrade)."""
        transport = self._transport
        get_protocol = getattr(transport, "get_protocol", None)
        return get_protocol is not None and get_protocol() is not self

    def _await(self, what: str, seconds: float, heard: bool) -> None:
        """Wait for ``what`` (_HEAD, _REST or _IDLE) ``seconds`` from now, unless already
        waiting for it (then its clock runs on), and arm the timer."""
        loop = asyncio.get_running_loop()
        if self._waiting != what:
            self._waiting = what
            self._deadline = loop.time() + seconds
            self._heard = heard
        else:
            self._heard = self._heard or heard
        if self._deadline is None:
            return
        if self._timer is not None and self._timer.when() > self._deadline:
            self._timer.cancel()  # set for a later deadline (a rest's or an idle wait's)
            self._timer = None
        if self._timer is None:
            self._timer = loop.call_at(self._deadline, self._check)

    def _settle(self) -> None:
        """A request is in progress: nothing to time."""
        self._waiting = None
        self._deadline = None
        self._heard = False

    def _stop(self) -> None:
        """Watch this connection no more."""
        self._watch = False
        self._settle()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _check(self) -> None:
        self._timer = None
        transport = self._transport
        if self._deadline is None or transport is None or transport.is_closing():
            return
        if self._handed_over():
            self._stop()
            return
        if self._phase() is None:  # a request came in after all
            self._settle()
            return
        loop = asyncio.get_running_loop()
        left = self._deadline - loop.time()
        if left > 0:  # the clock was restarted since the timer was set
            self._timer = loop.call_later(left, self._check)
            return
        if self._waiting == _HEAD and self._heard:
            body = json.dumps({"error": {"code": "request_timeout", "message": (
                f"the request's headers did not arrive within {self.timeout_s:g} s")}})
            transport.write(
                b"HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\n"
                b"connection: close\r\ncontent-length: "
                + str(len(body)).encode() + b"\r\n\r\n" + body.encode())
        # a rest or an idle wait: the last request had its answer, so none more
        transport.close()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # a uvloop transport is no asyncio.Transport subclass, but has its methods
        self._transport = cast(asyncio.Transport, transport)
        if self.gate is not None:
            self.gate.connections.add(self)
        self.inner.connection_made(transport)
        if self._watch:
            self._await(_HEAD, self.timeout_s, heard=False)

    def data_received(self, data: bytes) -> None:
        self.inner.data_received(data)
        if not self._watch:
            return
        if self._handed_over():
            self._stop()
            return
        phase = self._phase()
        if phase == _HEAD:
            if self._head_heard():
                self._await(_HEAD, self.timeout_s, heard=True)
            elif self._waiting != _HEAD:  # they ended an answered body: idle now
                self._await(_IDLE, self.idle_timeout_s, heard=False)
        elif phase == _REST:
            self._await(_REST, self.rest_timeout_s, heard=False)
        else:  # a request is in: its head came
            self._settle()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._transport = None
        if self.gate is not None:
            self.gate.connections.discard(self)
        self.inner.connection_lost(exc)

    def eof_received(self) -> bool | None:
        result: bool | None = self.inner.eof_received()
        return result

    def pause_writing(self) -> None:
        self.inner.pause_writing()

    def resume_writing(self) -> None:
        self.inner.resume_writing()


def bind_problem(host: str, port: int) -> str | None:
    """Why the service could not listen on ``host``:``port``, in words that say what to
    do, or None when it can (the address is tried the way the server binds it, then let
    go; another program may still take it in between, and the server then says so).

    >>> import socket
    >>> with socket.socket() as held:
    ...     held.bind(("127.0.0.1", 0)); held.listen()
    ...     print("already in use" in bind_problem("127.0.0.1", held.getsockname()[1]))
    True
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET  # as uvicorn chooses it
    try:
        found = socket.getaddrinfo(host, port, family, socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        return (f"cannot serve on host {host!r}: {getattr(exc, 'strerror', None) or exc} "
                "(127.0.0.1: this machine only; 0.0.0.0: every network)")
    address = found[0][4]
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        try:
            s.bind(address)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                return (f"port {port} on {host} is already in use (another tilecam serve, or "
                        "another program): stop it, or choose another port "
                        "(make serve PORT=8001, or tilecam serve --port 8001)")
            if exc.errno == errno.EACCES:
                return (f"no permission to listen on port {port} (ports under 1024 need "
                        "administrator rights): choose a port of 1024 or more")
            if exc.errno == errno.EADDRNOTAVAIL:
                return (f"{host} is not an address of this machine: serve on 127.0.0.1 "
                        "(this machine only) or 0.0.0.0 (every network)")
            return f"cannot listen on {host}:{port}: {exc.strerror or exc}"
    return None
