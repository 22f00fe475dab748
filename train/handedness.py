"""Learn which hk-photos copies are mirrored: a tile-crop handedness model, fitted by EM.

Known: within one source photo (stem) the copies fall into two parity groups
(train/parities.py, SIFT + RANSAC); one group is mirrored. Unknown: which one. A small
CNN on grey tile crops learns "does this glyph look mirrored?" from the current guess
(every copy's crops, plus their mirror images with the opposite answer, at random right
angles: handedness does not change under rotation). The guess for each stem is then
re-voted from the CNN's logits over all crops of all its copies. Cross-fitting (the CNN
that votes on a stem never trained on it) keeps the CNN from memorising the guess.
The first guess comes from a weak cue (train/detector_cue.py); EM sharpens it.

Writes the stem decisions (JSON) and the final CNN as ONNX (input ``[B,1,48,48]`` grey
0..1, output ``[B,1]`` mirrored-logit), read by vision.data.photos.CropHandednessScorer.

usage: .venv-train/bin/python train/handedness.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cv2
import numpy as np
import torch
from torch import nn

from vision.data.photos import (
    group_copies,
    read_class_names,
    read_labels,
    tile_crops,
)

SIZE = 48


def make_net() -> nn.Module:
    def block(cin: int, cout: int) -> list[nn.Module]:
        return [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU()]

    return nn.Sequential(
        *block(1, 16),
        nn.MaxPool2d(2),
        *block(16, 32),
        nn.MaxPool2d(2),
        *block(32, 64),
        nn.MaxPool2d(2),
        *block(64, 96),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Linear(96, 1),
    )


def augment(x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Random right-angle rotation (keeps the answer) and mirror (flips the answer)."""
    k = random.randrange(4)
    x = torch.rot90(x, k, (2, 3))
    flip = torch.rand(len(x)) < 0.5
    x = torch.where(flip[:, None, None, None], torch.flip(x, (3,)), x)
    y = torch.where(flip, 1 - y, y)
    gain = 0.7 + 0.6 * torch.rand(len(x), 1, 1, 1)
    return (x * gain).clamp(0, 1), y


def fit(net: nn.Module, crops: np.ndarray, labels: np.ndarray, epochs: int) -> None:
    opt = torch.optim.AdamW(net.parameters(), lr=2e-3, weight_decay=1e-4)
    loss_fn = nn.BCEWithLogitsLoss()
    x_all = torch.from_numpy(crops).float().div_(255).unsqueeze(1)
    y_all = torch.from_numpy(labels).float()
    net.train()
    for _ in range(epochs):
        order = torch.randperm(len(x_all))
        for i in range(0, len(order), 256):
            idx = order[i : i + 256]
            x, y = augment(x_all[idx], y_all[idx])
            loss = loss_fn(net(x).squeeze(1), y)
            opt.zero_grad()
            loss.backward()
            opt.step()


