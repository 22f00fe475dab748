"""``tilecam watch``'s table key (review "keyscope" of the seventy-sixth session, finding 3:
a key read from a CRLF env file, ``TILECAM_TABLE_KEY=tc_…\\r``, stopped the watch with
``Invalid header value b'Bearer tc_…\\r'``, the whole key on stderr):

- W1: spaces and line ends around the key are trimmed, and the trimmed key is what is
  sent: the server takes the frames;
- W2: a key holding a space, a line end, a control character or a letter outside ASCII
  is refused before the source is opened (exit 2), naming ``--key`` and
  ``TILECAM_TABLE_KEY`` and the fault, never the key; ``post_frame`` refuses it too,
  before sending anything.
"""

from __future__ import annotations

import urllib.request
from pathlib import Path

import pytest
from test_tables_helpers import bearer, client_for, database_url, make_app, new_event
from test_watch_camera import HAND, _port, _serve, write_video

from tilecam.cli import main
from tilecam.commands import watch

SECRET = "tc_THIS-IS-THE-SECRET-TABLE-KEY"

BAD = [
    (f"{SECRET[:10]} {SECRET[10:]}", "a space"),
    (f"{SECRET}\r\nX-Other: 1", "a line end (CR or LF)"),
    (f"{SECRET}\x1b", "a control character"),
    (f"{SECRET}-密钥", "a letter or sign outside ASCII"),
]


# --- W1. trimmed --------------------------------------------------------------------------------


@pytest.mark.parametrize("written", [f"{SECRET}\r", f"{SECRET}\r\n", f" {SECRET} ",
                                     f"\t{SECRET}\n"])
def test_the_key_is_trimmed(written: str) -> None:
    """W1."""
    assert watch.table_key(written) == SECRET


def test_a_key_from_a_crlf_env_file_is_taken_by_the_server(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """W1: ``TILECAM_TABLE_KEY=tc_…\\r`` (the parser's default is read at ``register``,
    so the env is set before :func:`main` builds it) posts frames the server answers,
    and the hand is recorded."""
    import uvicorn

    video = tmp_path / "table.avi"
    write_video(video, [0, 120, 120, 120])
    app, cam = make_app(database_url("sqlite", tmp_path), tmp_path / "data")
    cam.show(120, HAND)
    for client in client_for(app):
        _, [(table, key)] = new_event(client, rules="xiamen", tables=1)
        monkeypatch.setenv("TILECAM_TABLE_KEY", f"{key}\r\n")
        port = _port()
        server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port,
                                               log_level="warning", lifespan="off"))
        thread = _serve(server)
        try:
            code = main(["watch", "--table", str(table), "--source", str(video),
                         "--server", f"http://127.0.0.1:{port}", "--every", "0.5"])
        finally:
            server.should_exit = True
            thread.join(timeout=10)
        out, err = capsys.readouterr()
        assert code == 0, err
        assert '"hands_recorded": 1' in out and key not in out + err
        hands = client.get(f"/v1/tables/{table}/hands", headers=bearer(key)).json()["hands"]
        assert len(hands) == 1


# --- W2. refused, never shown -----------------------------------------------------------------


@pytest.mark.parametrize(("key", "says"), BAD)
def test_a_bad_key_is_refused_before_the_source_is_opened(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], key: str, says: str) -> None:
    """W2: the source does not exist: the key is what the watch stops on, exit 2."""
    code = main(["watch", "--table", "1", "--key", key, "--source",
                 str(tmp_path / "no.mp4"), "--server", "http://127.0.0.1:9"])
    out, err = capsys.readouterr()
    assert code == 2
    assert (f"tilecam watch: error: the table's key (--key or TILECAM_TABLE_KEY) holds "
            f"{says}") in err
    assert SECRET not in out + err and SECRET[10:] not in err and "密钥" not in err


@pytest.mark.parametrize(("key", "says"), BAD)
def test_a_bad_key_from_the_environment_is_refused_unshown(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str], key: str, says: str) -> None:
    """W2: as with ``--key``, the key given in ``TILECAM_TABLE_KEY``."""
    monkeypatch.setenv("TILECAM_TABLE_KEY", key)
    code = main(["watch", "--table", "1", "--source", str(tmp_path / "no.mp4"),
                 "--server", "http://127.0.0.1:9"])
    err = capsys.readouterr().err
    assert code == 2 and says in err and SECRET not in err


@pytest.mark.parametrize("key", ["", "  ", "\r\n"])
def test_a_key_of_nothing_but_spaces_is_no_key(tmp_path: Path, key: str,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """W2: as before for an empty one."""
    code = main(["watch", "--table", "1", "--key", key, "--source", str(tmp_path / "no.mp4")])
    assert code == 2
    assert "give the table's key with --key or TILECAM_TABLE_KEY" in capsys.readouterr().err


@pytest.mark.parametrize(("key", "says"), BAD)
def test_post_frame_refuses_a_bad_key_before_sending(
        monkeypatch: pytest.MonkeyPatch, key: str, says: str) -> None:
    """W2: ``post_frame`` called with a key no header carries raises ValueError without
    it, and opens no connection."""
    def no_connection(*args: object, **kwargs: object) -> None:
        raise AssertionError("a connection was opened")

    monkeypatch.setattr(urllib.request, "urlopen", no_connection)
    with pytest.raises(ValueError) as err:
        watch.post_frame("http://127.0.0.1:9", 1, key, b"jpeg")
    assert says in str(err.value) and SECRET not in str(err.value)


def test_a_429_refusing_the_key_stops_the_watch_at_once(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A 429 ``keys_refused`` (a wrong key, past the address's refused keys) stops the
    watch on the first frame, saying why, as a 401 does: it waited out the 429's
    Retry-After and resent the frame for good, printing nothing, each resend one more
    refused key against the address."""
    import numpy as np

    posts: list[int] = []
    refused = ("this request is refused (401 unauthorized: unknown key), and too many "
               "refused keys came from this address: sent again as it is, it is refused "
               "again (a valid key is not held back by this limit): retry in 1 s")

    def post(*_args: object, **_kwargs: object) -> tuple[int, dict[str, object], float]:
        posts.append(1)
        assert len(posts) < 4, "the frame was sent again and again"
        return 429, {"error": {"code": "keys_refused", "message": refused}}, 1.0

    monkeypatch.setattr(watch, "frames",
                        lambda *a, **k: (f for f in [np.zeros((8, 8, 3), np.uint8)]))
    monkeypatch.setattr(watch, "post_frame", post)
    monkeypatch.setattr(watch.time, "sleep", lambda _s: None)
    code = main(["watch", "--table", "1", "--source", "x", "--key", "tc_wrong"])
    assert code == 2 and posts == [1]
    assert f"the server refused the frames: {refused}" in capsys.readouterr().err
