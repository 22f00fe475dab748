"""The admin key and the referee keys as the settings read them (review "keyscope" of the
seventy-sixth session, finding 1: a key with spaces or a line end around it, or with a
line end, a control character or a letter outside ASCII inside it, was taken at start and
every request with it was then 401 "the key is not valid"), each test naming the rule it
checks (a space or a tab inside a key works, as it did: review "difftables", finding 1,
and ``test_leftovers76.py``):

- K1: spaces and line ends around the admin key and each referee key are trimmed (a
  CRLF env file's ``\\r``), and the trimmed key opens the admin routes;
- K2: an admin key of spaces alone is no key (the admin routes are off, 403);
- K3: a key holding a line end, another control character or a letter outside ASCII
  refuses to start, the message naming the setting and the fault (an invisible character
  by its code point) and never showing the key — also in a ValidationError's own text (a
  traceback);
- K4: ``tilecam serve`` with such a key stops before listening, exit 2, one line, no
  traceback, no key.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError
from test_tables_helpers import admin, client_for, database_url, make_app

from tilecam.settings import Settings, SettingsError, get_settings, key_fault

GOOD = "admin-key-for-tests-0123456789"
LI = "li-referee-secret-0123456789"

#: Keys no client can send as configured, and the fault each is refused for.
BAD_KEYS = [
    ("admin-key\r\nX-Other: 1", "a line end (CR or LF)"),
    ("admin-key\nmore", "a line end (CR or LF)"),
    ("admin-key\x1besc", "a control character"),
    ("admin-key\x7fdel", "a control character"),
    ("geheimer-schlüssel-42", "a letter or sign outside ASCII"),
    ("密钥-0123456789", "a letter or sign outside ASCII"),
    ("admin\u00a0key-nbsp", "U+00A0 (no-break space), a space other than ASCII's"),
]


def settings_error(monkeypatch: pytest.MonkeyPatch, **env: str) -> str:
    """The process settings' SettingsError text with ``TILECAM_<NAME>`` set from ``env``."""
    for name, value in env.items():
        monkeypatch.setenv(f"TILECAM_{name.upper()}", value)
    get_settings.cache_clear()
    try:
        with pytest.raises(SettingsError) as err:
            get_settings()
    finally:
        get_settings.cache_clear()
    return str(err.value)


# --- K1. trimmed ------------------------------------------------------------------------------


@pytest.mark.parametrize("written", [f" {GOOD}", f"{GOOD} ", f"{GOOD}\r", f"{GOOD}\r\n",
                                     f"\t{GOOD}\n", f"\u3000{GOOD}\u00a0"])
def test_spaces_and_line_ends_around_the_admin_key_are_trimmed(written: str) -> None:
    """K1."""
    assert Settings(admin_key=written).admin_key == GOOD


def test_the_trimmed_admin_key_opens_the_admin_routes(tmp_path: Path) -> None:
    """K1: a key read from a CRLF env file (keyscope's ``admin_cr.py``) works, sent as is
    or with the ``\\r``-free value the client holds; before, both were 401."""
    app, _ = make_app(database_url("sqlite", tmp_path), tmp_path / "data",
                      admin_key=f" {GOOD}\r")
    for client in client_for(app):
        assert client.get("/v1/events", headers=admin(GOOD)).status_code == 200
        assert client.get("/v1/events", headers=admin(f" {GOOD} ")).status_code == 200
        assert client.get("/v1/events", headers=admin(f" {GOOD}")).status_code == 200


def test_referee_keys_are_trimmed_and_open_the_referee_routes(tmp_path: Path) -> None:
    """K1: a referee key read from a CRLF env file (``Li:key\\r``) works."""
    settings = Settings(referee_keys=f"Li: {LI}\r\n")
    assert settings.referees == (("Li", LI),)
    app, _ = make_app(database_url("sqlite", tmp_path), tmp_path / "data",
                      referee_keys=f"Li:{LI}\r")
    for client in client_for(app):
        assert client.get("/v1/events", headers=admin(LI)).status_code == 200


def test_a_referee_key_equal_to_the_admin_key_once_trimmed_is_refused() -> None:
    """K1: the admin key is compared with the referee keys as trimmed."""
    with pytest.raises(ValidationError, match="is the admin key"):
        Settings(admin_key=f"{LI}\r", referee_keys=f"Li:{LI}")


# --- K2. spaces alone -------------------------------------------------------------------------


