"""Safe image loading: any photo in, a BGR uint8 array out, or a clear :class:`ImageError`.

Untrusted input (uploads, camera frames, files) goes through :func:`load_image`:

1. the byte size is checked before anything is read into memory (``max_bytes``);
2. the format is sniffed from its magic bytes (JPEG, PNG, WebP, BMP, TIFF);
3. the image size is read from the header *before decoding* (PNG ``IHDR``, JPEG ``SOFn``,
   WebP ``VP8``/``VP8L``/``VP8X``, BMP ``BITMAPINFOHEADER``, TIFF ``IFD0``), so a
   100-megapixel photo or a PNG decompression bomb is refused without decoding. Memory
   stays bounded, though not by the 3 bytes per pixel of the BGR result: a decode's peak
   is about 6 bytes per pixel, the result included (measured at 40 MP: +230 MiB of peak
   RSS for a baseline JPEG, a PNG or a 16-bit TIFF), up to 9 for a progressive 4:4:4 JPEG
   (+347 MiB) and 11 for a CMYK progressive JPEG (+423 MiB): size the service's memory
   as ``RECOGNIZE_CONCURRENCY`` × ``max_pixels`` × 11 bytes, plus the model's.
   A TIFF whose first IFD repeats ImageWidth/ImageLength, or types them other than
   SHORT/LONG, is refused (libtiff might read another size than the check);
4. a JPEG whose entropy-coded data has no end-of-image marker is refused as truncated
   (libjpeg would silently fill the missing rows with grey), and so, when it is decoded,
   is one cut short that still ends with the marker (put back by an uploader or proxy)
   or whose middle is lost: libjpeg decodes those without an error, the blocks it never
   got flat grey. The decoder is asked, not the pixels (a picture's own flat grey edge is
   no cut; looking for one refused real pictures): a single-scan JPEG — a camera's, with
   restart markers or not — is decoded with zero padding where its end marker was, which
   only data that stops early reads into and runs dry; one with restart markers must hold
   as many as its blocks need; a progressive one must send every bit of every coefficient
   of every component in its scans, as every encoder's script does (a cut inside any
   scan but the last, or between two scans, or a lost middle that takes whole scans with
   it, loses the bits of the scans after it: read from the scan headers, no second
   decode; a component that gets its whole DC coefficient and no AC coefficient at all
   is set aside, and such a file, unless arithmetic-coded, is decoded again with extra
   bytes before its end marker, which only a scan cut short reads), and each of its
   scans with restart markers must hold as many as its MCUs need
   (:func:`_decode_jpeg`; well under 1 ms on a 12 MP photo, about 1 ms for a
   progressive one). Not caught: a loss of less than about 32
   bytes at the very end, a hole inside one restart interval or that leaves the data no
   shorter than the decoder wants (it decodes garbled), a progressive JPEG without
   restart markers cut inside its last scan (the rest of the picture lacks that scan's
   last refinement bit, no grey; only a second decode would tell, 108-164 ms more at
   12 MP) or between two scans where only components with their DC alone are left
   unfinished, a middle lost inside one progressive scan, an arithmetic-coded JPEG cut
   short whose end marker was put back (a baseline one anywhere, a progressive one where
   only the DC-alone set-aside would tell). A progressive JPEG whose
   script stops early on purpose (T.81 allows it; no encoder's default does) is refused
   as truncated too. A progressive JPEG of more than :data:`MAX_JPEG_SCANS` scans is
   refused before decoding (each scan costs a pass over every block: a few hundred KB of
   repeated scans took minutes);
5. OpenCV decodes with ``IMREAD_COLOR``, which turns grey and alpha images into
   3-channel BGR and applies the JPEG EXIF orientation tag (the returned array is the
   image as a viewer shows it).

:func:`load_for_reading` loads a photo with the smaller picture that
:func:`vision.recognize.recognize` has the detector read a large photo from (a 12 MP phone
photo: 2016 × 1512; a JPEG decoded reduced, other inputs :func:`halved`).

>>> import numpy as np
>>> load_image(np.zeros((2, 3), np.uint8)).shape
(2, 3, 3)
>>> sniff_format(b"\\x89PNG\\r\\n\\x1a\\n....")
'png'
"""

from __future__ import annotations

import functools
import operator
import os
import re
import stat
import struct
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import cv2
import numpy as np
import numpy.typing as npt

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_PIXELS",
    "MAX_DECODABLE_PIXELS",
    "MAX_JPEG_SCANS",
    "READ_MIN_LONG_SIDE",
    "UINT16_DEPTHS",
    "ImageError",
    "Photo",
    "check_decodable",
    "decoder_max_side",
    "halved",
    "image_size_from_header",
    "load_for_reading",
    "load_image",
    "load_image_reduced",
    "sniff_format",
    "uint16_bits",
]

#: Largest accepted image, in pixels (width × height), before decoding.
DEFAULT_MAX_PIXELS = 40_000_000
#: Largest accepted encoded image, in bytes (50 MiB).
DEFAULT_MAX_BYTES = 50 * 1024 * 1024
#: OpenCV's own ceiling on a decoded image, in pixels (``CV_IO_MAX_IMAGE_PIXELS``, 2^30):
#: nothing larger can be decoded whatever ``max_pixels`` says. It is also the limit that
#: :func:`vision.detect` and :func:`vision.recognize` put on an array that is already
#: decoded (the service decodes under its own ``TILECAM_MAX_PIXELS``; re-checking the
#: array against the 40 MP default refused what the setting let in).
MAX_DECODABLE_PIXELS = 1 << 30
#: Most scans accepted in a progressive JPEG. libjpeg's default progression writes 10
#: (18 for CMYK); each scan costs a pass over every block of the image (about 16 ms at
#: 40 MP), so 100 bounds that extra work to about 1.6 s where a file of repeated scans
#: could take minutes (libjpeg-turbo's ``djpeg -maxscans`` guards the same attack).
MAX_JPEG_SCANS = 100
#: Most marker segments a JPEG may hold before its first scan: cameras write a few dozen
#: (EXIF, ICC profile chunks, maker notes); each is a step of the header walk in Python,
#: so millions of empty comment segments in a 15 MB upload took seconds a read.
MAX_JPEG_HEADER_SEGMENTS = 4096
#: Longest image side each decoder takes, in pixels (libpng's 1,000,000; libjpeg's 65,500;
#: WebP's 14-bit sides; OpenCV's ``CV_IO_MAX_IMAGE_WIDTH`` of 2^20 for the others).
_MAX_SIDE = {"png": 1_000_000, "jpeg": 65_500, "webp": 16_383}
_OPENCV_MAX_SIDE = 1 << 20

ImageSource = str | os.PathLike[str] | bytes | bytearray | memoryview | npt.NDArray[np.generic]


class ImageError(ValueError):
    """The input is not a usable image; the message says what is wrong."""


# --------------------------------------------------------------------------- format sniffing
_UNSUPPORTED_MAGIC: tuple[tuple[bytes, int, str], ...] = (
    (b"GIF8", 0, "GIF"),
    (b"%PDF", 0, "PDF"),
    (b"PK\x03\x04", 0, "ZIP archive"),
)
#: ISO-BMFF brands (an ``ftyp`` box at offset 4: the major brand, then the compatible
#: ones) of image formats not supported, first match in this order: AVIF (still and
#: ``avis`` sequences), HEIC (HEVC-coded still images and ``hevc``/``heis`` sequences),
#: other HEIF (``mif1``/``msf1`` structural brands). Any other ``ftyp`` file is named as
#: ISO media (MP4, MOV, 3GP ...).
_ISO_BRANDS: tuple[tuple[frozenset[bytes], str], ...] = (
    (frozenset({b"avif", b"avis", b"avio"}), "AVIF"),
    (frozenset({b"heic", b"heix", b"heim", b"heis", b"hevc", b"hevx", b"hevm", b"hevs"}),
     "HEIC"),
    (frozenset({b"mif1", b"mif2", b"msf1"}), "HEIF"),
)
#: A netpbm header: ``P1``-``P7``, whitespace, then comments or the width.
_NETPBM = re.compile(rb"P([1-7])[ \t\r\n]+(?:#[^\n]*\n[ \t\r\n]*)*\d")
_NETPBM_NAMES = {b"1": "PBM", b"2": "PGM", b"3": "PPM", b"4": "PBM", b"5": "PGM", b"6": "PPM",
                 b"7": "PAM"}


def sniff_format(data: bytes | memoryview) -> str | None:
    """The image format named by the leading magic bytes, or ``None`` if unknown.

    Returns one of ``"jpeg"``, ``"png"``, ``"webp"``, ``"bmp"``, ``"tiff"``.

    >>> sniff_format(b"\\xff\\xd8\\xff\\xe0rest"), sniff_format(b"hello"), sniff_format(b"BM")
    ('jpeg', None, 'bmp')
    """
    head = bytes(data[:32])
    if head.startswith(b"\xff\xd8\xff"):
        return "jpeg"
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "png"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "webp"
    if head.startswith(b"BM") and (len(head) < 18 or _bmp_header_ok(head)):
        return "bmp"  # shorter: a truncated BMP, said so by its header check
    if head[:4] in (b"II*\x00", b"MM\x00*"):
        return "tiff"
    return None


