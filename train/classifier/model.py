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

    ``width`` is the channel count of the first stage (doubling per stage).
    """

    def __init__(self, n_classes: int, width: int = 32) -> None:
        super().__init__()
        w = width
        self.features = nn.Sequential(
            _block(3, w, 2),  # S/2
            _block(w, 2 * w, 2),  # S/4
            _block(2 * w, 2 * w, 1),
            _block(2 * w, 4 * w, 2),  # S/8
            _block(4 * w, 4 * w, 1),
            _block(4 * w, 8 * w, 2),  # S/16
            _block(8 * w, 8 * w, 1),
        )
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.drop = nn.Dropout(0.2)
        self.head = nn.Linear(8 * w, n_classes * N_ROTATIONS)
        self.register_buffer("mean", torch.tensor([0.5, 0.5, 0.5]).view(1, 3, 1, 1))
        self.register_buffer("std", torch.tensor([0.25, 0.25, 0.25]).view(1, 3, 1, 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """``x (B, 3, S, S)`` in 0..1 → logits ``(B, n_classes * 4)``."""
        x = (x - self.mean) / self.std
        x = self.pool(self.features(x)).flatten(1)
        return self.head(self.drop(x))
