"""The crop classifier network: a small CNN from a tile crop to class × rotation logits.

Input ``(B, 3, S, S)`` float RGB in 0..1 (the crop :func:`vision.preprocess.crop_batch`
makes); output ``(B, n_classes * 4)`` logits, index ``class * 4 + rotation_index`` with
rotations 0/90/180/270 clockwise as the tile lies in the image (the manifest contract in
``models/README.md``). Needs torch (``.venv-train``).
"""

from __future__ import annotations

import torch
from torch import nn

N_ROTATIONS = 4


def _block(c_in: int, c_out: int, stride: int) -> nn.Sequential:
    """3×3 conv → batch norm → ReLU (``stride`` 2 halves the side)."""
    return nn.Sequential(
        nn.Conv2d(c_in, c_out, 3, stride=stride, padding=1, bias=False),
        nn.BatchNorm2d(c_out),
        nn.ReLU(inplace=True),
    )


class CropNet(nn.Module):
    """Conv-BN-ReLU stages (sides S → S/16; a stride-1 block at S/4, S/8 and S/16),
    global average pool, dropout, linear head.

    ``width`` is the channel count of the first stage (doubling per stage);
    ``stem_stride`` 1 keeps the first stage at the crop's full side (sides S → S/8, four
    times the work) for glyphs a few pixels wide. With
    ``factors`` ``(a, b)`` (``a * b == n_classes``) the head is factorised: class
    ``i * b + j`` gets the logit ``A[i] + B[j]`` (per rotation), two small heads whose
    parts each learn from every class sharing them — the bonus reader's season/flower
    group and its number 1–4 (:func:`factor_head_from`). The output is the same
    ``(B, n_classes * 4)`` either way, so the ONNX contract does not change.
    """

    def __init__(
        self, n_classes: int, width: int = 32, factors: tuple[int, int] | None = None,
        stem_stride: int = 2,
    ) -> None:
        super().__init__()
        if factors is not None and factors[0] * factors[1] != n_classes:
            raise ValueError(f"factors {factors} do not multiply to {n_classes} classes")
        self.factors = factors
        w = width
        self.features = nn.Sequential(
            _block(3, w, stem_stride),  # S/2 (S with stem_stride 1: small glyphs kept)
            _block(w, 2 * w, 2),  # S/4
            _block(2 * w, 2 * w, 1),
            _block(2 * w, 4 * w, 2),  # S/8
            _block(4 * w, 4 * w, 1),
            _block(4 * w, 8 * w, 2),  # S/16
            _block(8 * w, 8 * w, 1),
        )
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.drop = nn.Dropout(0.2)
        if factors is None:
            self.head = nn.Linear(8 * w, n_classes * N_ROTATIONS)
        else:
            self.head_a = nn.Linear(8 * w, factors[0] * N_ROTATIONS)
            self.head_b = nn.Linear(8 * w, factors[1] * N_ROTATIONS)
        self.register_buffer("mean", torch.tensor([0.5, 0.5, 0.5]).view(1, 3, 1, 1))
        self.register_buffer("std", torch.tensor([0.25, 0.25, 0.25]).view(1, 3, 1, 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """``x (B, 3, S, S)`` in 0..1 → logits ``(B, n_classes * 4)``."""
        x = (x - self.mean) / self.std
        x = self.drop(self.pool(self.features(x)).flatten(1))
        if self.factors is None:
            return self.head(x)
        a, b = self.factors
        la = self.head_a(x).view(-1, a, 1, N_ROTATIONS)
        lb = self.head_b(x).view(-1, 1, b, N_ROTATIONS)
        return (la + lb).reshape(-1, a * b * N_ROTATIONS)


def factor_head_from(
    weight: torch.Tensor, bias: torch.Tensor, factors: tuple[int, int]
) -> dict[str, torch.Tensor]:
    """The factorised heads (``head_a``/``head_b`` weights and biases) nearest, in least
    squares, to a full head ``weight (a*b*4, C)``, ``bias (a*b*4,)``: row/column means of
    the class grid per rotation, so a reader fine-tuned from a full one starts close to
    it."""
    a, b = factors
    out: dict[str, torch.Tensor] = {}
    for name, t in (("weight", weight), ("bias", bias)):
        grid = t.reshape(a, b, N_ROTATIONS, *t.shape[1:])
        mean = grid.mean(dim=(0, 1), keepdim=True)
        out[f"head_a.{name}"] = (grid.mean(dim=1, keepdim=True) - mean / 2).reshape(
            a * N_ROTATIONS, *t.shape[1:])
        out[f"head_b.{name}"] = (grid.mean(dim=0, keepdim=True) - mean / 2).reshape(
            b * N_ROTATIONS, *t.shape[1:])
    return out


class StripNet(nn.Module):
    """The numeral reader (:mod:`vision.numeral`): CropNet's stages over a top strip
    ``(B, 3, H, W)`` float RGB in 0..1 (any size; 48 × 80 served), global average pool,
    dropout and a linear head to ``n_answers`` logits (numerals 1–4 and *none*). No
    rotation output: the strip is cut upright."""

    def __init__(self, n_answers: int = 5, width: int = 16) -> None:
        super().__init__()
        w = width
        self.features = nn.Sequential(
            _block(3, w, 2),
            _block(w, 2 * w, 1),  # glyph strokes kept at half the strip's side
            _block(2 * w, 2 * w, 2),
            _block(2 * w, 4 * w, 1),
            _block(4 * w, 4 * w, 2),
            _block(4 * w, 8 * w, 1),
            _block(8 * w, 8 * w, 2),
        )
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.drop = nn.Dropout(0.2)
        self.head = nn.Linear(8 * w, n_answers)
        self.register_buffer("mean", torch.tensor([0.5, 0.5, 0.5]).view(1, 3, 1, 1))
        self.register_buffer("std", torch.tensor([0.25, 0.25, 0.25]).view(1, 3, 1, 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """``x (B, 3, H, W)`` in 0..1 → logits ``(B, n_answers)``."""
        x = (x - self.mean) / self.std
        return self.head(self.drop(self.pool(self.features(x)).flatten(1)))
