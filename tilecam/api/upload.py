"""Reading an uploaded image safely: size caps while streaming, type and header checks.

Two ways to send an image:

* ``multipart/form-data`` with the file in a field named ``image`` (a phone page,
  ``curl -F image=@hand.jpg``); other text fields (``rules``, ``self_drawn`` …) come
  back in :attr:`Upload.fields`;
* the raw bytes as the body with ``Content-Type: image/jpeg`` (or ``image/png``,
  ``image/webp``, ``application/octet-stream``), options in the query string.

The whole request body is capped by :class:`BodyLimitMiddleware` (Content-Length is
checked before reading, and a chunked body is counted as it streams in; a body that is
not an image or a form is held to the JSON limit; a body that stops arriving is a 408,
timed once, by the middleware's :class:`BodyClock`, which :func:`read_upload` words as
an upload's), and the image itself by ``Settings.max_upload_bytes``. The pixel count is
read from the image header *before decoding*
(:func:`vision.imageio.image_size_from_header`), so a decompression bomb is refused
without allocating its pixels.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from tilecam.api.errors import ApiError, error_response

#: Bytes allowed in a request body beyond the image (multipart headers, form fields).
FORM_OVERHEAD_BYTES = 256 * 1024
#: Raw-body content types accepted as an image.
RAW_IMAGE_TYPES = ("image/", "application/octet-stream")


#: The scope key under which :class:`BodyLimitMiddleware` leaves a request's
#: :class:`BodyClock` for the route (:func:`read_upload`).
BODY_CLOCK = "tilecam.body_clock"


class BodyClock:
    """The one deadline on a request's body: ``timeout_s`` seconds (None: no limit) from
    the app's first read of it, kept by :class:`BodyLimitMiddleware`, which leaves it in
    the request's scope (:data:`BODY_CLOCK`) so that a route reading an image
    (:func:`read_upload`) has its upload timed by it rather than by a second timer.

    >>> clock = BodyClock(30.0)
    >>> clock.too_slow().message
    'the request body did not arrive within 30 s'
    >>> clock.time_upload(30.0), clock.too_slow().message
    (True, 'the upload did not arrive within 30 s')
    """

    def __init__(self, timeout_s: float | None) -> None:
        #: seconds the whole body may take once the app reads it; None: no limit
        self.timeout_s = timeout_s
        #: the app has begun reading the body: the deadline is set
        self.started = False
        #: the body is an image upload (:func:`read_upload`): the 408 says so
        self.upload = False
        #: bytes of the body received so far (what a log of a client gone mid-upload says)
        self.received = 0

    def time_upload(self, timeout_s: float) -> bool:
        """Take on timing an image upload within ``timeout_s`` seconds, its 408 worded as
        the upload's; False — the caller times it itself — when the body's deadline is
        already set to another time."""
        if self.started and self.timeout_s != timeout_s:
            return False
        self.timeout_s = timeout_s
        self.upload = True
        return True

    def too_slow(self) -> ApiError:
        """The 408 for a body that did not arrive within ``timeout_s``."""
        if self.upload:
            return upload_too_slow(self.timeout_s or 0.0)
        return ApiError(
            408,
            "request_timeout",
            f"the request body did not arrive within {self.timeout_s or 0.0:g} s",
            headers={"Connection": "close"},
        )


def upload_too_slow(timeout_s: float) -> ApiError:
    """The 408 for an image upload that did not arrive within ``timeout_s`` seconds."""
    return ApiError(
        408,
        "request_timeout",
        f"the upload did not arrive within {timeout_s:g} s",
        headers={"Connection": "close"},
    )


@dataclass
class Upload:
    """An uploaded image's bytes and the other form fields sent with it."""

    data: bytes
    filename: str
    content_type: str
    fields: dict[str, str] = field(default_factory=dict)