#: BITMAPINFOHEADER sizes of the BMP versions (core, info, v2, v3, OS/2 2, v4, v5).
_BMP_DIB_SIZES = {12, 40, 52, 56, 64, 108, 124}


def _bmp_header_ok(head: bytes) -> bool:
    """Whether ``head`` (≥ 18 bytes, starting ``BM``) holds a BMP's DIB header size, one
    colour plane and a BMP bit depth; text that starts with "BM" does not."""
    (dib,) = struct.unpack("<I", head[14:18])
    if dib not in _BMP_DIB_SIZES:
        return False
    at = 22 if dib == 12 else 26  # planes, then bits per pixel
    if len(head) < at + 4:
        return True
    planes, bits = struct.unpack("<HH", head[at : at + 4])
    return planes == 1 and bits in (1, 2, 4, 8, 16, 24, 32, 64)


def _describe_unknown(data: bytes | memoryview) -> str:
    r"""Why ``data`` of no supported format is refused, naming the format when it is a
    known one.

    >>> _describe_unknown(b"P6\n640 480\n255\n" + bytes(64))
    'PPM (netpbm) files are not supported; send a JPEG, PNG, WebP, BMP or TIFF image'
    >>> _describe_unknown(b"\x00\x00\x00\x18ftypmsf1\x00\x00\x00\x00mif1heic")
    'HEIC files are not supported; send a JPEG, PNG, WebP, BMP or TIFF image'
    """
    head = bytes(data[:64])
    supported = "send a JPEG, PNG, WebP, BMP or TIFF image"
    for magic, offset, name in _UNSUPPORTED_MAGIC:
        if head[offset : offset + len(magic)] == magic:
            return f"{name} files are not supported; {supported}"
    if head[4:8] == b"ftyp":
        return f"{_iso_media_name(head)} files are not supported; {supported}"
    netpbm = _NETPBM.match(head)
    if netpbm is not None:
        return f"{_NETPBM_NAMES[netpbm.group(1)]} (netpbm) files are not supported; {supported}"
    if head.lstrip()[:1] in (b"<", b"{", b"["):
        return "not an image (looks like text/markup); send a JPEG, PNG, WebP, BMP or TIFF image"
    if all(32 <= c < 127 or c in b"\t\n\r" for c in bytes(data[:64])):
        return "not an image (looks like text); send a JPEG, PNG, WebP, BMP or TIFF image"
    return "not an image: unknown format (expected JPEG, PNG, WebP, BMP or TIFF)"


def _iso_media_name(head: bytes) -> str:
    """The format an ISO-BMFF file's ``ftyp`` box names (:data:`_ISO_BRANDS`); ``head``
    starts with the box."""
    (size,) = struct.unpack(">I", head[:4])
    end = min(len(head), size if size >= 16 else 16)
    brands = {head[8:12]} | {head[i : i + 4] for i in range(16, end - 3, 4)}
    for names, name in _ISO_BRANDS:
        if brands & names:
            return name
    brand = head[8:12].decode("latin-1").strip()
    return f"ISO media (MP4/MOV family, brand {brand!r})"


# --------------------------------------------------------------------------- header parsing
_JPEG_SOF = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}
_JPEG_PROGRESSIVE = {0xC2, 0xC6, 0xCA, 0xCE}
_JPEG_STANDALONE = {0x01, *range(0xD0, 0xD8)}
_JPEG_FILL = re.compile(rb"\xff+")
#: A marker code as libjpeg's ``next_marker`` finds one: the byte after an 0xFF that is
#: neither a stuffed 0x00 nor another fill byte 0xFF.
_JPEG_MARKER = re.compile(rb"\xff[^\x00\xff]")
#: A marker that has a length, or the end of image, as libjpeg finds it between scans:
#: SOFn/DHT/DAC (0xC0-0xCF), SOI, EOI, SOS, DQT, DNL, DRI, APPn, COM (0xD8-0xFE). Fill
#: bytes, a stuffed 0x00, RSTn, TEM and the reserved codes 0x02-0xBF are none (a reserved
#: code with a made-up length could otherwise hide the scans after it from the count,
#: which libjpeg still decodes; second review): the class leaves them out, crossed in C.
_JPEG_SEGMENT_MARKER = re.compile(rb"\xff([\xc0-\xcf\xd8-\xfe])")


def _next_jpeg_marker(data: bytes, pos: int) -> tuple[int, int] | None:
    """``(marker, offset after it)`` of the first marker at or after ``pos``, skipped to as
    libjpeg's ``next_marker`` does: bytes other than 0xFF (a warning "extraneous bytes
    before marker" there), fill bytes 0xFF and a stuffed 0xFF 0x00 are passed over — so
    the same walk also crosses entropy-coded data. All in C: a run of fill bytes by
    :data:`_JPEG_FILL`, stuffed pairs by :data:`_JPEG_MARKER` (a Python step per pair
    took 1.1 s for 10 MB of them between two header segments). ``None`` at the end of
    the data."""
    pos = data.find(b"\xff", pos)
    if pos < 0:
        return None
    fill = _JPEG_FILL.match(data, pos)  # the marker's own 0xFF, or a run of fill bytes
    pos = fill.end() if fill is not None else pos
    if pos < len(data) and data[pos] != 0x00:
        return data[pos], pos + 1
    found = _JPEG_MARKER.search(data, pos)  # past stuffed pairs and extraneous bytes
    if found is None:
        return None
    return data[found.end() - 1], found.end()


class _JpegFrame(NamedTuple):
    """What the header of a JPEG tells about how libjpeg will read its image data."""

    width: int
    height: int
    #: offset of the first scan's header (the byte after its SOS marker)
    scan_at: int
    #: offset of the byte after the first scan's header (where its entropy data starts)
    sos_end: int
    progressive: bool
    #: libjpeg reads the whole image in one scan, MCU by MCU, as it decodes ("single-scan
    #: mode"): an 8-bit Huffman-coded sequential frame (SOF0/SOF1) whose first scan holds
    #: every component. Progressive, arithmetic-coded, lossless and non-interleaved files
    #: are first read in full into a buffer of coefficients (multi-scan mode).
    single_scan: bool
    #: the frame's component ids, in SOF order
    components: tuple[int, ...]
    #: the SOFn marker code (0xC0 baseline, 0xC2 progressive, ...)
    sof: int
    #: MCUs in the first scan (its blocks, for one component; libjpeg's count)
    mcus: int
    #: MCUs between restart markers in the first scan (its DRI), 0 for none
    restart_interval: int
    #: each component's sampling factors ``(horizontal, vertical)``, in SOF order
    sampling: tuple[tuple[int, int], ...]
    #: bits per sample (the SOF's precision: 8, or 12 and 16 that the decoder refuses)
    bits: int = 8


def _jpeg_header(data: bytes) -> _JpegFrame:
    """The frame of a JPEG, from its SOF, DRI and first SOS markers (:class:`_JpegFrame`)."""
    n = len(data)
    pos = 2
    frame: tuple[int, int, int, int, bytes] | None = None  # w, h, SOFn, bits, components
    restart = 0
    segments = 0
    while pos < n:
        found = _next_jpeg_marker(data, pos)
        if found is None:
            break
        segments += 1
        if segments > MAX_JPEG_HEADER_SEGMENTS:
            raise ImageError(f"corrupt JPEG: more than {MAX_JPEG_HEADER_SEGMENTS} marker "
                             "segments before the image data")
        marker, pos = found
        if marker in _JPEG_STANDALONE:
            continue
        if marker == 0xD9:  # EOI before any scan
            break
        if pos + 2 > n:
            break
        (length,) = struct.unpack(">H", data[pos : pos + 2])
        if length < 2:
            raise ImageError("corrupt JPEG: bad segment length")
        if marker in _JPEG_SOF:
            if pos + 7 > n:
                break
            bits, height, width = struct.unpack(">BHH", data[pos + 2 : pos + 7])
            count = data[pos + 7] if pos + 7 < n else 0
            frame = (width, height, marker, bits, data[pos + 8 : pos + 8 + 3 * count])
        elif marker == 0xDD and pos + 4 <= n:  # DRI: the restart interval from here on
            (restart,) = struct.unpack(">H", data[pos + 2 : pos + 4])
        elif marker == 0xDA:  # start of scan: header ends here
            if frame is None:
                raise ImageError("corrupt JPEG: scan data before the frame header (no SOF)")
            return _jpeg_frame(data, pos, length, frame, restart)
        pos += length
    if frame is None:
        raise ImageError("truncated or corrupt JPEG: no frame header (SOF) found")
    raise ImageError("truncated JPEG: the file ends before the image data")


