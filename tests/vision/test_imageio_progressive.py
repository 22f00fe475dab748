"""A progressive JPEG whose scans stop before the picture is complete is refused as truncated.

A progressive JPEG sends its picture in scans: the DC coefficients first, then bands of AC
coefficients, often a few bits at a time (successive approximation). A file cut between
two scans, or inside one with its end-of-image marker put back, loses the scans after the
cut, and libjpeg decodes what came without an error — a coarser picture, no grey. Every
encoder's scan script sends each coefficient of each component down to its last bit, so
:mod:`vision.imageio` reads the scan headers (component ids, Ss, Se, Ah, Al) and refuses a
file whose scans leave bits unsent — a component that gets its DC coefficient alone, while
another gets AC coefficients, set aside. A file with restart markers must also hold, in
each scan, as many as the scan's MCUs need: the one trace a cut inside the last scan
leaves without decoding it twice.

The refusal rules below failed on the code before (which decoded a file whose scans stop
early once more, with extra bytes before its end marker, and let it through when the
pixels did not change: a cut at a scan boundary, or a lost whole scan, passed); the
whole-file rules are the guards that no encoder's script is refused.
"""

from __future__ import annotations

import io
import re
import shutil
import struct
import subprocess
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image
from test_imageio_truncated import H, W, _photo

from tilecam.api.errors import ApiError
from tilecam.api.upload import decode_image
from vision.imageio import ImageError, load_image, load_image_reduced

#: a marker with a length, or the end of image: where a scan's entropy-coded data ends
_SEGMENT = re.compile(rb"\xff([\xc0-\xcf\xd8-\xfe])")
EOI = b"\xff\xd9"
STOPS_EARLY = r"truncated JPEG: its scans stop before the picture is complete"


def _cv2_jpeg(img: np.ndarray, *params: int) -> bytes:
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_PROGRESSIVE, 1, *params])
    assert ok
    return buf.tobytes()


def _pil_jpeg(img: np.ndarray, mode: str = "RGB", **options: object) -> bytes:
    out = io.BytesIO()
    rgb = Image.fromarray(np.ascontiguousarray(img[:, :, ::-1]))
    rgb.convert(mode).save(out, "JPEG", progressive=True, **options)
    return out.getvalue()


def _scans(jpeg: bytes) -> list[tuple[int, int]]:
    """``(start, end)`` of each scan: from the end of the previous scan's data (where the
    segments that go with this scan, its Huffman tables, start; the first scan's SOS
    marker) to the end of its own entropy-coded data (the next marker with a length)."""
    out: list[tuple[int, int]] = []
    start = sos = jpeg.index(b"\xff\xda")
    while sos >= 0:
        (length,) = struct.unpack(">H", jpeg[sos + 2 : sos + 4])
        found = _SEGMENT.search(jpeg, sos + 2 + length)
        assert found is not None
        out.append((start, found.start()))
        if found.group(1) == b"\xd9":
            break
        start, sos = found.start(), jpeg.find(b"\xff\xda", found.start())
    return out


def _cut_after_scan(jpeg: bytes, k: int) -> bytes:
    """The file cut at the end of scan ``k``'s data (the scans after it lost), its end
    marker put back."""
    return jpeg[: _scans(jpeg)[k][1]] + EOI


def _without_scans(jpeg: bytes, drop: set[int]) -> bytes:
    """The file less the scans ``drop`` (each with the segments that go with it; libjpeg
    writes a progressive scan's Huffman tables right before it)."""
    scans = _scans(jpeg)
    parts, at = [], 0
    for k in sorted(drop):
        start, end = scans[k]
        parts.append(jpeg[at:start])
        at = end
    return b"".join([*parts, jpeg[at:]])


def _decoded(jpeg: bytes, flag: int = cv2.IMREAD_COLOR) -> np.ndarray:
    img = cv2.imdecode(np.frombuffer(jpeg, np.uint8), flag)
    assert img is not None
    return np.asarray(img)


S444 = (cv2.IMWRITE_JPEG_SAMPLING_FACTOR, cv2.IMWRITE_JPEG_SAMPLING_FACTOR_444)
S422 = (cv2.IMWRITE_JPEG_SAMPLING_FACTOR, cv2.IMWRITE_JPEG_SAMPLING_FACTOR_422)
S411 = (cv2.IMWRITE_JPEG_SAMPLING_FACTOR, cv2.IMWRITE_JPEG_SAMPLING_FACTOR_411)
S440 = (cv2.IMWRITE_JPEG_SAMPLING_FACTOR, cv2.IMWRITE_JPEG_SAMPLING_FACTOR_440)
OPTIMISED = (cv2.IMWRITE_JPEG_OPTIMIZE, 1)


