"""Safe image loading: any photo in, a BGR uint8 array out, or a clear :class:`ImageError`.

Untrusted input (uploads, camera frames, files) goes through :func:`load_image`:

1. the byte size is checked before anything is read into memory (``max_bytes``);
2. the format is sniffed from its magic bytes (JPEG, PNG, WebP, BMP, TIFF);
3. the image size is read from the header *before decoding* (PNG ``IHDR``, JPEG ``SOFn``,
   WebP ``VP8``/``VP8L``/``VP8X``, BMP ``BITMAPINFOHEADER``, TIFF ``IFD0``), so a
   100-megapixel photo or a PNG decompression bomb is refused without decoding
   (memory stays bounded by ``max_pixels`` × 3 bytes);
4. a JPEG whose entropy-coded data has no end-of-image marker is refused as truncated
   (libjpeg would silently fill the missing rows with grey). One cut short that still
   ends with the marker, or garbled mid-scan, decodes as libjpeg decodes it (its lost
   lines flat grey): telling those lines from a picture's own flat grey edge refused
   real pictures (a grey bar, a grey backdrop), so it is not tried;
5. OpenCV decodes with ``IMREAD_COLOR``, which turns grey and alpha images into
   3-channel BGR and applies the JPEG EXIF orientation tag (the returned array is the
   image as a viewer shows it).

>>> import numpy as np
>>> load_image(np.zeros((2, 3), np.uint8)).shape
(2, 3, 3)
>>> sniff_format(b"\\x89PNG\\r\\n\\x1a\\n....")
'png'
"""

from __future__ import annotations

import os
import struct
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_PIXELS",
    "ImageError",
    "image_size_from_header",
    "load_image",
    "load_image_reduced",
    "sniff_format",
]

#: Largest accepted image, in pixels (width × height), before decoding.
DEFAULT_MAX_PIXELS = 40_000_000
#: Largest accepted encoded image, in bytes (50 MiB).
DEFAULT_MAX_BYTES = 50 * 1024 * 1024

ImageSource = str | os.PathLike[str] | bytes | bytearray | memoryview | npt.NDArray[np.generic]


class ImageError(ValueError):
    """The input is not a usable image; the message says what is wrong."""


# --------------------------------------------------------------------------- format sniffing
_UNSUPPORTED_MAGIC: tuple[tuple[bytes, int, str], ...] = (
    (b"GIF8", 0, "GIF"),
    (b"%PDF", 0, "PDF"),
    (b"PK\x03\x04", 0, "ZIP archive"),
    (b"ftypheic", 4, "HEIC"),
    (b"ftypheix", 4, "HEIC"),
    (b"ftypmif1", 4, "HEIF"),
    (b"ftypavif", 4, "AVIF"),
)


def sniff_format(data: bytes | memoryview) -> str | None:
    """The image format named by the leading magic bytes, or ``None`` if unknown.

    Returns one of ``"jpeg"``, ``"png"``, ``"webp"``, ``"bmp"``, ``"tiff"``.

    >>> sniff_format(b"\\xff\\xd8\\xff\\xe0rest"), sniff_format(b"hello"), sniff_format(b"BM")
    ('jpeg', None, 'bmp')
    """
    head = bytes(data[:16])
    if head.startswith(b"\xff\xd8\xff"):
        return "jpeg"
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "png"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "webp"
    if head.startswith(b"BM"):
        return "bmp"
    if head[:4] in (b"II*\x00", b"MM\x00*"):
        return "tiff"
    return None


def _describe_unknown(data: bytes | memoryview) -> str:
    head = bytes(data[:16])
    for magic, offset, name in _UNSUPPORTED_MAGIC:
        if head[offset : offset + len(magic)] == magic:
            return f"{name} files are not supported; send a JPEG, PNG, WebP, BMP or TIFF image"
    if head.lstrip()[:1] in (b"<", b"{", b"["):
        return "not an image (looks like text/markup); send a JPEG, PNG, WebP, BMP or TIFF image"
    return "not an image: unknown format (expected JPEG, PNG, WebP, BMP or TIFF)"


# --------------------------------------------------------------------------- header parsing
_JPEG_SOF = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}
_JPEG_STANDALONE = {0x01, *range(0xD0, 0xD8)}


