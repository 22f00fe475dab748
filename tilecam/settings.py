"""Service settings, read from environment variables prefixed ``TILECAM_``.

Example: ``TILECAM_PORT=9000 tilecam serve``. Sizes are in bytes, times in seconds.
"""

from __future__ import annotations

import ipaddress
import os
import sys
from functools import cached_property, lru_cache
from pathlib import Path

from pydantic import Field, ValidationError, ValidationInfo, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from vision.shipped import shipped_model_dir

REPO_ROOT = Path(__file__).resolve().parent.parent


def default_data_dir(root: Path = REPO_ROOT) -> Path:
    """Where the database and stored frames go by default: ``<repo>/data`` in a checkout
    or an editable install (``root`` holds ``pyproject.toml``); for an installed wheel,
    whose ``root`` is ``site-packages``, the user's data folder:
    ``$XDG_DATA_HOME/tilecam`` (``~/.local/share/tilecam``), ``%LOCALAPPDATA%\\tilecam``
    on Windows, ``~/Library/Application Support/tilecam`` on macOS."""
    if (root / "pyproject.toml").is_file():
        return root / "data"
    if sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        return Path(os.environ["LOCALAPPDATA"]) / "tilecam"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / "tilecam"
    xdg = os.environ.get("XDG_DATA_HOME", "")
    base = Path(xdg) if os.path.isabs(xdg) else Path.home() / ".local" / "share"
    return base / "tilecam"