def _jpeg_frame(
    data: bytes, pos: int, length: int, frame: tuple[int, int, int, int, bytes], restart: int
) -> _JpegFrame:
    """:class:`_JpegFrame` of a JPEG whose first SOS header is at ``pos``, from its SOF
    fields (``frame``: width, height, SOFn, bits, component specs) and restart interval."""
    width, height, sof, bits, specs = frame
    ids = tuple(specs[::3])
    sampling = tuple((v >> 4, v & 0x0F) for v in specs[1::3])
    count = data[pos + 2] if pos + 2 < len(data) else 0
    in_scan = tuple(data[pos + 3 : pos + 3 + 2 * count : 2])
    single = (sof in (0xC0, 0xC1) and bits == 8 and len(specs) == 3 * len(ids) > 0
              and count == len(ids) and set(in_scan) == set(ids))  # fmt: skip
    mcus = _scan_mcus(width, height, ids, sampling, in_scan)
    return _JpegFrame(width, height, pos, pos + length, sof in _JPEG_PROGRESSIVE, single,
                      ids, sof, mcus, restart, sampling, bits)  # fmt: skip


def _scan_mcus(
    width: int,
    height: int,
    ids: tuple[int, ...],
    sampling: tuple[tuple[int, int], ...],
    in_scan: tuple[int, ...],
) -> int:
    """MCUs in a scan of the components ``in_scan`` of a ``width`` × ``height`` frame
    whose components ``ids`` have ``sampling`` factors, as libjpeg counts them: a scan of
    one component has one of its blocks per MCU (``⌈width · h / (8 · h_max)⌉`` by
    ``⌈height · v / (8 · v_max)⌉``), an interleaved scan ``⌈width / (8 · h_max)⌉`` by
    ``⌈height / (8 · v_max)⌉``. 0 for a component the frame does not have."""
    h_max = max([h for h, _ in sampling] + [1])
    v_max = max([v for _, v in sampling] + [1])
    if len(in_scan) != 1:
        return -(-width // (8 * h_max)) * -(-height // (8 * v_max))
    if in_scan[0] not in ids or len(sampling) != len(ids):
        return 0
    h, v = sampling[ids.index(in_scan[0])]
    return -(-width * h // (8 * h_max)) * -(-height * v // (8 * v_max))


def _jpeg_scan_count(data: bytes, sos_end: int, stop: int) -> int:
    """Scans libjpeg reads from a JPEG whose first scan header ends at ``sos_end``,
    counted up to ``stop + 1`` (enough to tell "over ``stop``").

    An SOS marker is the two bytes 0xFF 0xDA, which entropy-coded data never holds (it
    stuffs each 0xFF with 0x00, or follows it with an RSTn marker), so counting those
    pairs bounds the scans from above in C time (``bytes.count``: no copy of the file);
    only a file over ``stop`` by that bound is walked marker by marker, as libjpeg reads
    it (segments skipped by their length, so an 0xFF 0xDA inside a comment between scans
    does not count; the walk ends at the end-of-image marker)."""
    bound = 1 + data.count(b"\xff\xda", sos_end)  # no pair overlaps another
    if bound <= stop:
        return bound
    scans, pos, n = 1, sos_end, len(data)
    while scans <= stop:
        # the next marker with a length (or the end of image), found in C: fill bytes,
        # stuffed 0xFF 0x00 and standalone markers (RSTn, TEM) are passed over as
        # _next_jpeg_marker passes them — a byte loop took seconds on a crafted 15 MB file
        found = _JPEG_SEGMENT_MARKER.search(data, pos)
        if found is None or found.group(1) == b"\xd9":  # end of data, end of image
            break
        pos = found.end()
        if pos + 2 > n:
            break
        scans += found.group(1) == b"\xda"
        pos += max(2, struct.unpack(">H", data[pos : pos + 2])[0])
    return scans


def _png_size(data: bytes | memoryview) -> tuple[int, int]:
    if len(data) < 24 or bytes(data[12:16]) != b"IHDR":
        raise ImageError("truncated or corrupt PNG: no IHDR header")
    width, height = struct.unpack(">II", data[16:24])
    return int(width), int(height)


def _webp_size(data: bytes | memoryview) -> tuple[int, int]:
    if len(data) < 30:
        raise ImageError("truncated WebP: header too short")
    chunk = bytes(data[12:16])
    if chunk == b"VP8X":
        w = int.from_bytes(data[24:27], "little") + 1
        h = int.from_bytes(data[27:30], "little") + 1
        return w, h
    if chunk == b"VP8L":
        if data[20] != 0x2F:
            raise ImageError("corrupt WebP: bad VP8L signature")
        bits = int.from_bytes(data[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8 ":
        if bytes(data[23:26]) != b"\x9d\x01\x2a":
            raise ImageError("corrupt WebP: bad VP8 start code")
        w, h = struct.unpack("<HH", data[26:30])
        return w & 0x3FFF, h & 0x3FFF
    raise ImageError(f"corrupt WebP: unknown chunk {chunk!r}")


def _bmp_size(data: bytes | memoryview) -> tuple[int, int]:
    if len(data) < 26:
        raise ImageError("truncated BMP: header too short")
    (dib,) = struct.unpack("<I", data[14:18])
    if dib == 12:  # BITMAPCOREHEADER
        w, h = struct.unpack("<HH", data[18:22])
        return int(w), int(h)
    w, h = struct.unpack("<ii", data[18:26])
    return abs(int(w)), abs(int(h))


_TIFF_SIZE_TAGS = {256: "ImageWidth", 257: "ImageLength"}
_TIFF_SHORT, _TIFF_LONG = 3, 4


def _tiff_entries(data: bytes | memoryview) -> tuple[str, list[tuple[int, int, int, int]]]:
    """Byte order (``"<"``/``">"``) and the first IFD's entries as
    ``(tag, type, count, entry offset)``."""
    order = "<" if bytes(data[:2]) == b"II" else ">"
    if len(data) < 8:
        raise ImageError("truncated TIFF: header too short")
    (ifd,) = struct.unpack(order + "I", data[4:8])
    if ifd + 2 > len(data):
        raise ImageError("truncated TIFF: first IFD is missing")
    (count,) = struct.unpack(order + "H", data[ifd : ifd + 2])
    entries = []
    for i in range(count):
        entry = ifd + 2 + 12 * i
        if entry + 12 > len(data):
            raise ImageError("truncated TIFF: IFD entries are missing")
        tag, typ, n = struct.unpack(order + "HHI", data[entry : entry + 8])
        entries.append((int(tag), int(typ), int(n), entry))
    return order, entries


def _tiff_size(data: bytes | memoryview) -> tuple[int, int]:
    """ImageWidth × ImageLength of the first IFD, read as libtiff reads them.

    Only one SHORT or LONG value per tag is taken: a repeated tag (libtiff keeps the
    first, this check kept the last) or another type (a LONG8's value field is an offset)
    would let the check read another size than the decoder allocates, so both are refused.
    """
    order, entries = _tiff_entries(data)
    dims: dict[int, int] = {}
    for tag, typ, n, entry in entries:
        if tag not in _TIFF_SIZE_TAGS:
            continue
        name = _TIFF_SIZE_TAGS[tag]
        if tag in dims:
            raise ImageError(f"corrupt TIFF: the {name} tag appears twice in the first IFD")
        if typ not in (_TIFF_SHORT, _TIFF_LONG) or n != 1:
            raise ImageError(
                f"unsupported TIFF: {name} is {n} value(s) of field type {typ}; "
                "expected one SHORT (3) or LONG (4)"
            )
        fmt = "H" if typ == _TIFF_SHORT else "I"
        (value,) = struct.unpack(order + fmt, data[entry + 8 : entry + 8 + struct.calcsize(fmt)])
        dims[tag] = int(value)
    if 256 not in dims or 257 not in dims:
        raise ImageError("corrupt TIFF: no ImageWidth/ImageLength tags")
    return dims[256], dims[257]


def _tiff_shorts(data: bytes, tag: int) -> list[int]:
    """The SHORT values of ``tag`` in the first IFD (empty when absent or unreadable)."""
    try:
        order, entries = _tiff_entries(data)
    except ImageError:
        return []
    for t, typ, n, entry in entries:
        if t != tag or typ != _TIFF_SHORT or not 0 < n <= 16:
            continue
        if n <= 2:
            at = entry + 8
        else:
            (at,) = struct.unpack(order + "I", data[entry + 8 : entry + 12])
        if at + 2 * n > len(data):
            return []
        return list(struct.unpack(order + "H" * n, data[at : at + 2 * n]))
    return []


def image_size_from_header(data: bytes | memoryview) -> tuple[str, int, int]:
    """``(format, width, height)`` read from the encoded header, without decoding pixels.

    Raises :class:`ImageError` if the data is not a supported image or the header is broken.

    >>> png = b"\\x89PNG\\r\\n\\x1a\\n" + b"\\0\\0\\0\\rIHDR" + (640).to_bytes(4, "big") \\
    ...     + (480).to_bytes(4, "big")
    >>> image_size_from_header(png)
    ('png', 640, 480)
    """
    fmt = sniff_format(data)
    if fmt is None:
        raise ImageError(_describe_unknown(data))
    if fmt == "jpeg":
        w, h = _jpeg_header(data if isinstance(data, bytes) else bytes(data))[:2]
    elif fmt == "png":
        w, h = _png_size(data)
    elif fmt == "webp":
        w, h = _webp_size(data)
    elif fmt == "bmp":
        w, h = _bmp_size(data)
    else:
        w, h = _tiff_size(data)
    return fmt, w, h


# --------------------------------------------------------------------------- checks
def _check_pixels(width: int, height: int, max_pixels: int, what: str) -> None:
    if width <= 0 or height <= 0:
        raise ImageError(f"{what} has zero size ({width}×{height} pixels)")
    if width * height > max_pixels:
        mp = width * height / 1e6
        raise ImageError(
            f"{what} is too large: {width}×{height} = {mp:.1f} megapixels "
            f"(limit {max_pixels / 1e6:g} megapixels); resize it first"
        )


def decoder_max_side(fmt: str) -> int:
    """The longest side, in pixels, that the decoder of ``fmt`` takes.

    >>> decoder_max_side("png"), decoder_max_side("tiff")
    (1000000, 1048576)
    """
    return _MAX_SIDE.get(fmt, _OPENCV_MAX_SIDE)


def _check_decoder_limits(fmt: str, width: int, height: int) -> None:
    side = decoder_max_side(fmt)
    if max(width, height) > side:
        raise ImageError(
            f"{fmt.upper()} image is {width}×{height} pixels: a side over {side:,} pixels "
            f"is more than the {fmt.upper()} decoder takes; resize it first"
        )


def _check_bytes(n: int, max_bytes: int) -> None:
    if n == 0:
        raise ImageError("empty image: 0 bytes")
    if n > max_bytes:
        raise ImageError(
            f"image file too large: {n / 2**20:.1f} MiB (limit {max_bytes / 2**20:g} MiB)"
        )


def _encoded_array(arr: npt.NDArray[np.generic], max_bytes: int) -> bytes | None:
    """The bytes of an encoded image held in a uint8 array — ``(N,)``, ``(N, 1)`` (what
    ``cv2.imencode`` returns) or ``(1, N)`` — whose start is a supported format's magic
    number and a readable header; ``None`` for an array of pixels."""
    if arr.dtype != np.uint8 or arr.ndim not in (1, 2) or (arr.ndim == 2 and 1 not in arr.shape):
        return None
    flat = arr.reshape(-1)
    if sniff_format(flat[:32].tobytes()) is None:
        return None  # (a grey column starting with a whole magic number is not expected)
    _check_bytes(flat.size, max_bytes)
    return flat.tobytes()


def _from_array(arr: npt.NDArray[np.generic], max_pixels: int) -> npt.NDArray[np.uint8]:
    if arr.ndim == 1:
        raise ImageError(
            f"image array must have shape (H, W), (H, W, 1), (H, W, 3) or (H, W, 4); got "
            f"{arr.shape}, which is not an image's encoded bytes either; pass the bytes of "
            "a JPEG, PNG, WebP, BMP or TIFF file as bytes (arr.tobytes())"
        )
    if arr.ndim not in (2, 3) or (arr.ndim == 3 and arr.shape[2] not in (1, 3, 4)):
        raise ImageError(
            f"image array must have shape (H, W), (H, W, 1), (H, W, 3) or (H, W, 4); "
            f"got {arr.shape}"
        )
    _check_pixels(int(arr.shape[1]), int(arr.shape[0]), max_pixels, "image array")
    unsigned = arr.dtype.kind == "u"  # either byte order
    if unsigned and arr.dtype.itemsize == 1:
        img = np.asarray(arr, np.uint8)
    elif unsigned and arr.dtype.itemsize == 2:
        wide = np.asarray(arr, np.uint16)  # native byte order
        img = (wide >> (uint16_bits(wide) - 8)).astype(np.uint8)
    elif arr.dtype == np.bool_:
        img = arr.astype(np.uint8) * 255
    else:
        raise ImageError(f"image array must be uint8 (or uint16 or bool), got dtype "
                         f"{arr.dtype}")
    if img.ndim == 2 or img.shape[2] == 1:
        return np.asarray(cv2.cvtColor(img.reshape(img.shape[:2]), cv2.COLOR_GRAY2BGR), np.uint8)
    if img.shape[2] == 4:
        return np.asarray(cv2.cvtColor(img, cv2.COLOR_BGRA2BGR), np.uint8)
    return np.ascontiguousarray(img)


#: Bit depths a uint16 array of pixels is read as (:func:`uint16_bits`).
UINT16_DEPTHS = (8, 10, 12, 14, 16)


def uint16_bits(pixels: npt.NDArray[np.uint16]) -> int:
    """The bit depth a uint16 array of pixels is taken to have: the smallest of
    :data:`UINT16_DEPTHS` that holds its largest value. A 16-bit image is full range
    (0..65535) and a camera's 10-, 12- or 14-bit data is stored in uint16 as 0..1023,
    0..4095 or 0..16383: shifted down by 8 bits, 12-bit data would come out 16 times too
    dark (its white at grey level 15). An array whose brightest pixel leaves the top two
    bits unused is taken as the smaller depth, so a full-range image that dark comes out
    brighter (by a power of two, nothing clipped) than a plain ``>> 8``.

    >>> [uint16_bits(np.array([v], np.uint16)) for v in (0, 255, 1023, 4095, 4096, 65535)]
    [8, 8, 10, 12, 14, 16]
    """
    peak = int(pixels.max()) if pixels.size else 0
    return next(b for b in UINT16_DEPTHS if peak < 1 << b)


#: A path that is a URL (``http://``, ``https://``, ``ftp://``, ``file://``, ``s3://``,
#: ``gs://``, ``data:``; one slash is enough, as ``Path`` turns ``//`` into ``/``) and names
#: no file: :func:`load_image` reads local files only.
_URL = re.compile(r"(?:https?|ftps?|sftp|file|s3|gs):/|data:", re.IGNORECASE)


def _checked_path(src: str | os.PathLike[str]) -> tuple[Path, str]:
    """``src`` as a :class:`Path` and the text to name it by (as given: ``Path`` drops a
    doubled slash); an empty path, one that holds a NUL byte and a URL are refused."""
    text = os.fsdecode(src)
    if text == "":
        raise ImageError("empty path: give the path of an image file")
    if "\0" in text:
        raise ImageError(f"image path {text!r} holds a NUL byte: no file has that name")
    if _URL.match(text) and not os.path.lexists(text):
        raise ImageError(f"{text} is a URL: download it first (images are read from "
                         "files, bytes or arrays; nothing is fetched)")
    return Path(text), text


def _read_file(path: Path, max_bytes: int, name: str | None = None) -> bytes:
    """The file's bytes, at most ``max_bytes``. A regular file's size is checked before
    reading; a pipe, ``/dev/stdin`` or a ``/proc`` file (whose size says 0) is read up to
    ``max_bytes`` + 1 bytes and judged on what came. Messages name the file ``name`` (the
    path as given), else ``path``."""
    shown = str(path) if name is None else name
    try:
        st = path.stat()
    except FileNotFoundError:
        raise ImageError(f"no such image file: {shown}") from None
    except (OSError, ValueError) as exc:  # ValueError: a name the OS cannot take
        raise ImageError(f"cannot read image file {shown}: "
                         f"{getattr(exc, 'strerror', None) or exc}") from None
    if stat.S_ISDIR(st.st_mode):
        raise ImageError(f"{shown} is a directory, not an image file")
    regular = stat.S_ISREG(st.st_mode)
    if regular:
        if st.st_size == 0:
            raise ImageError(f"empty image file: {shown} (0 bytes)")
        _check_bytes(st.st_size, max_bytes)
    try:
        with path.open("rb") as f:
            data = f.read(max_bytes + 1)
    except OSError as exc:
        raise ImageError(f"cannot read image file {shown}: {exc.strerror or exc}") from None
    if not data:
        raise ImageError(f"empty image: nothing could be read from {shown} (not a regular "
                         "file: a pipe or device that gave 0 bytes)")
    _check_bytes(len(data), max_bytes)
    return data


# --------------------------------------------------------------------------- public API
def _encoded(src: ImageSource, max_bytes: int) -> bytes:
    if isinstance(src, (bytes, bytearray, memoryview)):
        data = bytes(src) if not isinstance(src, bytes) else src
        _check_bytes(len(data), max_bytes)
        return data
    if isinstance(src, (str, os.PathLike)):
        path, name = _checked_path(src)
        return _read_file(path, max_bytes, name)
    raise ImageError(
        f"cannot load an image from {type(src).__name__}; give a path, bytes or a numpy array"
    )


def check_decodable(data: bytes) -> tuple[str, int, int]:
    """``(format, width, height)`` of encoded ``data`` once what its header passes but the
    decoder should not be given is refused, with an :class:`ImageError` naming it: a side
    over the decoder's limit (:func:`decoder_max_side`), more pixels than OpenCV decodes
    (:data:`MAX_DECODABLE_PIXELS`), a JPEG without its end-of-image marker, a progressive
    JPEG of more than :data:`MAX_JPEG_SCANS` scans. The ``max_pixels`` limit is the
    caller's (:func:`load_image` checks it first). A JPEG cut short that still ends with
    its end marker is found only when it is decoded (:func:`load_image`)."""
    header = _header(data)
    _check_decodable(data, header)
    return header.fmt, header.width, header.height


class _Header(NamedTuple):
    """An image's format and size from its header, and a JPEG's frame."""

    fmt: str
    width: int
    height: int
    #: a JPEG's frame (read once per load: its header walk is a loop in Python)
    jpeg: _JpegFrame | None


def _header(data: bytes) -> _Header:
    """:func:`image_size_from_header`, with a JPEG's :class:`_JpegFrame`."""
    if sniff_format(data) == "jpeg":
        frame = _jpeg_header(data)
        return _Header("jpeg", frame.width, frame.height, frame)
    return _Header(*image_size_from_header(data), None)


def _check_decodable(data: bytes, header: _Header) -> None:
    """:func:`check_decodable`'s checks, on ``data`` whose header is read."""
    fmt, width, height, frame = header
    _check_pixels(width, height, MAX_DECODABLE_PIXELS, f"{fmt.upper()} image")
    _check_decoder_limits(fmt, width, height)
    if frame is not None:
        sos, progressive = frame.sos_end, frame.progressive
        if data.rfind(b"\xff\xd9", sos) < 0:  # from the end, where it lies: fast
            raise ImageError("truncated JPEG: the end-of-image marker is missing")
        if progressive:
            scans = _jpeg_scan_count(data, sos, MAX_JPEG_SCANS)
            if scans > MAX_JPEG_SCANS:
                raise ImageError(
                    f"progressive JPEG has more than {MAX_JPEG_SCANS} scans (an encoder "
                    "writes about 10): refused, as decoding each scan costs a pass over the "
                    "whole image; save it again as a normal JPEG"
                )


def _checked_header(data: bytes, max_pixels: int) -> _Header:
    """The header of ``data`` once ``max_pixels`` and :func:`check_decodable` pass it."""
    header = _header(data)
    _check_pixels(header.width, header.height, max_pixels, f"{header.fmt.upper()} image")
    _check_decodable(data, header)
    return header


def _why_undecodable(data: bytes, fmt: str) -> str:
    """What the decoder refused, as far as the header tells: for a TIFF its sample format
    or depth (OpenCV reads 8- and 16-bit integer samples), else corruption."""
    if fmt == "tiff":
        sample_format = _tiff_shorts(data, 339)  # 1 uint, 2 int, 3 IEEE float
        bits = _tiff_shorts(data, 258)
        if any(v == 3 for v in sample_format):
            depth = f"{max(bits)}-bit " if bits else ""
            return (f"unsupported TIFF image: its {depth}floating-point samples cannot be "
                    "decoded; save it with 8- or 16-bit integer samples")
        if any(v > 16 for v in bits):
            return (f"unsupported TIFF image: {max(bits)}-bit samples cannot be decoded; "
                    "save it with 8- or 16-bit samples")
        return ("TIFF image could not be decoded: it is corrupt or truncated, or uses a "
                "compression or sample layout the decoder does not support")
    return f"corrupt or truncated {fmt.upper()} image: it could not be decoded"


def _imdecode(data: bytes | npt.NDArray[np.uint8], flag: int) -> npt.NDArray[np.uint8] | None:
    """OpenCV's decode of ``data``, or ``None`` where it gives none."""
    buf = np.frombuffer(data, np.uint8) if isinstance(data, bytes) else data
    decoded = cv2.imdecode(buf, flag)
    if decoded is None or decoded.size == 0:
        return None
    return np.asarray(decoded, np.uint8)


def _decode(data: bytes, header: _Header, flag: int) -> npt.NDArray[np.uint8]:
    frame = header.jpeg
    decoded = _imdecode(data, flag) if frame is None else _decode_jpeg(data, frame, flag)
    if decoded is None:
        why = _why_jpeg_undecodable(frame) if frame is not None else None
        raise ImageError(why or _why_undecodable(data, header.fmt))
    return decoded


def _why_jpeg_undecodable(frame: _JpegFrame) -> str | None:
    """What the decoder cannot read in a JPEG whose header parsed, as far as the frame
    header tells: samples of more than 8 bits (OpenCV's libjpeg reads 8-bit JPEGs only);
    None where it tells nothing (then the data is corrupt — an 8-bit lossless file among
    them: this decoder reads some of those)."""
    if frame.bits != 8:
        return (f"unsupported JPEG image: it has {frame.bits}-bit samples and only 8-bit "
                "JPEGs can be decoded; save it as an 8-bit JPEG or a PNG")
    return None


# --------------------------------------------------------------------------- JPEG cut short
#: What a JPEG whose entropy-coded data stops before its last block is refused with, the
#: end-of-image marker there or not (libjpeg fills what it never got with flat grey).
_JPEG_CUT_SHORT = (
    "truncated JPEG: its image data stops before the end of the picture (the file was "
    "cut short, or part of it is missing, even though it ends with an end-of-image "
    "marker); the decoder would fill the rest with grey. Send the whole file again"
)
#: Zero bytes that stand in for the end-of-image marker of a single-scan JPEG while it is
#: decoded (:func:`_decode_jpeg`). libjpeg's Huffman decoder reads at most 8 bytes ahead
#: of the bits it decodes (it fills its 64-bit bit buffer to 57 bits; 25 of 32 in IJG's
#: libjpeg; measured: 0-7 bytes on 300 photos), so a whole scan is decoded without using
#: them; four times that many leave a margin. Data short by less than the padding decodes
#: (zero bits fill its last blocks, as libjpeg's own fill would): a loss of more than
#: about 32 bytes is refused.
_JPEG_PAD_BYTES = 32
#: Bytes that stand in for the lost data of a progressive JPEG's last scan while one
#: whose scans leave a component's AC coefficients out is checked (:func:`_decode_jpeg`):
#: a fixed pseudo-random run without 0xFF (no marker, no stuffing), which decodes to
#: coefficients where zero fill leaves none.
_JPEG_SENTINEL = np.random.default_rng(20_251_206).integers(0, 0xFF, 512, np.uint8).tobytes()
#: What a JPEG whose scans leave part of the picture unsent is refused with (``{gap}``
#: says which part): the scans after a cut are lost with it, the end marker put back or
#: not, and libjpeg decodes what came without a word.
_JPEG_SCANS_STOP_EARLY = (
    "truncated JPEG: its scans stop before the picture is complete: {gap} (the file was "
    "cut short between two scans, or part of it is missing, even though it ends with an "
    "end-of-image marker); the decoder would leave that detail out. Send the whole file "
    "again (a file saved with a progression that stops early on purpose is refused too: "
    "save it again as a normal JPEG)"
)
#: The SOFn codes of lossless JPEGs, whose scans carry samples, not DCT coefficients.
_JPEG_LOSSLESS = {0xC3, 0xC7, 0xCB, 0xCF}
#: The SOFn codes of arithmetic-coded JPEGs. Their encoder drops the zero bytes that end a
#: scan (T.81 D.1.8; libjpeg's "Pacman" termination) and the decoder reads zeros in their
#: place at the next marker, so bytes put before the end marker are read as the last
#: scan's own: :data:`_JPEG_SENTINEL` cannot tell a whole scan from a cut one there.
_JPEG_ARITHMETIC = {0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}
#: Bits of a DCT coefficient that a progressive scan can send: ``Ah`` and ``Al`` run
#: 0-13 (ITU-T T.81 G.1.1.1.2; libjpeg takes no more); a first scan (``Ah`` = 0) sends
#: every bit from ``Al`` up, a refinement scan the one bit ``Al`` = ``Ah`` - 1.
_JPEG_BIT_PLANES = 14
#: All 64 coefficients of a block, as a mask (bit k for zig-zag index k).
_ALL_COEFFICIENTS = (1 << 64) - 1


def _jpeg_data_end(data: bytes, start: int) -> int:
    """Offset where the data before the file's last end-of-image marker ends: that marker,
    less the fill bytes 0xFF before it (a cut can leave half a stuffed 0xFF 0x00 there)."""
    end = data.rfind(b"\xff\xd9", start)
    return _before_fill(data, start, len(data) if end < 0 else end)


def _before_fill(data: bytes, start: int, end: int) -> int:
    """``end`` less the run of fill bytes 0xFF just before it (none before ``start``),
    stripped 4 KB at a time in C: a crafted run of megabytes costs milliseconds."""
    while end > start:
        chunk = data[max(start, end - 4096) : end]
        kept = len(chunk.rstrip(b"\xff"))
        end -= len(chunk) - kept
        if kept:
            break
    return end


class _JpegScan(NamedTuple):
    """One scan of a JPEG: the fields of its header and where its entropy-coded data lies."""

    #: the ids of the components it codes, as its header lists them
    components: tuple[int, ...]
    #: ``Ss``: the first coefficient of its band (zig-zag index 0-63)
    first: int
    #: ``Se``: the last coefficient of its band
    last: int
    #: ``Ah``: the bit the band's previous scan stopped at (0 for a first scan)
    high: int
    #: ``Al``: the lowest bit it sends
    low: int
    #: offset of its entropy-coded data (after its header)
    data_at: int
    #: offset of the marker that ends its data (or of the end of the file)
    data_end: int
    #: MCUs between its restart markers (the DRI in force), 0 for none
    restart_interval: int


def _jpeg_scans(data: bytes, frame: _JpegFrame) -> list[_JpegScan] | None:
    """The scans libjpeg reads from a JPEG whose first scan header is at ``frame.scan_at``,
    up to its first end-of-image marker (or the end of the data): at most
    :data:`MAX_JPEG_SCANS` + 1 of them (:func:`check_decodable` refused more).

    Walked marker to marker as libjpeg reads them: a scan's data ends at the next marker
    with a length or the end of image (entropy-coded data holds neither: each 0xFF in it
    is stuffed with 0x00 or starts an RSTn marker), found in C by
    :data:`_JPEG_SEGMENT_MARKER`; the segments between scans are skipped by their length,
    and a DRI among them sets the restart interval of the scans after it. ``None`` where
    more than :data:`MAX_JPEG_HEADER_SEGMENTS` segments lie between the scans (each is a
    step in Python; an encoder writes one or two, the Huffman tables of the next scan)."""
    scans: list[_JpegScan] = []
    header: int | None = frame.scan_at
    restart, segments = frame.restart_interval, 0
    while header is not None and len(scans) <= MAX_JPEG_SCANS:
        scan = _jpeg_scan_at(data, header, restart)
        if scan is None:  # a header cut short
            break
        scans.append(scan)
        budget = MAX_JPEG_HEADER_SEGMENTS - segments
        header, restart, walked = _next_jpeg_scan(data, scan.data_end, restart, budget)
        segments += walked
        if segments > MAX_JPEG_HEADER_SEGMENTS:
            return None
    return scans


def _jpeg_scan_at(data: bytes, at: int, restart: int) -> _JpegScan | None:
    """The scan whose header (after its SOS marker: length, components, Ss, Se, Ah/Al)
    is at ``at``, under the restart interval ``restart``; ``None`` for a header cut
    short."""
    n = len(data)
    count = data[at + 2] if at + 2 < n else 0
    fields = data[at + 3 + 2 * count : at + 6 + 2 * count]
    if len(fields) < 3:
        return None
    (length,) = struct.unpack(">H", data[at : at + 2])
    first, last, approx = fields
    data_at = min(n, at + max(2, length))
    found = _JPEG_SEGMENT_MARKER.search(data, data_at)
    return _JpegScan(tuple(data[at + 3 : at + 3 + 2 * count : 2]), first, last, approx >> 4,
                     approx & 0x0F, data_at, n if found is None else found.start(),
                     restart)  # fmt: skip


def _next_jpeg_scan(
    data: bytes, pos: int, restart: int, budget: int
) -> tuple[int | None, int, int]:
    """From the marker at ``pos`` that ends a scan's data: the offset of the next scan's
    header (``None`` at the end of image or of the data), the restart interval in force
    there, and how many segments lie between — walked no further than ``budget`` + 1
    segments (then the header is ``None``)."""
    n, segments = len(data), 0
    found = _JPEG_SEGMENT_MARKER.search(data, pos)
    while found is not None and found.group(1) != b"\xd9" and segments <= budget:
        at = found.end()
        if at + 2 > n:
            break
        if found.group(1) == b"\xda":
            return at, restart, segments
        segments += 1
        if found.group(1) == b"\xdd" and at + 4 <= n:  # DRI
            (restart,) = struct.unpack(">H", data[at + 2 : at + 4])
        (length,) = struct.unpack(">H", data[at : at + 2])
        found = _JPEG_SEGMENT_MARKER.search(data, at + max(2, length))
    return None, restart, segments


def _scan_sends(frame: _JpegFrame, scan: _JpegScan) -> tuple[int, range] | None:
    """The coefficients (a mask, bit k for zig-zag index k) and the bits of them that
    ``scan`` sends of each of its components; ``None`` for a scan libjpeg refuses (a DC
    band with AC coefficients, an interleaved AC scan, a refinement of more than one
    bit: T.81 G.1.1.1). A sequential frame's scan sends every bit of every coefficient
    (libjpeg reads it so whatever its Ss, Se, Ah and Al say)."""
    if not frame.progressive:
        return _ALL_COEFFICIENTS, range(_JPEG_BIT_PLANES)
    first, last, high, low = scan.first, scan.last, scan.high, scan.low
    if (first > last or last > 63 or (first == 0) != (last == 0)
            or (first > 0 and len(scan.components) != 1) or low >= _JPEG_BIT_PLANES
            or (high > 0 and low != high - 1)):  # fmt: skip
        return None
    band = (1 << (last + 1)) - (1 << first)
    return band, range(low, _JPEG_BIT_PLANES if high == 0 else low + 1)


def _unsent_part(frame: _JpegFrame, scans: list[_JpegScan]) -> tuple[str | None, bool]:
    """What of the picture ``scans`` leave unsent, in words (``None`` for nothing), and
    whether a component was set aside for getting its DC coefficient alone.

    The scan script of every encoder tried sends each coefficient of each component down
    to its last bit (libjpeg's progression, which PIL, OpenCV, cjpeg and jpegtran write;
    mozjpeg's; tests/vision/test_imageio_progressive.py names them). T.81 does not
    require it (libjpeg's encoder only checks that each component's DC is sent), but a
    decoder cannot tell a script that stops early from a file cut between two scans, so
    one that leaves bits unsent is refused — all but a component that gets its whole DC
    coefficient and no AC coefficient at all while another component gets AC
    coefficients (a flat colour plane sent as such), which is set aside."""
    if frame.sof in _JPEG_LOSSLESS:
        return None, False
    planes = {c: [0] * _JPEG_BIT_PLANES for c in frame.components}
    for scan in scans:
        sends = _scan_sends(frame, scan)
        if sends is None:
            continue
        band, bits = sends
        for c in set(scan.components) & planes.keys():
            for bit in bits:
                planes[c][bit] |= band
    whole = {c: functools.reduce(operator.and_, p) for c, p in planes.items()}
    some = {c: functools.reduce(operator.or_, p) for c, p in planes.items()}
    any_ac = any(bits & ~1 for bits in some.values())
    set_aside = False
    for i, c in enumerate(frame.components, 1):
        if whole[c] == _ALL_COEFFICIENTS:
            continue
        if any_ac and whole[c] == some[c] == 1:  # its whole DC coefficient, no AC
            set_aside = True
            continue
        where = f"component {i} of {len(frame.components)}"
        never = _ALL_COEFFICIENTS & ~some[c]
        if never:
            return f"coefficients {_zigzag_ranges(never)} of {where} are never sent", set_aside
        coarse = _zigzag_ranges(_ALL_COEFFICIENTS & ~whole[c])
        return f"coefficients {coarse} of {where} are sent without all their bits", set_aside
    return None, set_aside


def _zigzag_ranges(mask: int) -> str:
    """The zig-zag indices set in ``mask`` as ranges: ``"1-5, 9, 12-63"``."""
    ranges: list[str] = []
    k = 0
    while k < 64:
        if not mask >> k & 1:
            k += 1
            continue
        start = k
        while k < 64 and mask >> k & 1:
            k += 1
        ranges.append(str(start) if k - 1 == start else f"{start}-{k - 1}")
    return ", ".join(ranges)


def _restart_markers(data: bytes, start: int, end: int) -> int:
    """RSTn markers (the pairs 0xFF 0xD0-0xD7, which entropy-coded data holds nowhere
    else) in ``data[start:end]``, counted in C by numpy; a fill byte 0xFF before one is
    not counted twice. About 1 ms a 3 MB scan."""
    if end - start < 2:
        return 0
    seg = np.frombuffer(data, np.uint8, end - start, start)
    after_ff = seg[1:][seg[:-1] == 0xFF]
    return int(np.count_nonzero((after_ff & 0xF8) == 0xD0))


def _restart_shortfall(data: bytes, mcus: int, interval: int, start: int,
                       end: int) -> tuple[int, int] | None:
    """``(found, needed)`` when the entropy-coded data ``data[start:end]`` of ``mcus``
    MCUs, a restart marker after every ``interval`` of them but the last, holds fewer
    markers than that needs (:func:`_restart_markers`); None when it holds enough."""
    need = -(-mcus // interval) - 1
    found = _restart_markers(data, start, end)
    return (found, need) if found < need else None


def _check_restart_markers(data: bytes, frame: _JpegFrame, end: int) -> None:
    """Refuse a single-scan JPEG with restart markers (a DRI) that holds fewer of them
    between its first scan header and ``end`` than its blocks need: an encoder writes one
    after every ``restart_interval`` MCUs but the last (one more is let through), so one
    missing means the data of a whole interval or more is lost — libjpeg resynchronises at
    the next marker and leaves the lost MCUs grey (:func:`_restart_markers`: about 1 ms
    for a 12 MP photo)."""
    if not frame.restart_interval or end <= frame.sos_end:
        return
    short = _restart_shortfall(data, frame.mcus, frame.restart_interval, frame.sos_end, end)
    if short is not None:
        found, need = short
        raise ImageError(
            f"truncated JPEG: part of its image data is missing: it holds {found} of the "
            f"{need} restart markers its picture needs (the file was cut short, or a part "
            "of it was lost); the decoder would fill the lost parts with grey. Send the "
            "whole file again"
        )


def _check_scan_restart_markers(data: bytes, frame: _JpegFrame, scans: list[_JpegScan]) -> None:
    """Refuse a multi-scan JPEG one of whose scans with restart markers holds fewer of
    them than its MCUs need (:func:`_check_restart_markers`, scan by scan: the interval
    is the DRI in force, an MCU one block of a scan of one component): the one check that
    finds a cut inside a progressive JPEG's last scan without decoding it."""
    for number, scan in enumerate(scans, 1):
        if not scan.restart_interval:
            continue
        mcus = _scan_mcus(frame.width, frame.height, frame.components, frame.sampling,
                          scan.components)  # fmt: skip
        short = _restart_shortfall(data, mcus, scan.restart_interval, scan.data_at,
                                   scan.data_end)
        if short is not None:
            found, need = short
            raise ImageError(
                f"truncated JPEG: part of its image data is missing: its scan {number} of "
                f"{len(scans)} holds {found} of the {need} restart markers it needs (the "
                "file was cut short, or a part of it was lost); the decoder would leave "
                "the rest of that scan out. Send the whole file again"
            )


def _check_jpeg_scans(data: bytes, frame: _JpegFrame) -> int | None:
    """Refuse a multi-scan JPEG whose scans leave part of the picture unsent
    (:func:`_unsent_part`) or lack restart markers (:func:`_check_scan_restart_markers`).
    Returns where its last scan's data ends (before any fill bytes) when a component was
    set aside for getting its DC coefficient alone — a cut inside the scans of another
    component then leaves no gap — else ``None``; ``None`` too for a walk cut off by
    :func:`_jpeg_scans`. About 1 ms for a 12 MP photo."""
    scans = _jpeg_scans(data, frame)
    if not scans:
        return None
    gap, set_aside = _unsent_part(frame, scans)
    if gap is not None:
        raise ImageError(_JPEG_SCANS_STOP_EARLY.format(gap=gap))
    _check_scan_restart_markers(data, frame, scans)
    return _before_fill(data, scans[-1].data_at, scans[-1].data_end) if set_aside else None


def _jpeg_padded(data: bytes, end: int) -> npt.NDArray[np.uint8]:
    """``data[:end]`` followed by :data:`_JPEG_PAD_BYTES` zero bytes (one copy)."""
    stream = np.zeros(end + _JPEG_PAD_BYTES, np.uint8)
    stream[:end] = np.frombuffer(data, np.uint8, end)
    return stream


@functools.cache
def _dry_source_fails() -> bool:
    """Whether this OpenCV gives no image when libjpeg's source runs dry mid-picture,
    and the same pixels when it runs dry after the last block (OpenCV 4.10 and later
    check what ``jpeg_read_scanlines`` returns; 4.8 and 4.9 give the rows it did not
    write). Tried once, on a small picture cut short and on the whole one; where it does
    not hold, single-scan JPEGs are decoded as they are (no cut-short check)."""
    noise = np.random.default_rng(0).integers(0, 256, (64, 96, 3), np.uint8)  # ~10 KB
    ok, buf = cv2.imencode(".jpg", noise)
    if not ok:
        return False
    data = buf.tobytes()
    frame = _jpeg_header(data)
    end = _jpeg_data_end(data, frame.sos_end)
    whole = _imdecode(_jpeg_padded(data, end), cv2.IMREAD_COLOR)
    cut = _imdecode(_jpeg_padded(data, (frame.sos_end + end) // 2), cv2.IMREAD_COLOR)
    plain = _imdecode(data, cv2.IMREAD_COLOR)
    return cut is None and whole is not None and plain is not None and np.array_equal(whole, plain)


def _decode_jpeg(data: bytes, frame: _JpegFrame, flag: int) -> npt.NDArray[np.uint8] | None:
    """Decode a JPEG that has passed :func:`check_decodable`, refusing one whose
    entropy-coded data stops before the last block (:data:`_JPEG_CUT_SHORT`) or whose
    scans stop before the picture is complete (:data:`_JPEG_SCANS_STOP_EARLY`).

    libjpeg decodes such a file without an error: where its Huffman decoder meets a
    marker before the last block it warns ("premature end of data segment", on stderr,
    which OpenCV does not pass on) and fills the rest with grey. So the decoder is asked
    directly whether the data holds every block:

    * a single-scan JPEG (a camera's: baseline, restart markers or not) is decoded with
      its last end-of-image marker, and what follows it, replaced by
      :data:`_JPEG_PAD_BYTES` zero bytes (no marker; one copy of the file, a fraction of a
      ms for a 12 MP photo). Whole data is decoded before the decoder reaches past them,
      to the same pixels, and OpenCV's source then just runs dry (libjpeg looks for the
      end marker after the last block and suspends there without a word). Data that
      stops early has the decoder read the padding as data and then ask for more input
      in mid-picture: OpenCV gives no image, and the file, which decodes as it is, is
      cut short. One with restart markers must also hold as many as its blocks need
      (:func:`_check_restart_markers`): a lost middle takes some with it;
    * a multi-scan JPEG (progressive) is read in full before any pixel comes out, so a
      source that runs dry gives no image either way. Its scans are read from their
      headers instead (:func:`_check_jpeg_scans`, about 1 ms for a 12 MP photo): they
      must send every bit of every coefficient (a cut inside any scan but the last, or
      between two scans, loses the scans after it) and hold the restart markers their
      MCUs need. A cut inside the last scan of a file without restart markers leaves
      neither trace and is not found: only a second decode would tell (108-164 ms more
      at 12 MP; 70-85 % of that at 1/8 scale: the entropy decoding is most of it). A
      file with a component that gets its DC coefficient alone is decoded again with
      :data:`_JPEG_SENTINEL` in front of its end marker: the last scan of whole data
      ignores those bytes (libjpeg warns of extraneous bytes on stderr), a scan cut
      short decodes them, and the pixels differ (not an arithmetic-coded file, whose
      last scan reads such bytes in place of the zero bytes its encoder dropped:
      :data:`_JPEG_ARITHMETIC`).

    ``frame`` is the file's (:func:`_jpeg_header`); ``None`` where OpenCV decodes nothing
    (corrupt).
    """
    if frame.single_scan:
        end = _jpeg_data_end(data, frame.sos_end)
        _check_restart_markers(data, frame, end)
        if not _dry_source_fails():
            return _imdecode(data, flag)
        decoded = _imdecode(_jpeg_padded(data, end), flag)
        if decoded is None and _imdecode(data, flag) is not None:
            raise ImageError(_JPEG_CUT_SHORT)
        return decoded
    decoded = _imdecode(data, flag)
    if decoded is None:
        return None
    last_end = _check_jpeg_scans(data, frame)
    if last_end is not None and frame.sof not in _JPEG_ARITHMETIC:
        other = _imdecode(data[:last_end] + _JPEG_SENTINEL + b"\xff\xd9", flag)
        if other is None or not np.array_equal(decoded, other):
            raise ImageError(_JPEG_CUT_SHORT)
    return decoded


def load_image(
    src: ImageSource,
    *,
    max_pixels: int = DEFAULT_MAX_PIXELS,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_array_pixels: int | None = None,
) -> npt.NDArray[np.uint8]:
    """Load an image as a BGR uint8 array of shape ``(H, W, 3)``.

    ``src`` is a file path (``str`` or ``os.PathLike``: a local file; an empty path, a
    URL and a name holding a NUL byte are refused), the encoded bytes of a
    JPEG/PNG/WebP/BMP/TIFF file (``bytes``, ``bytearray``, ``memoryview``), or an array
    of pixels (``(H, W)`` grey, ``(H, W, 1)``, ``(H, W, 3)`` BGR or ``(H, W, 4)`` BGRA;
    uint8, uint16 of either byte order, or bool: False black, True white). A uint16
    array is scaled to 8 bits by its bit depth, the smallest of 8, 10, 12, 14 or 16 bits
    that holds its largest value (:func:`uint16_bits`): a 16-bit image is full range
    (0..65535, divided by 256) and a camera's 12-bit data (0..4095) is divided by 16,
    not left 16 times too dark. A uint8 array of shape ``(N,)``, ``(N, 1)`` or
    ``(1, N)`` that starts with an image format's magic number holds encoded bytes
    (``cv2.imencode``'s buffer) and is decoded. Grey and alpha images come back as
    3-channel BGR; the EXIF orientation of a JPEG is applied. ``max_pixels`` bounds
    width × height (checked from the header before any decoding), ``max_bytes`` the
    encoded size; ``max_array_pixels`` (default ``max_pixels``) bounds an array of
    pixels, which is already decoded.

    Raises :class:`ImageError` (a ``ValueError``) with a message naming the problem:
    missing file, a URL, empty, not an image (naming formats known but not supported:
    GIF, HEIC/HEIF/AVIF, netpbm PPM/PGM/PBM, PDF ...), truncated (a JPEG cut short, its
    end-of-image marker there or not), zero-size, too many pixels, too many bytes,
    undecodable.
    """
    data = _encoded_source(src, max_bytes)
    if isinstance(data, np.ndarray):
        return _from_array(data, max_pixels if max_array_pixels is None else max_array_pixels)
    return _decode(data, _checked_header(data, max_pixels), cv2.IMREAD_COLOR)


def _encoded_source(src: ImageSource, max_bytes: int) -> bytes | npt.NDArray[np.generic]:
    """The encoded bytes of ``src``, or ``src`` itself when it is an array of pixels."""
    if isinstance(src, np.ndarray):
        encoded = _encoded_array(src, max_bytes)
        return src if encoded is None else encoded
    return _encoded(src, max_bytes)


_REDUCED = ((8, cv2.IMREAD_REDUCED_COLOR_8), (4, cv2.IMREAD_REDUCED_COLOR_4),
            (2, cv2.IMREAD_REDUCED_COLOR_2))  # fmt: skip


def load_image_reduced(
    src: ImageSource,
    *,
    min_long_side: int,
    max_pixels: int = DEFAULT_MAX_PIXELS,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_array_pixels: int | None = None,
) -> tuple[npt.NDArray[np.uint8], tuple[int, int]]:
    """Like :func:`load_image`, but a large JPEG is decoded at 1/2, 1/4 or 1/8 scale.

    libjpeg's DCT scaling makes a 12-megapixel phone photo decode several times faster
    when only a detector-sized image is needed. The largest reduction that keeps the
    long side ≥ ``min_long_side`` is used. Returns the (possibly reduced) BGR image and
    the full-resolution ``(width, height)`` that :func:`load_image` would give (EXIF
    orientation applied to both); scale boxes by ``full / reduced`` per axis.

    Whether the EXIF orientation turned the picture is read from the reduced shape, so a
    reduction under which a non-square photo's sides round to the same length (a
    2050 × 2049 photo halved is 1025 × 1025) is skipped for a smaller one.
    """
    data = _encoded_source(src, max_bytes)
    if isinstance(data, np.ndarray):
        img = _from_array(data, max_pixels if max_array_pixels is None else max_array_pixels)
        return img, (img.shape[1], img.shape[0])
    header = _checked_header(data, max_pixels)
    fmt, width, height = header.fmt, header.width, header.height
    if fmt == "jpeg":
        for k, flag in _REDUCED:
            rw, rh = -(-width // k), -(-height // k)
            if max(width, height) // k >= min_long_side and (rw != rh or width == height):
                img = _decode(data, header, flag)
                turned = (img.shape[1], img.shape[0]) != (rw, rh)
                return img, ((height, width) if turned else (width, height))
    img = _decode(data, header, cv2.IMREAD_COLOR)
    return img, (img.shape[1], img.shape[0])


#: Long side, in pixels, that a photo's reading picture keeps at least (:func:`halved`,
#: :func:`load_for_reading`): 1.5 times a 1280 × 960 frame's, so a 4032 × 3024 phone
#: photo is read at 2016 × 1512 and a 1920 × 1440 one as it is.
READ_MIN_LONG_SIDE = 1920


def _reading_reduction(width: int, height: int, min_long_side: int) -> int:
    """How many times (1, 2, 4, ...) a ``width × height`` photo is halved for reading: as
    often as its long side stays at least ``min_long_side`` and its short side 1 px."""
    k = 1
    while max(width, height) // (2 * k) >= min_long_side and min(width, height) >= 2 * k:
        k *= 2
    return k


def halved(pixels: npt.NDArray[np.uint8],
           min_long_side: int | None = None) -> npt.NDArray[np.uint8]:
    """``pixels`` (``(H, W, 3)`` uint8) halved as often as its long side stays at least
    ``min_long_side`` (default :data:`READ_MIN_LONG_SIDE`, read at the call): each time to
    ``W // 2 × H // 2`` by pixel area (``INTER_AREA``), as :func:`vision.preprocess.shrink`
    takes its first steps to the detector's input — so the detector's input made from the
    halved picture is the one made from the photo, pixel for pixel. A photo too small to
    halve (or 1 px thin) is returned itself, the same array. A 12 MP photo is halved in
    about 3 ms.

    >>> halved(np.zeros((3024, 4032, 3), np.uint8)).shape
    (1512, 2016, 3)
    >>> img = np.zeros((960, 1280, 3), np.uint8)
    >>> halved(img) is img
    True
    """
    least = READ_MIN_LONG_SIDE if min_long_side is None else min_long_side
    out = pixels
    while max(out.shape[0], out.shape[1]) // 2 >= least and min(out.shape[:2]) >= 2:
        out = np.asarray(cv2.resize(out, (out.shape[1] // 2, out.shape[0] // 2),
                                    interpolation=cv2.INTER_AREA), np.uint8)
    return out


class Photo:
    """A photo as :func:`load_for_reading` loads it: ``picture``, the picture the detector
    reads first — the photo reduced for reading, or the photo itself; ``size``, the
    photo's ``(width, height)`` as shown (EXIF orientation applied); and ``pixels``, the
    photo's own, as :func:`load_image` gives them — decoded when first asked for when the
    picture was decoded reduced."""

    def __init__(self, picture: npt.NDArray[np.uint8], size: tuple[int, int],
                 pixels: npt.NDArray[np.uint8] | None = None,
                 decode: Callable[[], npt.NDArray[np.uint8]] | None = None) -> None:
        self.picture = picture
        self.size = size
        self._pixels = pixels
        self._decode = decode

    @property
    def reduced(self) -> bool:
        """Whether ``picture`` is smaller than the photo."""
        return (int(self.picture.shape[1]), int(self.picture.shape[0])) != self.size

    @property
    def has_pixels(self) -> bool:
        """Whether the photo's own pixels are at hand: given, or decoded since asked for."""
        return self._pixels is not None

    @property
    def pixels(self) -> npt.NDArray[np.uint8]:
        """The photo's own pixels (``picture`` itself when it was not reduced)."""
        if self._pixels is None:
            if self._decode is None:  # pragma: no cover - made with one or the other
                raise ImageError("the photo's pixels are gone")
            self._pixels = self._decode()
            self._decode = None
        return self._pixels


def load_for_reading(
    src: ImageSource,
    *,
    min_long_side: int | None = None,
    max_pixels: int = DEFAULT_MAX_PIXELS,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_array_pixels: int | None = None,
) -> Photo:
    """``src`` (what :func:`load_image` takes, checked as it checks it) as a :class:`Photo`
    whose ``picture`` is the photo reduced by 2, 4, ... as often as its long side stays at
    least ``min_long_side`` (default :data:`READ_MIN_LONG_SIDE`, read at the call): a
    4032 × 3024 phone photo is read at 2016 × 1512, a 1280 × 960 one as it is (``picture``
    is then ``pixels``, the same array).

    An array of pixels, or a PNG/WebP/BMP/TIFF file, is decoded whole and :func:`halved`.
    A JPEG is decoded reduced by libjpeg itself (``IMREAD_REDUCED_COLOR_2``/``_4``/``_8``:
    its DCT scaling, about a third of a whole decode's time at 12 MP; ``size`` then from
    its header, turned as the EXIF orientation turns the picture), and decoded whole only
    when ``pixels`` is asked for — unless the reduced picture's sides would not tell
    whether the orientation turned it (a non-square photo whose reduced sides are equal):
    then it is decoded whole and halved too. Its reduced picture is close to the halved
    one, not equal: a large JPEG given as a file or bytes may be read a little otherwise
    than its pixels given as an array.

    >>> photo = load_for_reading(np.zeros((3024, 4032, 3), np.uint8))
    >>> photo.picture.shape, photo.size, photo.reduced
    ((1512, 2016, 3), (4032, 3024), True)
    """
    least = READ_MIN_LONG_SIDE if min_long_side is None else min_long_side
    data = _encoded_source(src, max_bytes)
    if isinstance(data, np.ndarray):
        img = _from_array(data, max_pixels if max_array_pixels is None else max_array_pixels)
        return Photo(halved(img, least), (int(img.shape[1]), int(img.shape[0])), img)
    header = _checked_header(data, max_pixels)
    width, height = header.width, header.height
    k = _reading_reduction(width, height, least)
    flags = {2: cv2.IMREAD_REDUCED_COLOR_2, 4: cv2.IMREAD_REDUCED_COLOR_4,
             8: cv2.IMREAD_REDUCED_COLOR_8}
    rw, rh = -(-width // k), -(-height // k)
    if header.fmt == "jpeg" and k in flags and (rw != rh or width == height):
        picture = _decode(data, header, flags[k])
        turned = (int(picture.shape[1]), int(picture.shape[0])) != (rw, rh)
        return Photo(picture, (height, width) if turned else (width, height),
                     decode=lambda: _decode(data, header, cv2.IMREAD_COLOR))
    img = _decode(data, header, cv2.IMREAD_COLOR)
    return Photo(halved(img, least), (int(img.shape[1]), int(img.shape[0])), img)