def _jpeg_header(data: bytes | memoryview) -> tuple[int, int, int]:
    """``(width, height, sos_offset)`` of a JPEG, from its SOF and SOS markers."""
    n = len(data)
    pos = 2
    size: tuple[int, int] | None = None
    while pos < n:
        if data[pos] != 0xFF:
            raise ImageError(f"corrupt JPEG: expected a marker at byte {pos}")
        while pos < n and data[pos] == 0xFF:  # fill bytes
            pos += 1
        if pos >= n:
            break
        marker = data[pos]
        pos += 1
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
            height, width = struct.unpack(">HH", data[pos + 3 : pos + 7])
            size = (width, height)
        elif marker == 0xDA:  # start of scan: header ends here
            if size is None:
                raise ImageError("corrupt JPEG: scan data before the frame header (no SOF)")
            return size[0], size[1], pos + length
        pos += length
    if size is None:
        raise ImageError("truncated or corrupt JPEG: no frame header (SOF) found")
    raise ImageError("truncated JPEG: the file ends before the image data")


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


def _tiff_size(data: bytes | memoryview) -> tuple[int, int]:
    order = "<" if bytes(data[:2]) == b"II" else ">"
    if len(data) < 8:
        raise ImageError("truncated TIFF: header too short")
    (ifd,) = struct.unpack(order + "I", data[4:8])
    if ifd + 2 > len(data):
        raise ImageError("truncated TIFF: first IFD is missing")
    (count,) = struct.unpack(order + "H", data[ifd : ifd + 2])
    dims: dict[int, int] = {}
    for i in range(count):
        entry = ifd + 2 + 12 * i
        if entry + 12 > len(data):
            raise ImageError("truncated TIFF: IFD entries are missing")
        tag, typ = struct.unpack(order + "HH", data[entry : entry + 4])
        if tag in (256, 257):
            fmt = "H" if typ == 3 else "I"
            (value,) = struct.unpack(
                order + fmt, data[entry + 8 : entry + 8 + struct.calcsize(fmt)]
            )
            dims[tag] = int(value)
    if 256 not in dims or 257 not in dims:
        raise ImageError("corrupt TIFF: no ImageWidth/ImageLength tags")
    return dims[256], dims[257]


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
        w, h, _ = _jpeg_header(data)
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


def _check_bytes(n: int, max_bytes: int) -> None:
    if n == 0:
        raise ImageError("empty image: 0 bytes")
    if n > max_bytes:
        raise ImageError(
            f"image file too large: {n / 2**20:.1f} MiB (limit {max_bytes / 2**20:g} MiB)"
        )


def _from_array(arr: npt.NDArray[np.generic], max_pixels: int) -> npt.NDArray[np.uint8]:
    if arr.ndim not in (2, 3) or (arr.ndim == 3 and arr.shape[2] not in (1, 3, 4)):
        raise ImageError(
            f"image array must have shape (H, W), (H, W, 1), (H, W, 3) or (H, W, 4); "
            f"got {arr.shape}"
        )
    _check_pixels(int(arr.shape[1]), int(arr.shape[0]), max_pixels, "image array")
    if arr.dtype == np.uint8:
        img = np.asarray(arr, np.uint8)
    elif arr.dtype == np.uint16:
        img = (np.asarray(arr, np.uint16) >> 8).astype(np.uint8)
    elif arr.dtype == np.bool_:
        img = arr.astype(np.uint8) * 255
    else:
        raise ImageError(f"image array must be uint8 (or uint16), got dtype {arr.dtype}")
    if img.ndim == 2 or img.shape[2] == 1:
        return np.asarray(cv2.cvtColor(img.reshape(img.shape[:2]), cv2.COLOR_GRAY2BGR), np.uint8)
    if img.shape[2] == 4:
        return np.asarray(cv2.cvtColor(img, cv2.COLOR_BGRA2BGR), np.uint8)
    return np.ascontiguousarray(img)


def _read_file(path: Path, max_bytes: int) -> bytes:
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        raise ImageError(f"no such image file: {path}") from None
    except OSError as exc:
        raise ImageError(f"cannot read image file {path}: {exc.strerror or exc}") from None
    if path.is_dir():
        raise ImageError(f"{path} is a directory, not an image file")
    if size == 0:
        raise ImageError(f"empty image file: {path} (0 bytes)")
    _check_bytes(size, max_bytes)
    try:
        with path.open("rb") as f:
            return f.read(max_bytes + 1)
    except OSError as exc:
        raise ImageError(f"cannot read image file {path}: {exc.strerror or exc}") from None