class Settings(BaseSettings):
    """All service settings with their defaults."""

    #: ``hide_input_in_errors``: a ValidationError's text (a traceback) never shows a
    #: value, so never a key; :func:`describe_errors` shows those that are no secret.
    model_config = SettingsConfigDict(env_prefix="TILECAM_", extra="ignore",
                                      hide_input_in_errors=True)

    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=0, le=65535)
    #: Folder for the SQLite database and stored frames (:func:`default_data_dir`).
    data_dir: Path = Field(default_factory=default_data_dir)
    #: SQLAlchemy URL; empty means SQLite in ``data_dir/tilecam.db``.
    database_url: str = ""
    #: Copy a database that holds an older schema before upgrading it (on, the default:
    #: a SQLite file beside it, PostgreSQL with ``pg_dump`` into ``backup_dir``); off
    #: (``0``, ``false``, ``no``, ``off``) upgrades without a copy, as ``tilecam db
    #: upgrade --no-backup`` does — for a database copied otherwise, where the copy
    #: cannot be made (:mod:`tilecam.db.backup`). The service's upgrade follows its
    #: app's settings (``create_app(Settings(...))``), these three below too.
    upgrade_backup: bool = True
    #: Folder of the ``pg_dump`` copy of a PostgreSQL database taken before an upgrade
    #: (made where missing); empty means ``data_dir``. A SQLite file's copy goes beside it.
    backup_dir: str = ""
    #: The ``pg_dump`` program that copies a PostgreSQL database before an upgrade: a
    #: name looked up on ``PATH`` or a path. It must be of the server's major version or
    #: newer (an older one refuses: "server version mismatch").
    pg_dump: str = Field(default="pg_dump", min_length=1)
    #: Folder holding the model files (see models/README.md); the shipped model by
    #: default (:func:`vision.shipped.shipped_model_dir`).
    model_dir: Path = Field(default_factory=shipped_model_dir)
    #: Largest accepted upload, bytes.
    max_upload_bytes: int = Field(default=15 * 1024 * 1024, ge=1)
    #: Largest accepted decoded image, pixels (width * height).
    max_pixels: int = Field(default=40_000_000, ge=1)
    #: Recognitions allowed to run at once per process; more wait, then get 503.
    recognize_concurrency: int = Field(default=2, ge=1)
    #: onnxruntime threads per detector run; 0 = ``TILECAM_THREADS`` when set, else the
    #: cores this process may use, at most 4 (:func:`vision.backends.onnx.default_threads`).
    detector_threads: int = Field(default=0, ge=0)
    #: Image requests admitted at once per process (uploading, waiting or running);
    #: more get 503 at once, so memory for uploads stays bounded.
    recognize_queue: int = Field(default=32, ge=1)
    #: Wait analyses (``POST /v1/waits``: waits, 何切) allowed to run at once per process,
    #: each in a worker process of its own (``waits_processes``); 8 per slot are admitted
    #: (running or waiting), more get 503 at once.
    waits_concurrency: int = Field(default=1, ge=1)
    #: Run wait analyses in worker processes (started on the first ``/v1/waits``, one
    #: per ``waits_concurrency`` slot, each a fresh interpreter importing only
    #: ``scoring``, a little nicer than the service): an analysis holds none of the
    #: service's GIL, so ``/v1/score`` is not slowed, and one past ``request_timeout_s``
    #: is stopped (its worker killed and replaced). Off (``0``): in a thread pool of the
    #: service's process, as before (for a platform where starting processes is
    #: unwanted): an analysis is pure Python under the GIL, so a second slot adds no
    #: throughput, the event loop waits behind each one, and one past its time runs on
    #: to its end in its slot.
    waits_processes: bool = True
    #: Seconds a request may wait for a recognition slot or run before 503, and seconds
    #: any request body (JSON or image) may take to arrive once it is read before 408.
    request_timeout_s: float = Field(default=30.0, gt=0)
    #: ``tilecam serve``: seconds a connection may take to send a request's line and
    #: headers (or hold part of them) before it is closed.
    header_timeout_s: float = Field(default=10.0, gt=0)
    #: ``tilecam serve``: seconds an idle keep-alive connection is held open (uvicorn's
    #: ``timeout_keep_alive``).
    keep_alive_s: int = Field(default=5, ge=1)
    #: ``tilecam serve``: connections (and requests in progress) a worker holds at once;
    #: a request past it is answered at once, unread, 503 ``busy`` in the service's JSON
    #: shape (``tilecam.commands.serve.CapacityGate``, counting as uvicorn's
    #: ``limit_concurrency`` does). The
    #: open-file limit is raised to fit it, or the service refuses to start.
    max_connections: int = Field(default=500, ge=2)
    #: ``tilecam serve``: comma-separated addresses or networks of the reverse proxies
    #: whose ``X-Forwarded-For``/``X-Forwarded-Proto`` are believed (``*``: any); empty,
    #: the default: none, every client is its connection's address.
    forwarded_allow_ips: str = ""
    #: Load the detector at startup when ``model_dir`` holds a model (tests turn this off).
    load_model: bool = True
    #: Admin key for event/table administration; empty disables admin endpoints (unless
    #: ``referee_keys`` names some). Spaces and line ends around it are trimmed (a CRLF
    #: env file's ``\r``), a space or tab inside it kept; one holding another character
    #: than printable ASCII ``!`` to ``~`` is refused (:func:`key_fault`). Never shown in
    #: a repr or an error.
    admin_key: str = Field(default="", repr=False)
    #: Named referee keys, ``name:key`` comma-separated (``Li:secret1,Wang:secret2``):
    #: each opens what the admin key opens, and what its holder records is written by
    #: ``referee NAME`` (:func:`referee_keys`; each key trimmed and checked as the admin
    #: key is). Never shown in a repr or an error.
    referee_keys: str = Field(default="", repr=False)
    #: Camera frames in a row that must show the same complete hand before it is recorded.
    stable_frames: int = Field(default=3, ge=1)
    #: Requests per second allowed per API key (table or admin key), on average.
    rate_limit_per_s: float = Field(default=5.0, gt=0)
    #: Requests a key may make in a burst above the average rate.
    rate_limit_burst: int = Field(default=30, ge=1)
    #: Requests per second allowed to the admin (referee) key, on average: its own bucket,
    #: higher than a table key's — one key sets up an event's tables, reads every sheet
    #: and standings and makes the referee's rulings.
    admin_rate_limit_per_s: float = Field(default=50.0, gt=0)
    #: Requests the admin key may make in a burst above its average rate.
    admin_rate_limit_burst: int = Field(default=500, ge=1)
    #: Keep the camera frame each recorded hand was read from (in ``data_dir/frames``).
    store_frames: bool = True
    #: A camera's win read with a score confidence (``vision.confidence``) under this is
    #: recorded ``pending`` for a referee instead of settled; 0 settles every legal one.
    camera_review_below: float = Field(default=0.5, ge=0.0, le=1.0)
    #: A camera frame's tile readings are averaged with those of the table's earlier
    #: frames of the same scene, this many frames in all (``vision.frame_fusion``); 1: off.
    camera_fuse_frames: int = Field(default=3, ge=1, le=10)

    @field_validator("forwarded_allow_ips")
    @classmethod
    def _proxy_addresses(cls, value: str) -> str:
        return proxy_addresses(value)

    @field_validator("admin_key")
    @classmethod
    def _admin_key(cls, value: str) -> str:
        return checked_admin_key(value)

    @field_validator("referee_keys")
    @classmethod
    def _referee_keys(cls, value: str, info: ValidationInfo) -> str:
        referee_keys(value, str(info.data.get("admin_key") or ""))
        return value

    @cached_property
    def referees(self) -> tuple[tuple[str, str], ...]:
        """The named referee keys, ``(name, key)`` in the order given (read once: every
        key check of a request asks for them)."""
        return referee_keys(self.referee_keys, self.admin_key)

    @property
    def backup_folder(self) -> Path:
        """Where a PostgreSQL database's copy from before an upgrade goes: ``backup_dir``,
        else ``data_dir``.

        >>> Settings(data_dir=Path("/srv/tc")).backup_folder
        PosixPath('/srv/tc')
        >>> Settings(data_dir=Path("/srv/tc"), backup_dir="/var/backups").backup_folder
        PosixPath('/var/backups')
        """
        return Path(self.backup_dir) if self.backup_dir.strip() else self.data_dir

    @property
    def sqlalchemy_url(self) -> str:
        """The database URL to use (SQLite file in ``data_dir`` by default). The file's
        path is written escaped, so that a data dir named with ``?``, ``%`` or ``#`` is
        read back as that folder (before the seventy-fifth session ``club?night`` gave
        the file ``club`` beside it, and ``50%41off`` the folder ``50Aoff``).

        >>> from tilecam.db.engine import sqlite_file
        >>> sqlite_file(Settings(data_dir=Path("/srv/club?night")).sqlalchemy_url)
        PosixPath('/srv/club?night/tilecam.db')
        """
        if self.database_url:
            return self.database_url
        from sqlalchemy.engine import URL  # not at import: the CLI starts without it

        return URL.create("sqlite", database=(self.data_dir / "tilecam.db").as_posix()
                          ).render_as_string(hide_password=False)