@torch.no_grad()
def predict(net: nn.Module, crops: np.ndarray) -> np.ndarray:
    """Mirrored-logit per crop, averaged over the 4 right-angle rotations."""
    net.eval()
    x_all = torch.from_numpy(crops).float().div_(255).unsqueeze(1)
    out = []
    for i in range(0, len(x_all), 1024):
        x = x_all[i : i + 1024]
        out.append(sum(net(torch.rot90(x, k, (2, 3))).squeeze(1) for k in range(4)) / 4)
    return torch.cat(out).numpy() if out else np.zeros(0, np.float32)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", default="../shared/datasets/hk-photos")
    ap.add_argument("--parity", default="datasets/build/parity.json")
    ap.add_argument("--cue", default="datasets/build/detector-cue.json")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--out", default="datasets/build/handedness.json")
    ap.add_argument("--onnx", default="models/handedness.onnx")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    random.seed(0)
    torch.manual_seed(0)

    src = Path(args.src)
    names = read_class_names(src)
    groups = group_copies(src / "images")
    parity = {k: tuple(v) for k, v in json.loads(Path(args.parity).read_text()).items()}
    cue = json.loads(Path(args.cue).read_text()) if Path(args.cue).is_file() else {}
    stems = sorted(groups)

    t0 = time.time()
    crop_list, owner = [], []  # owner: image index per crop
    images: list[tuple[str, str, int]] = []  # (stem, name, parity)
    for stem in stems:
        for path in groups[stem]:
            labels = read_labels(src / "labels" / (path.stem + ".txt"), names)
            crops = tile_crops(cv2.imread(str(path)), labels, SIZE)
            crop_list.append(crops)
            owner += [len(images)] * len(crops)
            images.append((stem, path.name, int(parity[path.name][0])))
    crops_all = np.concatenate(crop_list)
    owner_arr = np.array(owner)
    img_parity = np.array([p for _, _, p in images])
    img_stem = np.array([stems.index(s) for s, _, _ in images])
    took = time.time() - t0
    print(f"{len(crops_all)} crops from {len(images)} images in {took:.0f}s", flush=True)

    # first guess: group0_mirrored per stem from the weak cue (random where none)
    rng = np.random.default_rng(0)
    g0m = rng.random(len(stems)) < 0.5
    seeded = 0
    for i, (_stem, name, p) in enumerate(images):
        if name in cue and cue[name] != 0.0:
            looks_real = cue[name] > 0
            # the copy is real → its group is un-mirrored
            g0m[img_stem[i]] = (p == 0) != looks_real
            seeded += 1
    print(f"seeded {seeded} of {len(stems)} stems from the cue", flush=True)

    fold = np.array([i % 2 for i in range(len(stems))])
    rng.shuffle(fold)
    votes = np.zeros(len(stems))
    for rnd in range(args.rounds):
        img_mirrored = np.where(img_parity == 0, g0m[img_stem], ~g0m[img_stem])
        crop_label = img_mirrored[owner_arr].astype(np.float32)
        crop_fold = fold[img_stem[owner_arr]]
        logits = np.zeros(len(crops_all), np.float32)
        for f in (0, 1):
            net = make_net()
            train_idx = np.flatnonzero(crop_fold != f)
            fit(net, crops_all[train_idx], crop_label[train_idx], args.epochs)
            test_idx = np.flatnonzero(crop_fold == f)
            logits[test_idx] = predict(net, crops_all[test_idx])
        img_logit = np.bincount(owner_arr, logits, len(images)) / np.maximum(
            np.bincount(owner_arr, minlength=len(images)), 1
        )
        signed = np.where(img_parity == 0, img_logit, -img_logit)
        votes = np.bincount(img_stem, signed, len(stems))
        new = votes > 0
        changed = int((new != g0m).sum())
        g0m = new
        agree = float(np.mean((img_logit > 0) == img_mirrored))
        print(
            f"round {rnd + 1}: {changed} stems changed; copies agreeing with their stem "
            f"guess {agree:.3f}; |vote| median {np.median(np.abs(votes)):.2f} "
            f"({time.time() - t0:.0f}s)",
            flush=True,
        )
        if changed == 0 and rnd > 0:
            break

    decisions = {
        stems[s]: {"group0_mirrored": bool(g0m[s]), "vote": round(float(votes[s]), 3)}
        for s in range(len(stems))
    }
    mirrored = {
        name: bool(g0m[img_stem[i]] if p == 0 else not g0m[img_stem[i]])
        for i, (_, name, p) in enumerate(images)
    }
    Path(args.out).write_text(json.dumps({"stems": decisions, "copies": mirrored}, indent=1))
    print(f"wrote {args.out}; mirrored copies: {sum(mirrored.values())} of {len(mirrored)}")

    # final model on all stems, for vision.data.photos.CropHandednessScorer
    img_mirrored = np.where(img_parity == 0, g0m[img_stem], ~g0m[img_stem])
    net = make_net()
    fit(net, crops_all, img_mirrored[owner_arr].astype(np.float32), args.epochs + 1)
    net.eval()
    torch.onnx.export(
        net,
        torch.zeros(1, 1, SIZE, SIZE),
        args.onnx,
        input_names=["crops"],
        output_names=["mirrored_logit"],
        dynamic_axes={"crops": {0: "batch"}, "mirrored_logit": {0: "batch"}},
        opset_version=17,
        dynamo=False,
    )
    print(f"wrote {args.onnx} ({time.time() - t0:.0f}s)")


if __name__ == "__main__":
    main()