def _restarts(n: int) -> tuple[int, int]:
    return (cv2.IMWRITE_JPEG_RST_INTERVAL, n)


ENCODERS: dict[str, Callable[[], bytes]] = {
    "OpenCV 4:2:0": lambda: _cv2_jpeg(_photo()),
    "OpenCV 4:4:4 optimised": lambda: _cv2_jpeg(_photo(), *S444, *OPTIMISED),
    "OpenCV grey": lambda: _cv2_jpeg(cv2.cvtColor(_photo(), cv2.COLOR_BGR2GRAY)),
    "OpenCV restart every 5 MCUs": lambda: _cv2_jpeg(_photo(), *_restarts(5)),
    "PIL 4:2:2 optimised": lambda: _pil_jpeg(_photo(), subsampling=1, optimize=True),
    "PIL CMYK": lambda: _pil_jpeg(_photo(), "CMYK", quality=90),
}


# ------------------------------------------------------------------ cut between two scans
@pytest.mark.parametrize("make", ENCODERS.values(), ids=ENCODERS.keys())
def test_a_progressive_jpeg_cut_between_any_two_scans_is_refused_as_truncated(
    make: Callable[[], bytes],
) -> None:
    """Rule: a progressive JPEG cut at any scan boundary (every scan before it whole, the
    ones after lost, the end marker put back) is refused as truncated by load_image and
    load_image_reduced — libjpeg decodes it without a word, and no scan of it is cut."""
    data = make()
    scans = _scans(data)
    assert len(scans) >= 6  # libjpeg's progression: 10 scans, 6 for grey, 18 for CMYK
    for k in range(len(scans) - 1):
        bad = _cut_after_scan(data, k)
        _decoded(bad)  # what libjpeg does: a coarser picture, no error
        with pytest.raises(ImageError, match=STOPS_EARLY):
            load_image(bad)
        with pytest.raises(ImageError, match=STOPS_EARLY):
            load_image_reduced(bad, min_long_side=40)


def test_the_refusal_says_which_coefficients_the_scans_leave_unsent() -> None:
    """Rule: the message names the first component whose coefficients are unsent, or sent
    without all their bits (libjpeg's script: DC at half precision first, the luma's last
    bit last)."""
    data = _cv2_jpeg(_photo())
    with pytest.raises(ImageError, match="coefficients 1-63 of component 1 of 3 are never sent"):
        load_image(_cut_after_scan(data, 0))  # the DC scan alone
    last = len(_scans(data)) - 1
    with pytest.raises(
        ImageError, match="coefficients 1-63 of component 1 of 3 are sent without all their bits"
    ):
        load_image(_cut_after_scan(data, last - 1))  # all but the luma's last bit


def test_a_progressive_jpeg_that_lost_a_whole_scan_from_its_middle_is_refused() -> None:
    """Rule: a lost middle that takes whole scans with it (the scans after them intact) is
    refused: libjpeg's refinement of the luma's second-last bit (scan 6 of 10) gone, or
    the chroma's first AC scans (3 and 4) gone — the later scans refine bits never sent."""
    data = _cv2_jpeg(_photo())
    for drop in ({5}, {2, 3}):
        bad = _without_scans(data, drop)
        _decoded(bad)
        with pytest.raises(ImageError, match=STOPS_EARLY):
            load_image(bad)


def test_a_progressive_jpeg_upload_cut_between_scans_is_400_invalid_image() -> None:
    """Rule: the service answers it as any truncated JPEG: 400 ``invalid_image``, the
    message saying "truncated" — no 500, no traceback."""
    bad = _cut_after_scan(_cv2_jpeg(_photo()), 6)
    with pytest.raises(ApiError) as err:
        decode_image(bad, 2_000_000, 1 << 20)
    assert (err.value.status_code, err.value.code) == (400, "invalid_image")
    assert "truncated JPEG" in err.value.message


def test_a_jpeg_of_dc_scans_alone_is_refused() -> None:
    """Rule: a file whose scans send only DC coefficients (libjpeg's script less every AC
    scan) is refused — the DC-alone exception is for a component beside others that get
    AC coefficients, not for a whole picture of 8 × 8 blocks."""
    data = _cv2_jpeg(_photo())
    dc_scans = {0, 6}  # libjpeg's progression: DC first and its refinement
    bad = _without_scans(data, set(range(len(_scans(data)))) - dc_scans)
    assert len(_scans(bad)) == 2
    with pytest.raises(ImageError, match="coefficients 1-63 of component 1 of 3 are never"):
        load_image(bad)