def test_an_admin_key_of_spaces_alone_is_no_key(tmp_path: Path) -> None:
    """K2: as an empty one, the admin routes are off (403 ``admin_disabled``, which says
    to set ``TILECAM_ADMIN_KEY``), not 401 "the key is not valid" for every key."""
    assert Settings(admin_key=" \r\n").admin_key == ""
    app, _ = make_app(database_url("sqlite", tmp_path), tmp_path / "data", admin_key="   ")
    for client in client_for(app):
        r = client.get("/v1/events", headers=admin(GOOD))
        assert r.status_code == 403 and r.json()["error"]["code"] == "admin_disabled"


# --- K3. refused at start, never shown --------------------------------------------------------


def test_key_fault_takes_printable_ascii_only() -> None:
    """K3: every character ``!`` to ``~`` is good (a key may hold ``:``, ``"``, ``\\``),
    and a space or a tab between them in the settings' keys (``inner_blanks``)."""
    assert key_fault("".join(map(chr, range(0x21, 0x7F)))) is None
    assert key_fault("") is None
    assert key_fault("ab \tcd", inner_blanks=True) is None
    for code in [*range(0x20), 0x7F, 0x80, 0xA0, 0xE9, 0x5BC6]:
        for blanks in (False, True):
            fault = key_fault(f"ab{chr(code)}cd", inner_blanks=blanks)
            assert fault is not None or (blanks and chr(code) == "\t"), hex(code)


@pytest.mark.parametrize(("key", "says"), BAD_KEYS)
def test_a_bad_admin_key_is_refused_at_start_naming_the_fault(
        monkeypatch: pytest.MonkeyPatch, key: str, says: str) -> None:
    """K3: the process settings refuse it, naming ``TILECAM_ADMIN_KEY`` and the fault."""
    monkeypatch.delenv("TILECAM_REFEREE_KEYS", raising=False)
    text = settings_error(monkeypatch, admin_key=key)
    assert text.startswith("bad setting: TILECAM_ADMIN_KEY=(not shown): ")
    assert f"the admin key holds {says}" in text and "printable ASCII" in text
    assert key not in text and "schlüssel" not in text and "密钥" not in text
    assert "\n" not in text and "\r" not in text


@pytest.mark.parametrize(("key", "says"), BAD_KEYS)
def test_a_bad_referee_key_is_refused_at_start_naming_the_referee(
        monkeypatch: pytest.MonkeyPatch, key: str, says: str) -> None:
    """K3: as the admin key, each referee key (the entry named by place and name)."""
    monkeypatch.setenv("TILECAM_ADMIN_KEY", GOOD)
    text = settings_error(monkeypatch, referee_keys=f"Li:{LI}, Wang:{key}")
    assert text.startswith("bad setting: TILECAM_REFEREE_KEYS=(not shown): ")
    assert f"the key of referee 'Wang' (entry 2) holds {says}" in text
    assert key not in text and LI not in text and GOOD not in text


@pytest.mark.parametrize(("key", "says"), BAD_KEYS[:3])
def test_a_validation_errors_own_text_never_shows_a_key(key: str, says: str) -> None:
    """K3: ``Settings(...)`` made in code raises a ValidationError whose text (what a
    traceback shows) holds no setting's value."""
    with pytest.raises(ValidationError) as err:
        Settings(admin_key=key)
    assert says in str(err.value) and key not in str(err.value)
    with pytest.raises(ValidationError) as err:
        Settings(referee_keys=f"Li:{key}")
    assert says in str(err.value) and key not in str(err.value)


# --- K4. tilecam serve --------------------------------------------------------------------------


def test_tilecam_serve_refuses_to_start_with_a_bad_admin_key(tmp_path: Path) -> None:
    """K4: one line on stderr, exit 2, no traceback and no key."""
    key = "geheimer-schlüssel-42"
    env = {**os.environ, "TILECAM_ADMIN_KEY": key, "TILECAM_LOAD_MODEL": "0",
           "TILECAM_DATA_DIR": str(tmp_path)}
    env.pop("TILECAM_REFEREE_KEYS", None)
    done = subprocess.run([sys.executable, "-m", "tilecam.cli", "serve", "--port", "0"],
                          env=env, capture_output=True, text=True, timeout=120)
    out = done.stdout + done.stderr
    assert done.returncode == 2, out
    assert out.startswith("tilecam serve: error: bad setting: TILECAM_ADMIN_KEY=(not shown)")
    assert "outside ASCII" in out and out.count("\n") == 1
    assert "Traceback" not in out and key not in out and "schlüssel" not in out