def proxy_addresses(value: str) -> str:
    """``TILECAM_FORWARDED_ALLOW_IPS`` checked and tidied: comma-separated IP addresses or
    networks, ``*`` alone (any), or empty (none). uvicorn would take a typo as a name that
    never matches, and say nothing, so it is refused here (ValueError).

    >>> proxy_addresses(" 127.0.0.1, 10.0.0.0/8 ")
    '127.0.0.1,10.0.0.0/8'
    >>> proxy_addresses("proxy.local")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: 'proxy.local' is not an IP address or network (...)
    """
    entries = [item.strip() for item in value.split(",") if item.strip()]
    if "*" in entries:
        if len(entries) > 1:
            raise ValueError("* (any address) stands alone, not beside other addresses")
        return "*"
    tidy = []
    for entry in entries:
        try:  # a network as uvicorn compares it: 10.0.0.1/8 is 10.0.0.0/8
            tidy.append(str(ipaddress.ip_network(entry, strict=False)) if "/" in entry
                        else str(ipaddress.ip_address(entry)))
        except ValueError:
            raise ValueError(f"{entry!r} is not an IP address or network (give addresses "
                             "such as 127.0.0.1 or 10.0.0.0/8, comma-separated, or * for "
                             "any)") from None
    return ",".join(tidy)


