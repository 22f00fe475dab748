"""Image → detector input: letterbox to a square, optional grey + autocontrast, NCHW float.

Coordinates: the *original* image is ``W × H`` pixels; the *input* is ``S × S`` pixels
(or any ``Sw × Sh`` rectangle, see :func:`input_size`). A letterbox scales by
``r = min(Sw / W, Sh / H)`` (keeping the aspect ratio) and pads evenly;
:class:`Letterbox` records ``r`` and the left/top padding so that boxes found in
input pixels map back with :meth:`Letterbox.to_original`.

>>> import numpy as np
>>> canvas, lb = letterbox(np.zeros((480, 640, 3), np.uint8), 320)
>>> canvas.shape, lb.scale, (lb.pad_x, lb.pad_y)
((320, 320, 3), 0.5, (0, 40))
>>> lb.to_original(np.array([[0, 40, 320, 280]], np.float32)).tolist()
[[0.0, 0.0, 640.0, 480.0]]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, cast

import cv2
import numpy as np
import numpy.typing as npt

InputMode = Literal["rgb", "gray"]


@dataclass(frozen=True)
class Letterbox:
    """How an original ``width × height`` image was placed into the model input."""

    #: Scale factor original → input (input pixels per original pixel).
    scale: float
    #: Padding on the left and top of the input, in input pixels.
    pad_x: int
    pad_y: int
    #: Original image size in pixels.
    width: int
    height: int
    #: Input ``(width, height)`` in pixels.
    size: tuple[int, int]

    def to_original(self, boxes: npt.NDArray[np.floating]) -> npt.NDArray[np.float32]:
        """Map ``(n, 4)`` xyxy boxes from input pixels to original pixels, clipped to the image."""
        out = np.asarray(boxes, np.float32).reshape(-1, 4).copy()
        out[:, [0, 2]] = (out[:, [0, 2]] - self.pad_x) / self.scale
        out[:, [1, 3]] = (out[:, [1, 3]] - self.pad_y) / self.scale
        out[:, [0, 2]] = np.clip(out[:, [0, 2]], 0, self.width)
        out[:, [1, 3]] = np.clip(out[:, [1, 3]], 0, self.height)
        return out

    def to_input(self, boxes: npt.NDArray[np.floating]) -> npt.NDArray[np.float32]:
        """Map ``(n, 4)`` xyxy boxes from original pixels to input pixels (inverse mapping)."""
        out = np.asarray(boxes, np.float32).reshape(-1, 4).copy()
        out[:, [0, 2]] = out[:, [0, 2]] * self.scale + self.pad_x
        out[:, [1, 3]] = out[:, [1, 3]] * self.scale + self.pad_y
        return out


def input_size(width: int, height: int, size: int, stride: int = 32) -> tuple[int, int]:
    """The smallest ``(Sw, Sh)`` input, multiples of ``stride``, holding a ``width × height``
    image scaled so that its long side is ``size`` (for models with a dynamic input shape:
    a 4:3 frame needs a 640 × 480 input instead of 640 × 640).

    >>> input_size(1280, 960, 640), input_size(960, 1280, 640), input_size(1000, 333, 640)
    ((640, 480), (480, 640), (640, 224))
    """
    r = size / max(width, height)
    return (
        max(stride, -(-round(width * r) // stride) * stride),
        max(stride, -(-round(height * r) // stride) * stride),
    )


def shrink(image: npt.NDArray[np.uint8], size: tuple[int, int]) -> npt.NDArray[np.uint8]:
    """``image`` resized to ``size = (width, height)`` px. A reduction averages pixel areas
    (as one ``INTER_AREA`` resize would) in two steps: halvings while the factor left is at
    least 2, then one area resize for the rest — about half the cost of a single area
    resize by a factor that is not an integer (1280 × 960 → 512 × 384: ~1.5 vs ~3–4 ms here)
    and the same detections (tune scenes F1 0.924 either way). An enlargement is bilinear.

    >>> shrink(np.zeros((960, 1280, 3), np.uint8), (512, 384)).shape
    (384, 512, 3)
    """
    w, h = size
    while image.shape[1] >= 2 * w and image.shape[0] >= 2 * h:
        half = (image.shape[1] // 2, image.shape[0] // 2)
        image = cast("npt.NDArray[np.uint8]",
                     cv2.resize(image, half, interpolation=cv2.INTER_AREA))
    interp = cv2.INTER_AREA if image.shape[1] > w else cv2.INTER_LINEAR
    return np.asarray(cv2.resize(image, (w, h), interpolation=interp), np.uint8)


def letterbox(
    image: npt.NDArray[np.uint8], size: int | tuple[int, int], pad_value: int = 114
) -> tuple[npt.NDArray[np.uint8], Letterbox]:
    """Resize ``image`` (``(H, W)`` or ``(H, W, C)`` uint8) into a ``size × size`` canvas
    (or ``size = (width, height)``).

    The aspect ratio is kept; the image is centred and the rest filled with ``pad_value``
    (114 grey as in ultralytics training). Returns the canvas and its :class:`Letterbox`;
    when the image already fills the canvas at its size, the canvas is ``image`` itself
    (callers read it, never write it).
    """
    h, w = image.shape[:2]
    if h <= 0 or w <= 0:
        raise ValueError(f"cannot letterbox an empty image of {w}×{h} pixels")
    sw, sh = (size, size) if isinstance(size, int) else size
    r = min(sw / w, sh / h)
    new_w = max(1, min(sw, round(w * r)))
    new_h = max(1, min(sh, round(h * r)))
    pad_x = (sw - new_w) // 2
    pad_y = (sh - new_h) // 2
    resized = shrink(image, (new_w, new_h)) if (new_w, new_h) != (w, h) else image
    shape = (sh, sw, *image.shape[2:])
    if (new_w, new_h) == (sw, sh):  # fills the input (a 4:3 frame at a 4:3 size): no pad
        canvas = resized.reshape(shape)
    else:
        canvas = np.full(shape, pad_value, np.uint8)
        canvas[pad_y : pad_y + new_h, pad_x : pad_x + new_w] = resized.reshape(
            (new_h, new_w, *image.shape[2:])
        )
    # Exact per-axis scales differ by rounding; use the mean so both axes map back well.
    scale = (new_w / w + new_h / h) / 2
    return canvas, Letterbox(scale, pad_x, pad_y, w, h, (sw, sh))


def autocontrast(grey: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
    """Stretch grey levels linearly so the darkest pixel becomes 0 and the brightest 255.

    >>> autocontrast(np.array([[50, 100, 150]], np.uint8)).tolist()
    [[0, 128, 255]]
    """
    lo, hi = int(grey.min()), int(grey.max())
    if hi <= lo:
        return grey
    lut = np.clip(np.rint((np.arange(256) - lo) * 255.0 / (hi - lo)), 0, 255).astype(np.uint8)
    return np.asarray(lut[grey], np.uint8)


def prepare_input(
    image: npt.NDArray[np.uint8],
    size: int | tuple[int, int],
    *,
    mode: InputMode = "rgb",
    pad_value: int = 114,
    use_autocontrast: bool = False,
) -> tuple[npt.NDArray[np.float32], Letterbox]:
    """BGR ``(H, W, 3)`` uint8 image → detector input ``(1, 3, Sh, Sw)`` float32 in 0..1
    (``size`` is ``S`` for a square input or ``(Sw, Sh)``).

    ``mode="gray"`` converts to grey (optionally with :func:`autocontrast`, applied to the
    image before padding) and repeats it on the three channels; ``"rgb"`` swaps BGR → RGB.
    """
    # Each channel is scaled from a contiguous plane (cv2.split), which is about a third
    # faster than scaling the interleaved canvas through a strided view, same values.
    if mode == "gray":
        grey = np.asarray(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), np.uint8)
        if use_autocontrast:
            grey = autocontrast(grey)
        canvas, lb = letterbox(grey, size, pad_value)
        planes: tuple[npt.NDArray[np.uint8], ...] = (canvas,) * 3
    elif mode == "rgb":
        canvas, lb = letterbox(image, size, pad_value)
        planes = tuple(np.asarray(p, np.uint8) for p in cv2.split(canvas))[::-1]  # BGR→RGB
    else:
        raise ValueError(f"unknown detector input mode {mode!r}; expected 'rgb' or 'gray'")
    tensor = np.empty((1, 3, lb.size[1], lb.size[0]), np.float32)
    for channel, plane in enumerate(planes):
        np.multiply(plane, np.float32(1 / 255), out=tensor[0, channel], casting="unsafe")
    return tensor, lb


def crop_batch(
    image: npt.NDArray[np.uint8],
    boxes: npt.NDArray[np.floating],
    size: int,
    expand: float = 0.10,
) -> npt.NDArray[np.float32]:
    """Crops for the tile classifier: ``(B, 3, size, size)`` float32 RGB in 0..1.

    Each xyxy box (original pixels) grows by ``expand`` of its width/height on every side
    (clipped to the image) and is resized to a square without keeping the ratio.
    """
    h, w = image.shape[:2]
    # resized into one uint8 batch, then scaled to float in one step (half the time of
    # scaling crop by crop for a frame's 20-30 tiles; same values)
    resized = np.zeros((len(boxes), size, size, 3), np.uint8)
    for i, (x1, y1, x2, y2) in enumerate(np.asarray(boxes, np.float32)):
        dx, dy = (x2 - x1) * expand, (y2 - y1) * expand
        a = max(0, int(np.floor(x1 - dx)))
        b = max(0, int(np.floor(y1 - dy)))
        c = min(w, int(np.ceil(x2 + dx)))
        d = min(h, int(np.ceil(y2 + dy)))
        if c > a and d > b:  # an empty cut stays black
            resized[i] = cv2.resize(image[b:d, a:c], (size, size),
                                    interpolation=cv2.INTER_AREA)
    out = np.empty((len(boxes), 3, size, size), np.float32)
    np.multiply(resized[..., ::-1].transpose(0, 3, 1, 2), np.float32(1 / 255), out=out,
                casting="unsafe")
    return out
