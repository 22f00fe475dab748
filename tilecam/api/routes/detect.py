"""``POST /v1/detect``: an image → the tiles found in it (detections only, no layout).

Answer: ``{"image_size": [w, h], "tiles": [{"code", "box", "confidence", "rotation",
"face_down", "topk"}], "meta": {...}}`` with boxes in pixels of the (EXIF-rotated) image.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from tilecam.api.deps import DetectorDep, LimiterDep, SettingsDep
from tilecam.api.schemas import IMAGE_ERROR_RESPONSES, DetectOut
from tilecam.api.upload import DETECT_REQUEST_BODY, load_photo, read_upload

router = APIRouter(prefix="/v1", tags=["vision"])


@router.post(
    "/detect", openapi_extra=DETECT_REQUEST_BODY,
    responses={200: {"model": DetectOut, "description": "the tiles found"},
               **IMAGE_ERROR_RESPONSES},
)
async def detect(
    request: Request,
    settings: SettingsDep,
    detector: DetectorDep,
    limiter: LimiterDep,
) -> JSONResponse:
    """Find the tiles in a photo (multipart field ``image``, or a raw image body): boxes,
    codes and the detector's alternatives, with no layout and no score. Takes no options:
    form fields and query parameters other than the image are ignored."""
    async with limiter.admit():
        upload = await read_upload(request, settings.max_upload_bytes, settings.request_timeout_s)
        return JSONResponse(await limiter.run(_detect, upload.data, settings, detector))


def _detect(data: bytes, settings: Any, detector: Any) -> dict[str, Any]:
    """Decode and detect (runs in the recognition pool)."""
    # loaded as /v1/recognize loads it (a large JPEG decoded reduced), so that both
    # routes find the same tiles in the same photo
    photo = load_photo(data, settings.max_pixels, settings.max_upload_bytes)
    found = detector(photo)
    return {
        "image_size": list(found.image_size or photo.size),
        "tiles": found.to_records(),
        "meta": found.meta,
    }

