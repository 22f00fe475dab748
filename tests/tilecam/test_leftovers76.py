"""What the seventy-sixth session's reviews "difftables" and "cjkfix2" left, each test
naming the rule it checks:

- L1: an admin or referee key with a space or a tab inside it (a passphrase) is taken,
  trimmed at its ends only, and opens the admin routes, as before the session's key
  checks (which refused it at start, so that ``tilecam serve`` and ``tilecam db`` would
  not run after an upgrade); a line end, another control character or a letter outside
  ASCII is still refused (``test_settings_keys.py``);
- L2: an invisible character in a key (a byte-order mark, a zero-width space, a byte
  that is not UTF-8) is named by its code point, not as "a letter … such as é or 密",
  and the key is never shown;
- L3: ``tilecam db backup NEW/.`` (or ``NEW/..``) is refused as a folder, not written
  as a file named ``NEW``; an error shows a byte that is not UTF-8 as stdout does
  (``\\xff``, not ``\\udcff``);
- L5: a saved fan whose ``count`` is null or missing counts once, and the sheet's CSV
  is written (it was a 500);
- L6: a seat or prevalent wind typed on a Chinese keyboard (``Ｓ``) is read as its ASCII;
- L7: ``tilecam serve --port ８８６１`` is refused, as ``TILECAM_PORT=８８６１`` is;
- L8: ``useful_line`` names each tile, with no ``names`` switch left (no caller used its
  codes-only default);
- L9: ``tilecam recognize``'s text names a corrected tile as the rest of its text does
  (code and Chinese name); its ``--json`` keeps the codes.
"""

from __future__ import annotations

import csv
import inspect
import io
import json
import os
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest
from test_tables_helpers import admin, bearer, client_for, database_url, make_app, new_table

import scoring
from tilecam.cli import build_parser, main
from tilecam.commands import serve
from tilecam.commands.recognize import describe
from tilecam.commands.waits import useful_line
from tilecam.settings import Settings, SettingsError, get_settings, key_fault
from tilecam.tables.views import fans_text, fans_view

PASSPHRASE = "correct horse battery staple"
TABBED = "tab\tinside-referee-key"


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


# --- L1. a space or a tab inside a key -------------------------------------------------------


def test_a_key_with_a_space_or_a_tab_inside_is_taken_trimmed_at_its_ends() -> None:
    """L1: before, "the admin key holds a space" / "… holds a tab", and no start."""
    settings = Settings(admin_key=f" {PASSPHRASE}\r\n", referee_keys=f"Li: {TABBED}\r")
    assert settings.admin_key == PASSPHRASE
    assert settings.referees == (("Li", TABBED),)


def test_keys_with_a_space_or_a_tab_inside_open_the_admin_routes(tmp_path: Path) -> None:
    """L1: such a key is sent in the header as it is (the service trims only its ends),
    and it opens what it opens; a key with the inner space left out does not."""
    app, _ = make_app(database_url("sqlite", tmp_path), tmp_path / "data",
                      admin_key=PASSPHRASE, referee_keys=f"Li:{TABBED}")
    for client in client_for(app):
        assert client.get("/v1/events", headers=admin(PASSPHRASE)).status_code == 200
        assert client.get("/v1/events", headers={"X-API-Key": f" {PASSPHRASE} "}
                          ).status_code == 200
        r = client.post("/v1/events", json={"name": "e"}, headers=admin(TABBED))
        assert r.status_code == 201, r.text
        assert client.get("/v1/events", headers=admin("correcthorsebatterystaple")
                          ).status_code == 401


