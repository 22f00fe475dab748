"""``POST /v1/recognize``: a photo of a hand → tiles, hand, melds, corrections, score.

Send the photo as multipart field ``image`` (other form fields: the win context —
``rules``, ``version``, ``self_drawn``, ``last_of_kind``, ``kong``, ``last_wall_tile``,
``seat_wind``, ``prevalent_wind``, ``discarder``, ``settings`` and ``rule_context`` as
JSON objects, ``win``, ``hidden_kongs`` and ``flowers``), or as a raw ``image/*`` body
with the same options in the query string.

``flowers`` (0-8, a count of bonus tiles) is the flowers of a photo that shows none (set
aside off-camera), as ``tilecam recognize --flowers``: both read it with
:func:`vision.flower_count.read_with_flowers`, so one photo and one count give one score.

The answer is ``Recognition.to_dict()`` (the JSON of ``tilecam recognize --json``) plus
``image_size`` and, per tile, the detector's ``topk`` alternatives; with ``?annotate=1``
also ``annotated_jpeg``, a ``data:image/jpeg;base64`` URL of the photo drawn by
:func:`vision.render.render` (tiles by role, melds, the winning tile, corrections, and a
panel with the fans).

Decoding, detection, layout and scoring run in the recognition pool
(:class:`tilecam.api.deps.RecognitionLimiter`): bounded concurrency, 503 when busy.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from typing import Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse
from pydantic import ValidationError

import scoring
from tilecam.api.deps import DetectorDep, LimiterDep, SettingsDep
from tilecam.api.errors import ApiError, describe_validation_errors
from tilecam.api.schemas import (
    IMAGE_ERROR_RESPONSES,
    PHOTO_FLOWERS_DOC,
    ErrorOut,
    RecognizeOptions,
    RecognizeOut,
)
from tilecam.api.upload import (
    RECOGNIZE_FIELDS,
    image_request,
    load_photo,
    read_upload,
    request_fields,
)
from vision.flower_count import MAX_FLOWERS, FlowerCountError, check_flowers, read_with_flowers

router = APIRouter(prefix="/v1", tags=["vision"])

#: Largest side of the annotated JPEG, pixels (keeps the answer small).
ANNOTATE_MAX_SIDE = 1280

#: The form fields (and query parameters) of this route for /docs: the shared ones and
#: ``flowers`` (:class:`tilecam.api.schemas.RecognizeOptions`).
FIELDS: dict[str, dict[str, Any]] = {
    **RECOGNIZE_FIELDS,
    "flowers": {"type": "integer", "minimum": 0, "maximum": MAX_FLOWERS, "default": 0,
                "description": PHOTO_FLOWERS_DOC},
}


def parse_options(fields: Mapping[str, str]) -> RecognizeOptions:
    """The win context from form fields or query parameters (strings).

    ``settings`` and ``rule_context`` are JSON objects; booleans accept
    true/false/1/0/yes/no. Raises :class:`ApiError` 422 naming the bad field.
    """
    data: dict[str, Any] = {k: v for k, v in fields.items() if k != "annotate"}
    for key in ("settings", "rule_context"):
        if key in data:
            try:
                value = json.loads(data[key]) if data[key].strip() else {}
            except json.JSONDecodeError as exc:
                raise ApiError(422, "invalid_request", f"{key} is not valid JSON: {exc}") from None
            except RecursionError:
                raise ApiError(422, "invalid_request",
                               f"{key} nests lists or objects too deeply") from None
            if not isinstance(value, dict):
                raise ApiError(422, "invalid_request", f"{key} must be a JSON object")
            data[key] = value
    for key in ("version", "discarder", "win", "hidden_kongs", "flowers"):
        if data.get(key) == "":
            data.pop(key)
    try:
        return RecognizeOptions.model_validate(data)
    except ValidationError as exc:
        raise ApiError(422, "invalid_request", describe_validation_errors(exc.errors())) from None


def recognition_context(opts: RecognizeOptions) -> dict[str, Any]:
    """The ``context`` of :func:`vision.recognize` (flat: rule fields included)."""
    ctx: dict[str, Any] = {
        "self_drawn": opts.self_drawn,
        "last_of_kind": opts.last_of_kind,
        "kong": opts.kong,
        "last_wall_tile": opts.last_wall_tile,
        "seat_wind": opts.seat_wind,
        "prevalent_wind": opts.prevalent_wind,
    }
    for key in ("discarder", "version", "settings"):
        value = getattr(opts, key)
        if value is not None:
            ctx[key] = value
    if opts.win is not None:  # whether the photo shows a win (vision.recognize's claim_win)
        ctx["claim_win"] = opts.win
    if opts.hidden_kongs:
        ctx["hidden_kongs"] = opts.hidden_kongs
    reserved = set(ctx) | {"rules", "flowers", "hidden_kongs", "claim_win"}
    clash = sorted(set(opts.rule_context) & reserved)
    if clash:
        raise ApiError(
            400,
            "invalid_context",
            f"rule_context may not set {', '.join(clash)} here: give them as fields",
        )
    # a rule set's own win type (Xiamen 游金 …) is a name: in rule_context it is that, while
    # the field 'win' says whether the photo shows a win at all
    if "win" in opts.rule_context and not isinstance(opts.rule_context["win"], str):
        raise ApiError(
            400,
            "invalid_context",
            "rule_context 'win' is a rule set's win type by name (e.g. Xiamen's you_jin); "
            "whether the photo shows a win is the field 'win' (true/false)",
        )
    ctx.update(opts.rule_context)
    return ctx


def check_context(rules: str, context: dict[str, Any], flowers: int = 0) -> None:
    """Refuse an unknown rule set, version, setting, rule-specific field or a win context
    that cannot be up front (400, :func:`vision.recognize.check_request`), so that a bad
    request is not answered as an "unscorable" photo, nor after the photo is decoded; a
    count of ``flowers`` (tiles) the rules cannot take (Zhenjiang: none) first, as
    ``tilecam recognize --flowers`` refuses it (:func:`vision.flower_count.check_flowers`)."""
    from vision.recognize import check_request

    try:
        check_flowers(rules, flowers)
        check_request(rules, context)
    except scoring.HandError as exc:
        raise ApiError(400, "invalid_context", str(exc)) from None


def annotated_jpeg(image: Any, recognition: Any) -> str:
    """The photo drawn by :func:`vision.render.render` (tiles by role, melds, winning
    tile, corrections, fan panel), as a JPEG data URL at most ``ANNOTATE_MAX_SIDE`` wide."""
    import cv2
    import numpy as np

    from vision.render import render

    out = render(image, recognition)
    h, w = out.shape[:2]
    scale = ANNOTATE_MAX_SIDE / max(h, w)
    if scale < 1:
        out = np.asarray(cv2.resize(out, (round(w * scale), round(h * scale)),
                                    interpolation=cv2.INTER_AREA), np.uint8)
    ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, 85])
    if not ok:  # pragma: no cover - OpenCV always encodes a BGR uint8 array
        raise RuntimeError("JPEG encoding of the annotated image failed")
    return "data:image/jpeg;base64," + base64.b64encode(buf.tobytes()).decode("ascii")


@router.post(
    "/recognize", openapi_extra=image_request(FIELDS),
    responses={200: {"model": RecognizeOut, "description": "Recognition.to_dict(): the "
                     "tiles read, the hand, and its score, waits or why it is unscorable"},
               **IMAGE_ERROR_RESPONSES,
               400: {"model": ErrorOut, "description": "an image missing, empty or corrupt, "
                     "a field given twice, or invalid_context (an unknown rule set, version, "
                     "setting or context field; flowers under rules without them; flowers "
                     "given for a photo that shows another number of flowers, both counts "
                     "named)"}},
)
async def recognize(
    request: Request,
    settings: SettingsDep,
    detector: DetectorDep,
    limiter: LimiterDep,
    annotate: bool = Query(False, description="add annotated_jpeg (base64 JPEG data URL)"),
) -> JSONResponse:
    """Read the hand in a photo and score it (or give its waits, or say why it cannot).

    Send the photo as the multipart file field ``image`` with the win context as form
    fields, or as a raw image body with the same fields in the query string. ``settings``
    and ``rule_context`` are JSON objects; ``win`` says whether the photo shows a win
    (default: by the tile count) and ``hidden_kongs`` the kinds of kongs shown all face
    down. ``flowers`` (0-8) counts the flowers of a photo that shows none (set aside
    off-camera): the photo is read without it first and with it only when it shows no
    flower; a photo showing another number of flowers is refused (400 ``invalid_context``
    naming both counts), as are flowers under rules without them (Zhenjiang), before the
    photo is decoded. Exactly one of ``score`` (a win), ``waits`` (one tile short) or ``unscorable``
    is in the answer (``waits`` and ``unscorable`` may come together); a hand that drew
    and must discard has ``unscorable`` and ``discards`` (each discard with its waits).
    """
    async with limiter.admit():
        upload = await read_upload(request, settings.max_upload_bytes, settings.request_timeout_s)
        opts = parse_options(request_fields(request, upload))
        context = recognition_context(opts)
        check_context(opts.rules, context, opts.flowers)
        result = await limiter.run(
            _recognize, upload.data, upload.filename, opts.rules, context, settings, detector,
            annotate, opts.flowers,
        )  # fmt: skip
        return JSONResponse(result)


def _recognize(
    data: bytes,
    filename: str,
    rules: str,
    context: dict[str, Any],
    settings: Any,
    detector: Any,
    annotate: bool,
    flowers: int = 0,
) -> dict[str, Any]:
    """Decode, detect, lay out, correct and score (runs in the recognition pool);
    ``flowers``: the count (tiles) for a photo that shows none
    (:func:`vision.flower_count.read_with_flowers`)."""
    # a large JPEG decoded reduced, whole only when its pixels are needed
    photo = load_photo(data, settings.max_pixels, settings.max_upload_bytes)
    try:
        result = read_with_flowers(photo, rules, context, flowers, detector=detector)
    except FlowerCountError as exc:  # the photo shows another number of flowers
        raise ApiError(400, "invalid_context", str(exc)) from None
    except scoring.HandError as exc:  # a context the recognizer refuses
        raise ApiError(400, "invalid_context", str(exc)) from None
    out = result.to_dict()
    # the page's tile picker offers the detector's alternatives first
    for tile, record in zip(out["tiles"], result.detections.to_records(), strict=True):
        tile["topk"] = record["topk"]
    out["image"] = filename
    out["image_size"] = [int(photo.size[0]), int(photo.size[1])]
    if annotate:
        out["annotated_jpeg"] = annotated_jpeg(photo.pixels, result)
    return out