class BodyLimitMiddleware:
    """Bound every request body in size and in time, before the app parses it.

    Size: an image body (``image/*``, ``application/octet-stream``) or a form
    (``multipart/form-data``) may hold up to ``max_bytes``; every other body — JSON, and
    any type or none at all, since the framework may parse it — ``max_json_bytes``. A
    declared ``Content-Length`` over the limit is refused (413 JSON) before any byte is
    read; a chunked body is counted as it streams in and refused as soon as it passes the
    limit (the route sees :class:`ApiError` 413 from ``receive``).

    Headers: the type and length are read once, here, the way the framework reads them
    (the first header of each name); a request whose ``Content-Type`` or
    ``Content-Length`` headers differ from one another is refused (400) before anything
    else, so that no part of the service can take it for another type than this one does.

    Time: once the app starts reading the body, all of it must arrive within
    ``timeout_s`` seconds, or the route sees :class:`ApiError` 408 ``request_timeout``
    (``Connection: close``) from ``receive``: a client that stops sending cannot hold a
    request open. Reads after the body is complete (waiting for a disconnect) are not
    timed. The deadline is the request's :class:`BodyClock`, left in its scope: an image
    route's :func:`read_upload` has its upload timed by it (one timer a request), the
    408 then saying "the upload did not arrive".
    """

    def __init__(self, app: ASGIApp, max_bytes: int, max_json_bytes: int = 1024 * 1024,
                 form_bytes: int = 0, timeout_s: float | None = None) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.max_json_bytes = max_json_bytes
        #: of ``max_bytes``, the room left for a form's own fields beside its file
        self.form_bytes = form_bytes
        #: seconds the whole body may take to arrive once the app reads it; None: no limit
        self.timeout_s = timeout_s

    def _limit_text(self, limit: int, large: bool) -> str:
        """The limit as a person reads it: ``15 MiB`` and what it is made of.

        >>> BodyLimitMiddleware(None, 15 * 2**20 + 2**18, form_bytes=2**18)._limit_text(
        ...     15 * 2**20 + 2**18, True)
        "15990784 bytes (an image of up to 15 MiB and 256 KiB for the form's fields)"
        >>> BodyLimitMiddleware(None, 10)._limit_text(2**20, False)
        '1048576 bytes (1 MiB for a JSON body, or any body that is not an image)'
        """
        if not large:
            return (f"{limit} bytes ({limit / 2**20:g} MiB for a JSON body, or any body "
                    "that is not an image)")
        if not self.form_bytes:
            return f"{limit} bytes"
        image = (limit - self.form_bytes) / 2**20
        return (f"{limit} bytes (an image of up to {image:g} MiB and "
                f"{self.form_bytes / 1024:g} KiB for the form's fields)")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        try:
            declared, media = body_headers(scope)
        except ApiError as exc:
            response = error_response(exc.status_code, exc.code, exc.message,
                                      headers={"Connection": "close"})
            await response(scope, receive, send)
            return
        large = takes_large_body(media)
        limit = self.max_bytes if large else self.max_json_bytes
        if declared is not None and declared > limit:
            response = error_response(
                413,
                "payload_too_large",
                f"request body of {declared} bytes is over the limit of "
                f"{self._limit_text(limit, large)}",
                headers={"Connection": "close"},
            )
            await response(scope, receive, send)
            return
        seen = 0
        complete = False
        clock = BodyClock(self.timeout_s)  # a route may take it on (read_upload)
        scope[BODY_CLOCK] = clock
        # one timer per request (not per read): when it fires it cancels the read waiting
        timer: asyncio.TimerHandle | None = None
        waiting: asyncio.Task[Any] | None = None
        expired = False

        def expire() -> None:
            nonlocal expired
            expired = True
            if waiting is not None:
                waiting.cancel()

        async def limited_receive() -> Message:
            nonlocal seen, complete, timer, waiting
            if complete:  # the body is in: what is left to hear is a disconnect
                return await receive()
            clock.started = True
            if clock.timeout_s is not None:
                if expired:
                    raise clock.too_slow()
                if timer is None:
                    loop = asyncio.get_running_loop()
                    timer = loop.call_at(loop.time() + clock.timeout_s, expire)
                waiting = asyncio.current_task()
            try:
                message = await receive()
            except asyncio.CancelledError:
                if expired and waiting is not None and waiting.uncancel() == 0:
                    raise clock.too_slow() from None  # our timer's cancel, no one else's
                raise
            finally:
                waiting = None
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                clock.received = seen
                if seen > limit:
                    raise ApiError(
                        413,
                        "payload_too_large",
                        "request body is over the limit of "
                        f"{self._limit_text(limit, large)}",
                    )
                complete = not message.get("more_body", False)
            else:  # http.disconnect: nothing more will come
                complete = True
            if complete and timer is not None:
                timer.cancel()
            return message

        try:
            await self.app(scope, limited_receive, send)
        finally:
            if timer is not None:
                timer.cancel()