def test_tilecam_db_runs_with_a_passphrase_admin_key(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """L1: every ``tilecam db`` command reading the settings was refused too."""
    monkeypatch.setenv("TILECAM_ADMIN_KEY", PASSPHRASE)
    monkeypatch.setenv("TILECAM_REFEREE_KEYS", f"Li:{TABBED}")
    monkeypatch.setenv("TILECAM_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("TILECAM_DATABASE_URL", raising=False)
    get_settings.cache_clear()
    try:
        assert main(["db", "current"]) == 0
    finally:
        get_settings.cache_clear()
    captured = capsys.readouterr()
    assert "no database yet" in captured.out and captured.err == ""


def test_a_table_key_for_the_watch_still_refuses_a_space() -> None:
    """L1: the watch's key is one the server minted, which never holds a space: it is
    checked without ``inner_blanks`` (its own message), as before."""
    assert key_fault("tc_a b") == "a space" and key_fault("tc_a\tb") == "a tab"


# --- L2. invisible characters named by their code point ------------------------------------


@pytest.mark.parametrize(("key", "says"), [
    ("\ufeffmy-long-admin-secret-123", "U+FEFF, an invisible byte-order mark"),
    ("my-long\u200b-admin-secret", "U+200B (zero width space), an invisible character"),
    ("my-long\u2060-admin-secret", "U+2060 (word joiner), an invisible character"),
    ("my-long\u00ad-admin-secret", "U+00AD (soft hyphen), an invisible character"),
    ("my-long\u2028-admin-secret", "U+2028 (line separator), a line end other than CR or LF"),
    ("my long\u3000admin", "U+3000 (ideographic space), a space other than ASCII's"),
    ("my-long\x85-admin-secret", "U+0085, a control character"),
])
def test_an_invisible_character_is_named_by_its_code_point(
        monkeypatch: pytest.MonkeyPatch, key: str, says: str) -> None:
    """L2: the key read from a file saved with a byte-order mark said "a letter or sign
    outside ASCII (such as é or 密)", which the key did not show."""
    monkeypatch.delenv("TILECAM_REFEREE_KEYS", raising=False)
    text = settings_error(monkeypatch, admin_key=f"{key}\r\n")
    assert f"the admin key holds {says}; " in text, text
    assert "such as é" not in text and key.strip() not in text and "secret" not in text
    monkeypatch.setenv("TILECAM_ADMIN_KEY", "admin-key-for-tests-0123456789")
    text = settings_error(monkeypatch, referee_keys=f"Li:{key}")
    assert f"the key of referee 'Li' (entry 1) holds {says}; " in text, text


@pytest.mark.skipif(sys.platform == "win32" or sys.getfilesystemencoding() != "utf-8",
                    reason="an environment of bytes, read as UTF-8")
def test_a_byte_that_is_not_utf8_is_named_as_a_byte() -> None:
    """L2: ``os.environ`` keeps such a byte as a lone surrogate (``\\udcff``)."""
    key = os.fsdecode(b"secret-\xff-key")
    assert key_fault(key, inner_blanks=True) == "the byte 0xFF, which is not UTF-8"


def test_a_letter_outside_ascii_is_still_refused_as_one() -> None:
    """L2: a visible letter keeps its words (a key that works from one client and not
    another: curl sends UTF-8, http.client Latin-1)."""
    for key in ("clé-secret", "密钥-0123", "secret\u0301"):
        assert key_fault(key, inner_blanks=True) == (
            "a letter or sign outside ASCII (such as é or 密)"), key


# --- L3. db backup NEW/. ----------------------------------------------------------------------


def _sqlite(tmp_path: Path) -> Path:
    file = tmp_path / "src" / "tilecam.db"
    file.parent.mkdir()
    conn = sqlite3.connect(file)
    try:
        conn.execute("CREATE TABLE t (a integer)")
        conn.commit()
    finally:
        conn.close()
    return file


@pytest.mark.parametrize("last", [".", ".."])
def test_backup_to_a_name_ending_in_a_dot_part_is_refused_as_a_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str], last: str) -> None:
    """L3: ``newdir/.`` wrote a file named ``newdir`` (``Path`` drops the ``.``) and said
    "backed up to newdir/."; ``newdir/..`` wrote one named ``newdir`` too."""
    db = _sqlite(tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    out = f"newdir{os.sep}{last}"
    assert main(["db", "backup", out, "--url", f"sqlite:///{db}"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "Traceback" not in captured.err
    assert f"{out} names a folder (its last part is {last}): give the file to write, " \
           "not a folder" in captured.err, captured.err
    assert list(work.iterdir()) == [] and list(tmp_path.iterdir()) == [db.parent, work]


@pytest.mark.skipif(sys.platform == "darwin" or sys.getfilesystemencoding() != "utf-8",
                    reason="a file system that takes any bytes in a name, read as UTF-8")
def test_an_error_shows_a_byte_that_is_not_utf8_as_stdout_does(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """L3: "\\udcff.db exists" on stderr, where the success line says ``\\xff.db``."""
    db = _sqlite(tmp_path)
    out = tmp_path / os.fsdecode(b"\xff.db")
    out.write_text("mine")
    assert main(["db", "backup", str(out), "--url", f"sqlite:///{db}"]) == 2
    err = capsys.readouterr().err
    assert "\\xff.db exists: give a new file" in err and "\\udcff" not in err, err
    missing = tmp_path / os.fsdecode(b"\xfe") / "b.db"
    assert main(["db", "backup", str(missing), "--url", f"sqlite:///{db}"]) == 2
    err = capsys.readouterr().err
    assert "no folder " in err and "\\xfe to write b.db in" in err and "\\udc" not in err
    assert out.read_text() == "mine"


# --- L5. a saved fan with no count ------------------------------------------------------------


def test_a_fan_with_a_null_or_missing_count_counts_once() -> None:
    """L5: ``count: null`` made ``fans_text`` raise TypeError."""
    fans = fans_view({"fans": [{"zh": "清龙", "en": "Pure Straight", "value": 16,
                                "count": None},
                               {"zh": "幺九刻", "en": "Pung of Terminals or Honors",
                                "value": 1}]})
    assert fans is not None and [f["count"] for f in fans] == [1, 1]
    assert fans_text(fans) == "清龙 Pure Straight 16; 幺九刻 Pung of Terminals or Honors 1"


def test_the_sheet_csv_is_written_for_a_saved_fan_with_a_null_count(tmp_path: Path) -> None:
    """L5: the score rewritten in the database (the append-only trigger dropped): the CSV
    was a 500."""
    url = database_url("sqlite", tmp_path)
    app, _ = make_app(url, tmp_path / "data")
    for client in client_for(app):
        table, key = new_table(client)
        r = client.post(f"/v1/tables/{table}/hands", headers=bearer(key),
                        json={"hand": "123m456m789m234p55s", "winner": "E",
                              "discarder": "S"})
        assert r.status_code in (200, 201), r.text
        db = sqlite3.connect(url.removeprefix("sqlite:///"))
        try:
            for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = "
                                      "'trigger' AND tbl_name = 'hand_revisions'").fetchall():
                db.execute(f"DROP TRIGGER {name}")
            score = {"fans": [{"zh": "清龙", "en": "Pure Straight", "value": 16,
                               "count": None}]}
            db.execute("UPDATE hand_revisions SET score = ?", (json.dumps(score),))
            db.commit()
        finally:
            db.close()
        sheet = client.get(f"/v1/tables/{table}/sheet", headers=bearer(key))
        assert sheet.status_code == 200
        assert sheet.json()["hands"][0]["fans"][0]["count"] == 1
        r = client.get(f"/v1/tables/{table}/sheet.csv", headers=bearer(key))
        assert r.status_code == 200, r.text
        rows = list(csv.DictReader(io.StringIO(r.content.decode("utf-8-sig"))))
        assert rows[0]["fans"] == "清龙 Pure Straight 16"


# --- L6. seat winds as a Chinese keyboard types them ------------------------------------------


HAND = "123m456m789m123pEE"


@pytest.mark.parametrize(("seat", "prevalent"), [("Ｓ", "Ｗ"), ("\u3000Ｓ", "Ｗ\u3000"),
                                                 (" S ", "W")])
def test_a_full_width_wind_scores_as_its_ascii(seat: str, prevalent: str) -> None:
    """L6: ``seat_wind="Ｓ"`` said "seat_wind 'Ｓ' is not a wind (E, S, W or N)"."""
    want = scoring.score(HAND, rules="mcr", seat_wind="S", prevalent_wind="W",
                         self_drawn=True).to_dict()
    got = scoring.score(HAND, rules="mcr", seat_wind=seat, prevalent_wind=prevalent,
                        self_drawn=True).to_dict()
    assert got == want


def test_a_wind_that_is_none_is_still_refused_quoted_as_typed() -> None:
    """L6: folding reads no other letter as a wind (``ｓ`` is ``s``, not ``S``)."""
    for bad in ("ｓ", "Ｘ", "南", ""):
        with pytest.raises(scoring.HandError,
                           match=f"^seat_wind '{bad}' is not a wind \\(E, S, W or N\\)$"):
            scoring.score(HAND, rules="mcr", seat_wind=bad)


# --- L7. serve --port in ASCII digits -------------------------------------------------------


@pytest.mark.parametrize("port", ["８８６１", "٨٨٦١", "²"])
def test_serve_refuses_a_port_not_in_ascii_digits(
        port: str, capsys: pytest.CaptureFixture[str]) -> None:
    """L7: ``int()`` read ``８８６１`` as 8861, which ``TILECAM_PORT`` refuses (the
    command line parsed only: where it is taken, nothing is started)."""
    with pytest.raises(SystemExit) as done:
        build_parser().parse_args(["serve", "--port", port])
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert f"'{port}' is not a port (a whole number 0-65535 in ASCII digits 0-9;" in err, err
    assert "Traceback" not in err


def test_serve_still_reads_an_ascii_port() -> None:
    """L7: as before, and as ``TILECAM_PORT`` reads it."""
    assert serve.port_number("8861") == 8861 and serve.port_number(" 0 ") == 0
    with pytest.raises(Exception, match="'88x' is not a port \\(a whole number 0-65535; "):
        serve.port_number("88x")


# --- L8. useful_line ----------------------------------------------------------------------------


def test_useful_line_names_each_tile_with_no_names_switch() -> None:
    """L8: its default printed codes alone, and no caller used it."""
    assert "names" not in inspect.signature(useful_line).parameters
    assert useful_line("5s", 8, [("8s", 4), ("E", 2)]) == (
        "  discard 5s 五条   8 useful draw(s): 8s 八条 (4), E 东 (2)")


# --- L9. recognize names a corrected tile -----------------------------------------------------


def _photo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A blank photo whose detector reads the winning N as S (0.6) or N (0.4): the
    correction reads it as N, the one that wins."""
    import cv2
    import numpy as np

    import vision.detect
    from vision.layout_scene import SceneBuilder

    scene = (SceneBuilder().standing("123m456p789sN").meld("EEE", sideways=1).win("N")
             .uncertain([("S", 0.6), ("N", 0.4)]))
    dets = scene.detections()
    assert dets.image_size is not None
    width, height = dets.image_size
    path = tmp_path / "hand.png"
    cv2.imwrite(str(path), np.full((height, width, 3), 200, np.uint8))
    monkeypatch.setattr(vision.detect, "detect", lambda *a, **k: dets)
    return str(path)


def test_recognize_text_names_a_corrected_tile_and_its_json_keeps_the_codes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """L9: "corrected tile 13: S -> N" beside "waits on: 1s 一条, E 东"."""
    photo = _photo(tmp_path, monkeypatch)
    assert main(["recognize", photo]) == 0
    text = capsys.readouterr().out
    assert "corrected tile 13: S 南 -> N 北 (p 0.60 vs 0.40, 1.5x)" in text, text
    assert main(["recognize", photo, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["corrections"] == [{"tile": 13, "from": "S", "to": "N", "p_from": 0.6,
                                   "p_to": 0.4, "ratio": 1.5}]


def test_describe_names_a_corrected_flower() -> None:
    """L9: every kind has its name (a flower's too), as ``tilecam waits`` names it."""
    base: dict[str, Any] = {"image": "x.jpg", "tiles": [], "hand": "-", "melds": [],
                            "alternatives": [], "notes": []}
    text = describe({**base, "corrections": [{"tile": 2, "from": "1f", "to": "2f",
                                              "p_from": 0.5, "p_to": 0.45, "ratio": 1.111}]})
    assert "corrected tile 2: 1f 春 -> 2f 夏 (p 0.50 vs 0.45, 1.1x)" in text


def test_a_score_recorded_before_the_title_case_names_is_the_same_score() -> None:
    """A camera's re-reading is held for a referee only when its score differs from the
    record's: a Xiamen or Zhenjiang record scored before the seventy-sixth session named
    its fans in lower case (``self-drawn``), the same fans now ``Self-Drawn`` — the same
    score, not one changed."""
    from tilecam.tables.sheet import _fans

    old = {"fans": [{"zh": "自摸", "en": "self-drawn", "value": 1, "count": 1,
                     "sets": ["123m"]}]}
    new = {"fans": [{"zh": "自摸", "en": "Self-Drawn", "value": 1, "count": 1,
                     "sets": ["456m"]}]}
    assert _fans(old) == _fans(new)
    assert _fans(old) != _fans({"fans": [{**new["fans"][0], "value": 2}]})