# --------------------------------------------------------------------------- public API
def _encoded(src: ImageSource, max_bytes: int) -> bytes:
    if isinstance(src, (bytes, bytearray, memoryview)):
        data = bytes(src) if not isinstance(src, bytes) else src
        _check_bytes(len(data), max_bytes)
        return data
    if isinstance(src, (str, os.PathLike)):
        return _read_file(Path(src), max_bytes)
    raise ImageError(
        f"cannot load an image from {type(src).__name__}; give a path, bytes or a numpy array"
    )


def _checked_header(data: bytes, max_pixels: int) -> tuple[str, int, int]:
    fmt, width, height = image_size_from_header(data)
    _check_pixels(width, height, max_pixels, f"{fmt.upper()} image")
    if fmt == "jpeg":
        _, _, sos = _jpeg_header(data)
        if data.find(b"\xff\xd9", sos) < 0:
            raise ImageError("truncated JPEG: the end-of-image marker is missing")
    return fmt, width, height


def _decode(data: bytes, fmt: str, flag: int) -> npt.NDArray[np.uint8]:
    decoded = cv2.imdecode(np.frombuffer(data, np.uint8), flag)
    if decoded is None or decoded.size == 0:
        raise ImageError(f"corrupt or truncated {fmt.upper()} image: it could not be decoded")
    return np.asarray(decoded, np.uint8)


def load_image(
    src: ImageSource,
    *,
    max_pixels: int = DEFAULT_MAX_PIXELS,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> npt.NDArray[np.uint8]:
    """Load an image as a BGR uint8 array of shape ``(H, W, 3)``.

    ``src`` is a file path, the encoded bytes of a JPEG/PNG/WebP/BMP/TIFF file, or an
    array (``(H, W)`` grey, ``(H, W, 3)`` BGR or ``(H, W, 4)`` BGRA; uint8 or uint16).
    Grey and alpha images come back as 3-channel BGR; the EXIF orientation of a JPEG is
    applied. ``max_pixels`` bounds width × height (checked from the header before any
    decoding), ``max_bytes`` the encoded size.

    Raises :class:`ImageError` (a ``ValueError``) with a message naming the problem:
    missing file, empty, not an image, truncated, zero-size, too many pixels, too many
    bytes, undecodable.
    """
    if isinstance(src, np.ndarray):
        return _from_array(src, max_pixels)
    data = _encoded(src, max_bytes)
    fmt, _, _ = _checked_header(data, max_pixels)
    return _decode(data, fmt, cv2.IMREAD_COLOR)


_REDUCED = ((8, cv2.IMREAD_REDUCED_COLOR_8), (4, cv2.IMREAD_REDUCED_COLOR_4),
            (2, cv2.IMREAD_REDUCED_COLOR_2))  # fmt: skip


def load_image_reduced(
    src: ImageSource,
    *,
    min_long_side: int,
    max_pixels: int = DEFAULT_MAX_PIXELS,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> tuple[npt.NDArray[np.uint8], tuple[int, int]]:
    """Like :func:`load_image`, but a large JPEG is decoded at 1/2, 1/4 or 1/8 scale.

    libjpeg's DCT scaling makes a 12-megapixel phone photo decode several times faster
    when only a detector-sized image is needed. The largest reduction that keeps the
    long side ≥ ``min_long_side`` is used. Returns the (possibly reduced) BGR image and
    the full-resolution ``(width, height)`` that :func:`load_image` would give (EXIF
    orientation applied to both); scale boxes by ``full / reduced`` per axis.
    """
    if isinstance(src, np.ndarray):
        img = _from_array(src, max_pixels)
        return img, (img.shape[1], img.shape[0])
    data = _encoded(src, max_bytes)
    fmt, width, height = _checked_header(data, max_pixels)
    if fmt == "jpeg":
        for k, flag in _REDUCED:
            if max(width, height) // k >= min_long_side:
                img = _decode(data, fmt, flag)
                rw, rh = -(-width // k), -(-height // k)
                turned = (img.shape[1], img.shape[0]) != (rw, rh)
                return img, ((height, width) if turned else (width, height))
    img = _decode(data, fmt, cv2.IMREAD_COLOR)
    return img, (img.shape[1], img.shape[0])