def takes_large_body(media: str) -> bool:
    """Whether a body of media type ``media`` may be as large as an image upload: an
    image, raw bytes, or a form (which carries the image). Everything else — JSON, any
    other type, none — is held to the JSON limit, since the framework may parse it.

    >>> [takes_large_body(m) for m in ("image/jpeg", "multipart/form-data", "")]
    [True, True, False]
    >>> [takes_large_body(m) for m in ("application/json", "text/plain", "application/x+json")]
    [False, False, False]
    """
    return media.startswith(RAW_IMAGE_TYPES) or media == "multipart/form-data"


def body_headers(scope: Scope) -> tuple[int | None, str]:
    """The declared body length (bytes; None when not declared) and media type (lower
    case, no parameters; ``""`` when none) of a request — the first header of each, as
    Starlette's ``Headers.get`` reads them.

    Raises :class:`ApiError` 400 when the request holds two ``Content-Type`` or two
    ``Content-Length`` headers that differ, or a length that is no whole number of bytes.

    >>> body_headers({"headers": [(b"content-type", b"application/json; charset=utf-8"),
    ...                           (b"content-length", b"12")]})
    (12, 'application/json')
    >>> body_headers({"headers": [(b"content-type", b"application/json"),
    ...                           (b"content-type", b"image/jpeg")]})
    Traceback (most recent call last):
    ...
    tilecam.api.errors.ApiError: 400 invalid_request: the request has 2 Content-Type \
headers that differ ('application/json', 'image/jpeg'): send one
    """
    types: list[str] = []
    lengths: list[str] = []
    for name, value in scope.get("headers", ()):
        if name == b"content-type":
            types.append(value.decode("latin-1").strip())
        elif name == b"content-length":
            lengths.append(value.decode("latin-1").strip())
    for header, values in (("Content-Type", types), ("Content-Length", lengths)):
        if len(set(values)) > 1:
            shown = ", ".join(repr(v[:100]) for v in dict.fromkeys(values))
            raise ApiError(400, "invalid_request",
                           f"the request has {len(values)} {header} headers that differ "
                           f"({shown}): send one")
    length: int | None = None
    if lengths:
        text = lengths[0]
        if not (text.isascii() and text.isdigit()):
            raise ApiError(400, "invalid_request",
                           f"Content-Length {text[:40]!r} is not a whole number of bytes")
        length = int(text) if len(text) <= 30 else 10**30  # past any limit all the same
    return length, _media_type(types[0]) if types else ""


def _media_type(content_type: str) -> str:
    return content_type.split(";", 1)[0].strip().lower()


async def read_upload(request: Request, max_bytes: int, timeout_s: float) -> Upload:
    """The image of a multipart (field ``image``) or raw-body request.

    Raises :class:`ApiError`: 415 for a body that is neither, 400 for a missing or
    empty image, 413 for one over ``max_bytes``, 408 ``request_timeout`` "the upload did
    not arrive within ``timeout_s`` s" (``Connection: close``) when the body has not
    arrived within ``timeout_s`` seconds (a stalled or very slow client).

    The body is timed once. Under :class:`BodyLimitMiddleware` (the service's app) its
    :class:`BodyClock` times it, worded as an upload, from the first read. An app built
    without the middleware (a test's, or one mounting these routes elsewhere) has no
    clock in the scope, and the upload is timed here, from this call — so an upload is
    bounded in time either way, and never by two timers at once.
    """
    clock = request.scope.get(BODY_CLOCK)
    if isinstance(clock, BodyClock) and clock.time_upload(timeout_s):
        return await _read_upload(request, max_bytes)
    try:
        return await asyncio.wait_for(_read_upload(request, max_bytes), timeout_s)
    except TimeoutError:
        raise upload_too_slow(timeout_s) from None