# ------------------------------------------------------------------ cut inside a scan
def test_a_progressive_jpeg_with_restart_markers_cut_inside_its_last_scan_is_refused() -> None:
    """Rule: a progressive JPEG with restart markers cut inside its last scan (its script
    complete: no gap in the headers), or that lost a part of that scan, is refused: the
    scan holds fewer restart markers than its MCUs need, counted scan by scan."""
    data = _cv2_jpeg(_photo(), *_restarts(4))
    start, end = _scans(data)[-1]
    third, half = start + (end - start) // 3, start + (end - start) // 2
    for bad in (data[:half] + EOI, data[:third] + data[half:]):
        with pytest.raises(
            ImageError,
            match=r"truncated JPEG: .* its scan 10 of 10 holds \d+ "
            r"of the \d+ restart markers",
        ):
            load_image(bad)


def test_restart_markers_are_counted_under_the_interval_each_scan_has() -> None:
    """Rule: a DRI between scans sets the interval of the scans after it (cjpeg's restart
    every row writes one before each scan: an MCU row of the interleaved DC scan is 20
    MCUs, of the luma's scans 40 blocks): whole files are read, and a file that lost a
    part of its last scan is refused."""
    cjpeg = shutil.which("cjpeg")
    if cjpeg is None:
        pytest.skip("cjpeg (libjpeg-turbo) is not installed")
    img = _photo()
    ppm = b"P6\n%d %d\n255\n" % (W, H) + np.ascontiguousarray(img[:, :, ::-1]).tobytes()
    data = subprocess.run([cjpeg, "-progressive", "-restart", "1"], input=ppm,
                          capture_output=True, check=True).stdout  # fmt: skip
    assert data.count(b"\xff\xdd") > 1
    assert np.array_equal(load_image(data), _decoded(data))
    start, end = _scans(data)[-1]
    with pytest.raises(ImageError, match=r"its scan \d+ of \d+ holds"):
        load_image(data[: start + (end - start) // 2] + EOI)


# ------------------------------------------------------------------ whole files still read
def _with_comment_between_scans(jpeg: bytes) -> bytes:
    start, _ = _scans(jpeg)[3]
    body = b"\xff\xda\x00\x08\x01\x01\x00\x3f\x00 not a scan \xff\xd9"
    return jpeg[:start] + b"\xff\xfe" + struct.pack(">H", len(body) + 2) + body + jpeg[start:]


def _dc_alone_chroma(jpeg: bytes) -> bytes:
    """libjpeg's progression less the chroma's AC scans (3, 4, 8 and 9 of 10): the chroma
    get their whole DC coefficient (scans 1 and 7) and nothing else."""
    return _without_scans(jpeg, {2, 3, 7, 8})


def _repeated_last_scan(jpeg: bytes, times: int) -> bytes:
    start, end = _scans(jpeg)[-1]
    return jpeg[:end] + jpeg[start:end] * times + jpeg[end:]


WHOLE: dict[str, Callable[[], bytes]] = {
    **ENCODERS,
    "OpenCV 4:1:1": lambda: _cv2_jpeg(_photo(), *S411),
    "OpenCV 4:4:0": lambda: _cv2_jpeg(_photo(), *S440),
    "OpenCV quality 5": lambda: _cv2_jpeg(_photo(), cv2.IMWRITE_JPEG_QUALITY, 5),
    "OpenCV quality 100, 4:4:4": lambda: _cv2_jpeg(_photo(), cv2.IMWRITE_JPEG_QUALITY, 100, *S444),
    "OpenCV odd size, restart every MCU": lambda: _cv2_jpeg(_photo(237, 317), *_restarts(1)),
    "OpenCV restart every 40 MCUs, 4:2:2": lambda: _cv2_jpeg(_photo(), *_restarts(40), *S422),
    "OpenCV flat grey": lambda: _cv2_jpeg(np.full((H, W, 3), 128, np.uint8)),
    "PIL 4:4:4 quality 95": lambda: _pil_jpeg(_photo(), subsampling=0, quality=95),
    "PIL 4:2:0 quality 10 optimised": lambda: _pil_jpeg(_photo(), quality=10, optimize=True),
    "PIL grey": lambda: _pil_jpeg(_photo(), "L", quality=80),
    "a comment between two scans": lambda: _with_comment_between_scans(_cv2_jpeg(_photo())),
    "the last scan repeated (libjpeg warns)": lambda: _repeated_last_scan(_cv2_jpeg(_photo()), 3),
    "fill bytes before the end marker": lambda: _cv2_jpeg(_photo())[:-2] + b"\xff" * 9 + EOI,
    "a second JPEG after the end": lambda: _cv2_jpeg(_photo()) + _cv2_jpeg(_photo(64, 80)),
    "chroma sent as DC alone": lambda: _dc_alone_chroma(_cv2_jpeg(_photo())),
}


@pytest.mark.parametrize("make", WHOLE.values(), ids=WHOLE.keys())
def test_whole_progressive_jpegs_are_read_to_the_same_pixels(make: Callable[[], bytes]) -> None:
    """Rule: no false refusals — every encoder's progression, restart markers, segments
    between scans, a repeated scan, bytes after the end, a component sent as DC alone
    (set aside) decode exactly as OpenCV decodes the file, at full and reduced scale."""
    data = make()
    assert np.array_equal(load_image(data), _decoded(data))
    reduced, _ = load_image_reduced(data, min_long_side=60)
    assert np.array_equal(reduced, _decoded(data, cv2.IMREAD_REDUCED_COLOR_4))


def test_a_component_sent_as_dc_alone_cut_inside_a_scan_is_still_refused() -> None:
    """Rule: where a component is set aside for its DC alone, a cut inside a scan of
    another component (the luma's last, its script complete) is still found, as before: a
    second decode with extra bytes before the end marker differs."""
    data = _dc_alone_chroma(_cv2_jpeg(_photo()))
    start, end = _scans(data)[-1]
    with pytest.raises(ImageError, match="truncated JPEG"):
        load_image(data[: start + (end - start) // 2] + EOI)


def test_a_progressive_jpeg_with_millions_of_segments_between_scans_is_read_quickly() -> None:
    """Rule: the scan walk (a step in Python per segment between scans) stops past 4,096
    segments and the file is read unchecked: 2,000,000 empty comments (8 MB) between two
    scans cost about 0.04 s a read; a walk of each took 1.4 s (the limit was first put
    after the walk to the next scan)."""
    import time

    data = _cv2_jpeg(_photo())
    start, _ = _scans(data)[1]
    padded = data[:start] + b"\xff\xfe\x00\x02" * 2_000_000 + data[start:]
    began = time.perf_counter()
    assert np.array_equal(load_image(padded), _decoded(data))
    assert time.perf_counter() - began < 0.5


# ------------------------------------------------------------------ other encoders' scripts
#: Scan scripts (jpegtran ``-scans``) of encoders other than libjpeg's default: mozjpeg's
#: (its "max compression" script and ones its scan optimiser picks), spectral selection
#: only (corkami's 20 scans), DC by successive approximation, a scan a coefficient, a
#: sequential file of one scan a component.
SCRIPTS = {
    "mozjpeg": "0,1,2: 0 0 0 0; 0: 1 8 0 2; 1: 1 8 0 0; 2: 1 8 0 0; 0: 9 63 0 2; "
               "0: 1 63 2 1; 0: 1 63 1 0; 1: 9 63 0 0; 2: 9 63 0 0;",
    "mozjpeg, DC a component": "0: 0 0 0 0; 1: 0 0 0 0; 2: 0 0 0 0; 0: 1 8 0 2; 1: 1 8 0 0; "
                               "2: 1 8 0 0; 0: 9 63 0 2; 0: 1 63 2 1; 0: 1 63 1 0; "
                               "1: 9 63 0 0; 2: 9 63 0 0;",
    "mozjpeg optimiser, successive approximation": "0: 0 0 0 0; 0: 1 8 0 1; 0: 9 63 0 1; "
        "0: 1 63 1 0; 1,2: 0 0 0 0; 1: 1 8 0 1; 1: 9 63 0 1; 2: 1 8 0 1; 2: 9 63 0 1; "
        "1: 1 63 1 0; 2: 1 63 1 0;",
    "spectral selection alone": "0: 0 0 0 0; 0: 1 1 0 0; 0: 2 6 0 0; 0: 7 10 0 0; "
        "0: 11 63 0 0; 1: 0 0 0 0; 1: 1 16 0 0; 1: 17 63 0 0; 2: 0 0 0 0; 2: 1 63 0 0;",
    "DC by three refinements": "0,1,2: 0 0 0 3; 0,1,2: 0 0 3 2; 0,1,2: 0 0 2 1; "
                               "0,1,2: 0 0 1 0; 0: 1 63 0 0; 1: 1 63 0 0; 2: 1 63 0 0;",
    "a scan a luma coefficient": "0,1,2: 0 0 0 0; "
        + " ".join(f"0: {k} {k} 0 0;" for k in range(1, 64)) + " 1: 1 63 0 0; 2: 1 63 0 0;",
    "sequential, a scan a component": "0: 0 63 0 0; 1: 0 63 0 0; 2: 0 63 0 0;",
}  # fmt: skip


def _jpegtran_scans(script: str, tmp_path: Path) -> bytes:
    jpegtran = shutil.which("jpegtran")
    if jpegtran is None:
        pytest.skip("jpegtran (libjpeg-turbo) is not installed")
    path = tmp_path / "scans.txt"
    path.write_text(script.replace("; ", ";\n"))
    ok, base = cv2.imencode(".jpg", _photo(), [cv2.IMWRITE_JPEG_QUALITY, 90])
    assert ok
    return subprocess.run([jpegtran, "-scans", str(path)], input=base.tobytes(),
                          capture_output=True, check=True).stdout  # fmt: skip


def _script(script: str) -> list[tuple[tuple[int, ...], int, int, int, int]]:
    """The scans of a jpegtran script: ``(component indices, Ss, Se, Ah, Al)`` each."""
    out = []
    for scan in filter(None, (part.strip() for part in script.split(";"))):
        comps, fields = scan.split(":")
        ss, se, ah, al = map(int, fields.split())
        out.append((tuple(int(c) for c in comps.split(",")), ss, se, ah, al))
    return out


def _leaves_a_gap(scans: list[tuple[tuple[int, ...], int, int, int, int]]) -> bool:
    """Whether these scans of a 3-component picture leave a bit of a coefficient unsent,
    a component that gets its whole DC and no AC while another gets AC set aside: the
    rule, worked out from the script's text (a first scan sends the bits from Al up to
    13, a refinement the bit Al; a sequential scan, 0-63, every bit)."""
    bits: list[list[set[int]]] = [[set() for _ in range(64)] for _ in range(3)]
    for comps, ss, se, ah, al in scans:
        sent = set(range(14)) if (ss, se) == (0, 63) else set(range(al, 14)) if ah == 0 else {al}
        for c in comps:
            for k in range(ss, se + 1):
                bits[c][k] |= sent
    whole = [all(len(b) == 14 for b in comp) for comp in bits]
    dc_alone = [len(comp[0]) == 14 and not any(comp[1:]) for comp in bits]
    any_ac = any(any(comp[1:]) for comp in bits)
    return any(not whole[c] and not (dc_alone[c] and any_ac) for c in range(3))


@pytest.mark.parametrize("script", SCRIPTS.values(), ids=SCRIPTS.keys())
def test_other_encoders_scripts_are_read_whole_and_refused_cut_between_scans(
    script: str, tmp_path: Path
) -> None:
    """Rule: the whole file of each script is read to OpenCV's pixels; cut at a scan
    boundary it is refused wherever the scans before the cut leave a gap — all but the
    cuts that leave a component with its whole DC alone (set aside; each script has
    cuts that are refused)."""
    data = _jpegtran_scans(script, tmp_path)
    assert np.array_equal(load_image(data), _decoded(data))
    scans = _script(script)
    assert len(_scans(data)) == len(scans)
    refused = 0
    for k in range(len(scans) - 1):
        bad = _cut_after_scan(data, k)
        if _leaves_a_gap(scans[: k + 1]):
            with pytest.raises(ImageError, match=STOPS_EARLY):
                load_image(bad)
            refused += 1
        else:
            assert np.array_equal(load_image(bad), _decoded(bad))
    assert refused >= len(scans) // 2


def test_an_arithmetic_coded_progressive_jpeg_with_chroma_dc_alone_is_read(
        tmp_path: Path) -> None:
    """An arithmetic-coded file is never decoded again with bytes before its end marker:
    its encoder drops the zero bytes that end a scan and the decoder reads what stands
    there in their place, so a whole file decoded to other pixels and was refused as cut
    short (17 of 120 such files in the seventy-first session's review)."""
    jpegtran = shutil.which("jpegtran")
    if jpegtran is None:
        pytest.skip("jpegtran (libjpeg-turbo) is not installed")
    script = tmp_path / "scans.txt"
    script.write_text("0 1 2: 0 0 0 0;\n0: 1 63 0 0;\n")
    for seed in range(12):
        rng = np.random.default_rng(seed)
        small = rng.integers(0, 255, (12, 16, 3), np.uint8)
        photo = cv2.resize(small, (128, 96), interpolation=cv2.INTER_CUBIC)
        ok, base = cv2.imencode(".jpg", photo, [cv2.IMWRITE_JPEG_QUALITY, 20 + 5 * seed])
        assert ok
        data = subprocess.run([jpegtran, "-arithmetic", "-scans", str(script)],
                              input=base.tobytes(), capture_output=True, check=True).stdout
        expected = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
        assert np.array_equal(load_image(data), expected), seed