def key_fault(key: str, *, inner_blanks: bool = False) -> str | None:
    r"""What in ``key`` (trimmed already) keeps it from working as a key, in words that
    never show the key; None when each character is printable ASCII ``!`` to ``~`` — or,
    with ``inner_blanks`` (the admin and referee keys), a space or a tab between them.

    A key is sent in an HTTP header, whose value keeps a space or a tab inside it (the
    service trims only its ends), so a passphrase such as ``correct horse battery
    staple`` works as typed; a line end or another control character cannot be sent in
    one. A letter outside ASCII is sent differently by each client: ``curl`` sends ``é``
    as its UTF-8 bytes, which the service (reading a header as Latin-1) takes for
    ``Ã©``, while Python's ``http.client`` sends it as one Latin-1 byte, read back as
    ``é``, and cannot send ``密`` at all; such a key would be "not valid" from some
    clients and not others. An invisible character (a byte-order mark left by an editor,
    a zero-width space pasted with the key, a space other than ASCII's) is named by its
    code point, which can never be part of a good key, so that the key can be mended.

    >>> key_fault("tc_Secret-0123:~!") is None, key_fault("two words", inner_blanks=True)
    (True, None)
    >>> key_fault("two words"), key_fault("secret\r\nmore"), key_fault("clé")
    ('a space', 'a line end (CR or LF)', 'a letter or sign outside ASCII (such as é or 密)')
    >>> key_fault("\ufeffsecret"), key_fault("sec\u200bret")
    ('U+FEFF, an invisible byte-order mark', 'U+200B (zero width space), an invisible character')
    """
    for char in key:
        if "!" <= char <= "~" or (inner_blanks and char in " \t"):
            continue
        if char == " ":
            return "a space"
        if char in "\r\n":
            return "a line end (CR or LF)"
        if char == "\t":
            return "a tab"
        if char < " " or char == "\x7f":
            return "a control character"
        if not char.isprintable():
            return _unseen(char)
        return "a letter or sign outside ASCII (such as é or 密)"
    return None


def _unseen(char: str) -> str:
    r"""A character outside ASCII that shows nothing (:meth:`str.isprintable` false), in
    words naming it by its code point — never the key it is in.

    >>> for char in "\u00a0", "\u2028", "\x85", chr(0xDCFF):
    ...     print(_unseen(char))
    U+00A0 (no-break space), a space other than ASCII's
    U+2028 (line separator), a line end other than CR or LF
    U+0085, a control character
    the byte 0xFF, which is not UTF-8
    """
    import unicodedata

    code = ord(char)
    if code == 0xFEFF:
        return "U+FEFF, an invisible byte-order mark"
    if 0xDC80 <= code <= 0xDCFF:  # how os.environ keeps a byte that is not UTF-8
        return f"the byte 0x{code - 0xDC00:02X}, which is not UTF-8"
    name = unicodedata.name(char, "").lower()
    point = f"U+{code:04X}" + (f" ({name})" if name else "")
    kind = unicodedata.category(char)
    if kind == "Zs":
        return f"{point}, a space other than ASCII's"
    if kind in ("Zl", "Zp"):
        return f"{point}, a line end other than CR or LF"
    if kind == "Cc":
        return f"{point}, a control character"
    return f"{point}, an invisible character"


#: How a key may be written, said after :func:`key_fault`'s fault.
KEY_CHARACTERS = ("a key is sent in an HTTP header, so use only printable ASCII letters, "
                  "digits and signs (! to ~), and spaces between them")


def checked_admin_key(value: str) -> str:
    r"""``TILECAM_ADMIN_KEY`` trimmed (an empty key, or one of spaces alone, disables the
    admin key); ValueError, never showing the key, for one :func:`key_fault` refuses.

    >>> checked_admin_key(" choose-a-long-secret\r\n")
    'choose-a-long-secret'
    >>> checked_admin_key("geheimer-schlüssel")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: the admin key holds a letter or sign outside ASCII (such as é or 密); ...
    """
    key = value.strip()
    fault = key_fault(key, inner_blanks=True)
    if fault is not None:
        raise ValueError(f"the admin key holds {fault}; {KEY_CHARACTERS}")
    return key


#: The longest referee name: ``referee NAME`` is kept as a hand revision's or a
#: penalty's author, 64 characters at most.
REFEREE_NAME_MAX = 56
#: Settings whose values are secrets: an error names them and never shows the value.
SECRET_SETTINGS = frozenset({"admin_key", "referee_keys"})