def request_fields(request: Request, upload: Upload) -> dict[str, str]:
    """The fields sent with a photo: the form's and the query string's, one value each —
    a field given twice in the query, or in both with other values, is a 400 naming it
    (the camera's ``winner`` E in the form and S in the query was read as S)."""
    fields = dict(upload.fields)
    for key in dict.fromkeys(request.query_params.keys()):
        values = request.query_params.getlist(key)
        if len(values) > 1:
            raise ApiError(400, "invalid_request",
                           f"field {key} is given twice: give each field once")
        if key in fields and fields[key] != values[0]:
            raise ApiError(400, "invalid_request",
                           f"field {key} is given in the form ({fields[key]!r}) and in the "
                           f"query ({values[0]!r}): give it once")
        fields[key] = values[0]
    return fields


async def _read_upload(request: Request, max_bytes: int) -> Upload:
    content_type = request.headers.get("content-type", "")
    media = _media_type(content_type)
    if media == "multipart/form-data":
        form = await request.form(max_files=1, max_fields=64, max_part_size=64 * 1024)
        fields: dict[str, str] = {}
        upload: UploadFile | None = None
        for key, value in form.multi_items():
            if isinstance(value, UploadFile):
                if key == "image":
                    upload = value
                continue
            if key in fields:
                await form.close()
                raise ApiError(400, "invalid_request",
                               f"field {key} is given twice: give each field once")
            fields[key] = value
        if upload is None:
            await form.close()
            raise ApiError(
                400,
                "missing_image",
                "no image in the form: send the photo in a file field named 'image' "
                "(curl -F image=@hand.jpg)",
            )
        part_type = _media_type(upload.content_type or "")
        if part_type and not part_type.startswith(RAW_IMAGE_TYPES):
            await form.close()
            raise ApiError(
                415,
                "unsupported_media_type",
                f"the 'image' field has content type {part_type!r}; "
                "send a JPEG, PNG, WebP, BMP or TIFF image",
            )
        data = await upload.read(max_bytes + 1)
        filename = upload.filename or "upload"
        await form.close()
        result = Upload(data, filename, part_type or "application/octet-stream", fields)
    elif media.startswith(RAW_IMAGE_TYPES):
        chunks: list[bytes] = []
        total = 0
        async for chunk in request.stream():
            total += len(chunk)
            if total > max_bytes:
                raise _too_large(max_bytes)
            chunks.append(chunk)
        result = Upload(b"".join(chunks), "upload", media, {})
    else:
        shown = media or "none"
        raise ApiError(
            415,
            "unsupported_media_type",
            f"content type {shown!r} is not accepted here: send multipart/form-data with "
            "the photo in a field named 'image', or the raw image with Content-Type image/jpeg",
        )
    if not result.data:
        raise ApiError(400, "empty_image", "the uploaded image is empty (0 bytes)")
    if len(result.data) > max_bytes:
        raise _too_large(max_bytes)
    return result


def _too_large(max_bytes: int) -> ApiError:
    return ApiError(
        413,
        "image_too_large",
        f"the image file is over the upload limit of {max_bytes / 2**20:g} MiB",
    )


def check_image_header(data: bytes, max_pixels: int) -> tuple[str, int, int]:
    """``(format, width, height)`` from the header, before any decoding.

    Raises :class:`ApiError` 415 for data that is not a supported image format,
    413 for more than ``max_pixels`` pixels or a side over the decoder's limit, 400 for a
    broken header or what the decoder should not be given
    (:func:`vision.imageio.check_decodable`: a JPEG without its end marker, a progressive
    JPEG of more than ``MAX_JPEG_SCANS`` scans) — refused here, before a recognition slot
    is taken.
    """
    from vision.imageio import (
        MAX_DECODABLE_PIXELS,
        ImageError,
        check_decodable,
        decoder_max_side,
        image_size_from_header,
        sniff_format,
    )

    if sniff_format(data) is None:
        try:
            image_size_from_header(data)
        except ImageError as exc:
            raise ApiError(415, "unsupported_image", str(exc)) from None
        raise ApiError(415, "unsupported_image", "not a supported image format")
    try:
        fmt, width, height = image_size_from_header(data)
    except ImageError as exc:
        raise ApiError(400, "invalid_image", str(exc)) from None
    if width <= 0 or height <= 0:
        raise ApiError(400, "invalid_image", f"the image has zero size ({width}×{height} pixels)")
    limit = min(max_pixels, MAX_DECODABLE_PIXELS)  # none larger can be decoded
    if width * height > limit:
        raise ApiError(
            413,
            "image_too_large",
            f"the image is {width}×{height} = {width * height / 1e6:.1f} megapixels, over "
            f"the limit of {limit / 1e6:g} megapixels; resize it first",
        )
    side = decoder_max_side(fmt)
    if max(width, height) > side:
        raise ApiError(
            413,
            "image_too_large",
            f"the image is {width}×{height} pixels: a side over {side:,} pixels is more "
            f"than the {fmt.upper()} decoder takes; resize it first",
        )
    try:
        check_decodable(data)
    except ImageError as exc:
        raise ApiError(400, "invalid_image", str(exc)) from None
    return fmt, width, height


def decode_image(data: bytes, max_pixels: int, max_bytes: int) -> Any:
    """Decode an upload to a BGR uint8 array ``(H, W, 3)`` (EXIF orientation applied).

    CPU work: call it in the recognition pool. Raises :class:`ApiError`: 415 for a
    format that is not an image, 413 over the limits, 400 for a corrupt or truncated file.
    """
    from vision.imageio import ImageError, load_image

    check_image_header(data, max_pixels)
    try:
        return load_image(data, max_pixels=max_pixels, max_bytes=max_bytes)
    except ImageError as exc:
        raise ApiError(400, "invalid_image", str(exc)) from None


def load_photo(data: bytes, max_pixels: int, max_bytes: int) -> Any:
    """An upload as a :class:`vision.imageio.Photo` for :func:`vision.recognize.recognize`,
    under the same limits and with the same errors as :func:`decode_image` (the header
    checked first, then the file decoded): a large JPEG is decoded reduced
    (:func:`vision.imageio.load_for_reading`), and whole only when its ``pixels`` are
    asked for (small tiles, an annotated image) — also a 400 when that decode fails.

    CPU work: call it in the recognition pool.
    """
    from vision.imageio import ImageError, Photo, load_for_reading

    check_image_header(data, max_pixels)
    try:
        photo = load_for_reading(data, max_pixels=max_pixels, max_bytes=max_bytes)
    except ImageError as exc:
        raise ApiError(400, "invalid_image", str(exc)) from None
    if photo.has_pixels:
        return photo

    def pixels() -> Any:
        try:
            return photo.pixels
        except ImageError as exc:
            raise ApiError(400, "invalid_image", str(exc)) from None

    return Photo(photo.picture, photo.size, decode=pixels)


_WIND = {"type": "string", "enum": ["E", "S", "W", "N"]}
_FLAG = {"type": "boolean", "default": False}
_RAW_TYPES = ("image/jpeg", "image/png", "image/webp", "application/octet-stream")