def referee_keys(value: str, admin_key: str = "") -> tuple[tuple[str, str], ...]:
    """``TILECAM_REFEREE_KEYS`` read: ``name:key`` pairs, comma-separated, as
    ``(name, key)`` (spaces around each trimmed; an empty entry skipped; a key may hold a
    ``:``, a name may not). ValueError, naming the entry by its place and the referee by
    name but never showing a key, for an entry with no name or no key, a name used twice
    (case aside), too long or holding a control character, two referees with one key, or
    a key equal to the admin key.

    >>> referee_keys(" Li:secret-one , Wang:secret:two ")
    (('Li', 'secret-one'), ('Wang', 'secret:two'))
    >>> referee_keys("Li:secret-one,li:other")
    Traceback (most recent call last):
    ...
    ValueError: referee name 'li' (entry 2) is given twice: each referee needs a name of their own
    >>> referee_keys("Li:same-secret", admin_key="same-secret")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: the key of referee 'Li' (entry 1) is the admin key: give each referee ...
    """
    out: list[tuple[str, str]] = []
    names: dict[str, str] = {}
    keys: dict[str, str] = {}
    entries = [item for item in value.split(",") if item.strip()]
    for place, entry in enumerate(entries, 1):
        name, colon, key = entry.partition(":")
        name, key = name.strip(), key.strip()
        if not colon:
            raise ValueError(f"entry {place} has no ':' (give name:key, comma-separated)")
        if not name:
            raise ValueError(f"entry {place} has no referee name before its ':' (give "
                             "name:key)")
        if len(name) > REFEREE_NAME_MAX:
            raise ValueError(f"referee name in entry {place} is {len(name)} characters: "
                             f"at most {REFEREE_NAME_MAX}")
        if not name.isprintable():
            raise ValueError(f"referee name in entry {place} holds a control character")
        if not key:
            raise ValueError(f"referee {name!r} (entry {place}) has no key after its ':'")
        fault = key_fault(key, inner_blanks=True)
        if fault is not None:
            raise ValueError(f"the key of referee {name!r} (entry {place}) holds {fault}; "
                             f"{KEY_CHARACTERS}")
        if name.casefold() in names:
            raise ValueError(f"referee name {name!r} (entry {place}) is given twice: each "
                             "referee needs a name of their own")
        if key in keys:
            raise ValueError(f"referees {keys[key]!r} and {name!r} have the same key: give "
                             "each referee a key of their own")
        if admin_key and key == admin_key:
            raise ValueError(f"the key of referee {name!r} (entry {place}) is the admin "
                             "key: give each referee a key of their own")
        names[name.casefold()] = name
        keys[key] = name
        out.append((name, key))
    return tuple(out)


class SettingsError(ValueError):
    """An environment variable holds a setting the service cannot take (one line)."""


def describe_errors(exc: ValidationError) -> str:
    r"""One line naming each environment variable that is wrong and why (the value of a
    secret, :data:`SECRET_SETTINGS`, not shown).

    >>> try:
    ...     Settings(port="abc", stable_frames=0)
    ... except ValidationError as exc:
    ...     print(*describe_errors(exc).split("; "), sep="\n")
    TILECAM_PORT='abc': input should be a valid integer, unable to parse string as an integer
    TILECAM_STABLE_FRAMES=0: input should be greater than or equal to 1
    >>> try:
    ...     Settings(referee_keys="Li:secret-one,Wang")
    ... except ValidationError as exc:
    ...     print(describe_errors(exc))  # doctest: +ELLIPSIS
    TILECAM_REFEREE_KEYS=(not shown): value error, entry 2 has no ':' (give name:key, ...)
    """
    parts = []
    for err in exc.errors():
        field = str(err["loc"][0]) if err["loc"] else "settings"
        msg = str(err["msg"])
        shown = "(not shown)" if field in SECRET_SETTINGS else repr(err.get("input"))
        parts.append(f"TILECAM_{field.upper()}={shown}: "
                     f"{msg[:1].lower()}{msg[1:]}")
    return "; ".join(parts)


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings (cached; tests may call ``get_settings.cache_clear()``);
    :class:`SettingsError` names the environment variables that are wrong."""
    try:
        return Settings()
    except ValidationError as exc:
        raise SettingsError(f"bad setting: {describe_errors(exc)}") from None