#: The form fields of ``POST /v1/recognize`` (:class:`tilecam.api.schemas.RecognizeOptions`).
RECOGNIZE_FIELDS: dict[str, dict[str, Any]] = {
    "rules": {"type": "string", "default": "mcr", "description": "rule set (GET /v1/rules)"},
    "version": {"type": "string", "description": "rule version (MCR)"},
    "self_drawn": _FLAG,
    "last_of_kind": {**_FLAG, "description": "和绝张: the other three copies are visible"},
    "kong": {**_FLAG, "description": "杠上开花 when self-drawn, 抢杠和 on a discard"},
    "last_wall_tile": {**_FLAG, "description": "妙手回春 / 海底捞月"},
    "seat_wind": {**_WIND, "default": "E"},
    "prevalent_wind": {**_WIND, "default": "E"},
    "discarder": {"type": "integer", "minimum": 1, "maximum": 3,
                  "description": "seat offset of the discarder: 1 left, 2 opposite, 3 right"},
    "settings": {"type": "string", "description": 'JSON object of rule-set settings, e.g. '
                 '{"version": "mil-2015"}'},
    "rule_context": {"type": "string", "description": "JSON object of rule-specific win "
                     'context, e.g. {"gold": "5m"} (Xiamen)'},
    "win": {"type": "boolean", "description": "the photo shows a win (true) or a waiting "
            "hand (false); default: decided by the tile count"},
    "hidden_kongs": {"type": "string", "maxLength": 40,
                     "description": "kinds of kongs shown all face down, e.g. 'E 5p'"},
}

#: The form fields of ``POST /v1/tables/{id}/frames`` (seats are the hand's seat winds,
#: E = dealer; any other field is refused with 400).
FRAME_FIELDS: dict[str, dict[str, Any]] = {
    "winner": {**_WIND, "description": "seat wind of the winner (E = dealer)"},
    "discarder": {**_WIND, "description": "seat wind of the discarder"},
    "self_drawn": _FLAG,
    "last_of_kind": _FLAG,
    "kong": _FLAG,
    "last_wall_tile": _FLAG,
    "flowers": {"type": "integer", "minimum": 0, "maximum": 8, "default": 0},
    "context": {"type": "string", "maxLength": 2000,
                "description": "JSON object of rule-set win context, e.g. "
                '{"gold": "5m"} (Xiamen) or {"wild": "2m"} (Zhenjiang)'},
}


def image_request(fields: dict[str, dict[str, Any]], note: str = "") -> dict[str, Any]:
    """``openapi_extra`` for a route that reads an image itself (for /docs): the
    multipart form (file field ``image`` and ``fields``), the raw image bodies, and the
    same ``fields`` as query parameters (what a raw image body sends them as)."""
    form = {"type": "object", "required": ["image"],
            "properties": {"image": {"type": "string", "format": "binary"}, **fields}}
    raw = {"schema": {"type": "string", "format": "binary"}}
    body: dict[str, Any] = {
        "required": True,
        "description": ("multipart/form-data with the photo in the file field `image`, or "
                        "the raw image as the body"
                        + (" (the fields then in the query string)" if fields else "")
                        + note),
        "content": {"multipart/form-data": {"schema": form},
                    **{media: raw for media in _RAW_TYPES}},
    }
    params = [{"name": name, "in": "query", "required": False, "schema": schema,
               "description": "as the form field of the same name (for a raw image body; "
                              "give a field once)"}
              for name, schema in fields.items()]
    return {"requestBody": body, **({"parameters": params} if params else {})}


#: ``openapi_extra`` of ``POST /v1/recognize``.
RECOGNIZE_REQUEST_BODY = image_request(RECOGNIZE_FIELDS)
#: ``openapi_extra`` of ``POST /v1/tables/{id}/frames``.
FRAME_REQUEST_BODY = image_request(
    FRAME_FIELDS, "; any field other than these is refused (400 invalid_request)")
#: ``openapi_extra`` of ``POST /v1/detect``, which reads the image alone.
DETECT_REQUEST_BODY = image_request({}, "; other fields are ignored")
#: The name this had when every image route shared /v1/recognize's form.
IMAGE_REQUEST_BODY = RECOGNIZE_REQUEST_BODY
