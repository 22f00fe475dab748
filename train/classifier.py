"""Train the tile crop classifier (43 codes × 4 rotations) and export it to ONNX.

Crops are cut exactly as the inference side cuts them (:func:`vision.preprocess.crop_batch`:
box grown 10 % per side, squashed to ``size``², RGB 0..1), from

- the prepared real photos (``datasets/build/hk-photos``, train split): code known,
  rotation unknown (their loss is the code's marginal over the 4 rotations);
- synthetic scenes (``datasets/generated/synth-train``): code and rotation from the
  scene's ``truth/*.json``.

Augmentation: each tile is cut twice with its box jittered (±6 % shift, ±8 % size);
every batch is turned by a random right angle (the rotation label turns with it), and
its brightness/contrast jittered. Never mirrored. Output ``[B, 43*4]`` logits, index
``class * 4 + rotation_index`` (rotation clockwise 0/90/180/270 as the tile lies).

usage: .venv-train/bin/python train/classifier.py --minutes 15 [--size 48] \
           [--out models/tilecam-crops.onnx]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import cv2  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

from vision.classes import CLASSES, class_id  # noqa: E402
from vision.preprocess import crop_batch  # noqa: E402

ROT = 4
UNKNOWN = -1


def make_net(n_classes: int = len(CLASSES)) -> nn.Module:
    def block(cin: int, cout: int, stride: int) -> list[nn.Module]:
        return [
            nn.Conv2d(cin, cout, 3, stride, 1, bias=False),
            nn.BatchNorm2d(cout),
            nn.ReLU(inplace=True),
        ]

    return nn.Sequential(
        *block(3, 24, 2),
        *block(24, 48, 1),
        *block(48, 64, 2),
        *block(64, 96, 1),
        *block(96, 128, 2),
        *block(128, 192, 1),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Dropout(0.1),
        nn.Linear(192, n_classes * ROT),
    )


def _jitter(boxes: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    w = boxes[:, 2] - boxes[:, 0]
    h = boxes[:, 3] - boxes[:, 1]
    cx = (boxes[:, 0] + boxes[:, 2]) / 2 + rng.uniform(-0.06, 0.06, len(boxes)) * w
    cy = (boxes[:, 1] + boxes[:, 3]) / 2 + rng.uniform(-0.06, 0.06, len(boxes)) * h
    s = rng.uniform(0.92, 1.08, len(boxes))
    return np.stack([cx - w * s / 2, cy - h * s / 2, cx + w * s / 2, cy + h * s / 2], 1)


def yolo_crops(
    folder: Path, size: int, copies: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Crops from a YOLO folder (images/ + labels/ with codes ids): rotation unknown."""
    xs, ys = [], []
    labels_dir = Path(str(folder).replace("/images", "/labels"))
    for image_path in sorted(folder.iterdir()):
        label_path = labels_dir / (image_path.stem + ".txt")
        if not label_path.is_file() or not label_path.stat().st_size:
            continue
        rows = np.loadtxt(label_path, ndmin=2)
        image = cv2.imread(str(image_path))
        h, w = image.shape[:2]
        cx, cy, bw, bh = rows[:, 1] * w, rows[:, 2] * h, rows[:, 3] * w, rows[:, 4] * h
        boxes = np.stack([cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2], 1)
        for k in range(copies):
            b = boxes if k == 0 else _jitter(boxes, rng)
            xs.append((crop_batch(image, b, size) * 255).astype(np.uint8))
            ys.append(rows[:, 0].astype(np.int64))
    x = np.concatenate(xs)
    y = np.concatenate(ys)
    return x, y, np.full(len(y), UNKNOWN, np.int64)


def synth_crops(
    folder: Path, size: int, copies: int, rng: np.random.Generator, limit: int = 0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Crops from a synthetic set with truth JSON: code and rotation known."""
    xs, ys, rs = [], [], []
    truths = sorted((folder / "truth").glob("*.json"))
    if limit:
        truths = truths[:limit]
    for truth_path in truths:
        truth = json.loads(truth_path.read_text())
        tiles = truth["tiles"]
        if not tiles:
            continue
        image = cv2.imread(str(folder / truth["image"]))  # "images/NNNNNN.jpg"
        if image is None:
            continue
        boxes = np.array([t["box"] for t in tiles], np.float64)
        ids = np.array([class_id(t["label"]) for t in tiles], np.int64)
        rots = np.array([(int(t["rotation"]) % 360) // 90 for t in tiles], np.int64)
        for k in range(copies):
            b = boxes if k == 0 else _jitter(boxes, rng)
            xs.append((crop_batch(image, b, size) * 255).astype(np.uint8))
            ys.append(ids)
            rs.append(rots)
    return np.concatenate(xs), np.concatenate(ys), np.concatenate(rs)


def turn(x: torch.Tensor, r: torch.Tensor, k: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Turn crops ``k`` right angles clockwise; known rotations turn with them."""
    x = torch.rot90(x, -k, (2, 3))  # negative = clockwise in image coordinates
    r = torch.where(r >= 0, (r + k) % ROT, r)
    return x, r


def loss_fn(logits: torch.Tensor, y: torch.Tensor, r: torch.Tensor) -> torch.Tensor:
    """Joint CE where the rotation is known, the code's marginal CE where it is not."""
    logp = F.log_softmax(logits, 1).view(len(logits), -1, ROT)
    known = r >= 0
    joint = logp[torch.arange(len(y)), y, r.clamp(min=0)]
    marginal = torch.logsumexp(logp[torch.arange(len(y)), y], 1)
    return -torch.where(known, joint, marginal).mean()


@torch.no_grad()
def evaluate(net: nn.Module, x: np.ndarray, y: np.ndarray, r: np.ndarray) -> tuple[float, float]:
    """Code accuracy and (where known) rotation accuracy."""
    net.eval()
    codes, rots = [], []
    for i in range(0, len(x), 512):
        logits = net(torch.from_numpy(x[i : i + 512]).float().div_(255))
        p = F.softmax(logits, 1).view(len(logits), -1, ROT)
        codes.append(p.sum(2).argmax(1).numpy())
        rots.append(p.sum(1).argmax(1).numpy())
    code = np.concatenate(codes)
    rot = np.concatenate(rots)
    known = r >= 0
    rot_acc = float((rot[known] == r[known]).mean()) if known.any() else float("nan")
    return float((code == y).mean()), rot_acc


def load_folded(net: nn.Module, onnx_path: Path) -> None:
    """Start from an exported model: its convs carry the folded batch norms (BN = identity)."""
    import onnx
    from onnx import numpy_helper

    weights = [numpy_helper.to_array(t) for t in onnx.load(str(onnx_path)).graph.initializer]
    convs = [w for w in weights if w.ndim == 4]
    conv_bias = [w for w in weights if w.ndim == 1 and len(w) != len(CLASSES) * ROT]
    linear_w = next(w for w in weights if w.ndim == 2)
    linear_b = next(w for w in weights if w.ndim == 1 and len(w) == len(CLASSES) * ROT)
    layers = list(net)
    conv_layers = [m for m in layers if isinstance(m, nn.Conv2d)]
    bn_layers = [m for m in layers if isinstance(m, nn.BatchNorm2d)]
    with torch.no_grad():
        for conv, bn, w, b in zip(conv_layers, bn_layers, convs, conv_bias, strict=True):
            conv.weight.copy_(torch.from_numpy(w))
            bn.weight.fill_(1.0)
            bn.bias.copy_(torch.from_numpy(b))
            bn.running_mean.zero_()
            bn.running_var.fill_(1.0 - bn.eps)
        linear = next(m for m in layers if isinstance(m, nn.Linear))
        linear.weight.copy_(torch.from_numpy(linear_w))
        linear.bias.copy_(torch.from_numpy(linear_b))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--photos", type=Path, default=REPO / "datasets/build/hk-photos")
    ap.add_argument("--synth", type=Path, default=REPO / "datasets/generated/synth-train")
    ap.add_argument("--synth-val", type=Path, default=REPO / "datasets/generated/synth-val-heldout")
    ap.add_argument("--synth-limit", type=int, default=800, help="synthetic scenes used (0 = all)")
    ap.add_argument("--size", type=int, default=48)
    ap.add_argument("--minutes", type=float, default=15.0, help="training time budget")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--out", type=Path, default=REPO / "models/tilecam-crops.onnx")
    ap.add_argument("--log", type=Path, default=REPO / "runs/classifier.json")
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument(
        "--init", type=Path, help="continue from an exported classifier ONNX (BN folded in)"
    )
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    random.seed(0)
    rng = np.random.default_rng(0)
    t0 = time.time()

    hx, hy, hr = yolo_crops(args.photos / "images" / "train", args.size, 2, rng)
    sx, sy, sr = synth_crops(args.synth, args.size, 2, rng, args.synth_limit)
    x = np.concatenate([hx, sx])
    y = np.concatenate([hy, sy])
    r = np.concatenate([hr, sr])
    vx, vy, vr = yolo_crops(args.photos / "images" / "val", args.size, 1, rng)
    wx, wy, wr = synth_crops(args.synth_val, args.size, 1, rng)
    print(
        f"train crops: {len(hx)} real + {len(sx)} synthetic; val: {len(vx)} real, "
        f"{len(wx)} held-out synthetic ({time.time() - t0:.0f}s)",
        flush=True,
    )

    net = make_net()
    if args.init:
        load_folded(net, args.init)
    steps_per_epoch = (len(x) + 255) // 256
    opt = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=5e-4)
    budget = args.minutes * 60
    t_train = time.time()
    history = []
    best = (-1.0, None)
    epoch = 0
    while time.time() - t_train < budget:
        epoch += 1
        net.train()
        order = torch.randperm(len(x))
        for step, i in enumerate(range(0, len(x), 256)):
            frac = min(1.0, (time.time() - t_train) / budget)
            for g in opt.param_groups:  # cosine decay over the time budget
                g["lr"] = args.lr * (0.05 + 0.95 * 0.5 * (1 + np.cos(np.pi * frac)))
            idx = order[i : i + 256].numpy()
            xb = torch.from_numpy(x[idx]).float().div_(255)
            rb = torch.from_numpy(r[idx])
            xb, rb = turn(xb, rb, random.randrange(ROT))
            gain = 0.75 + 0.5 * torch.rand(len(xb), 1, 1, 1)
            bias = 0.1 * (torch.rand(len(xb), 1, 1, 1) - 0.5)
            xb = (xb * gain + bias).clamp_(0, 1)
            loss = loss_fn(net(xb), torch.from_numpy(y[idx]), rb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            if time.time() - t_train > budget and step > steps_per_epoch // 3:
                break
        real_acc, _ = evaluate(net, vx, vy, vr)
        synth_acc, synth_rot = evaluate(net, wx, wy, wr)
        row = {
            "epoch": epoch,
            "loss": round(float(loss), 4),
            "real_val_code_acc": round(real_acc, 4),
            "heldout_synth_code_acc": round(synth_acc, 4),
            "heldout_synth_rotation_acc": round(synth_rot, 4),
            "seconds": round(time.time() - t0),
        }
        history.append(row)
        print(row, flush=True)
        if real_acc > best[0]:
            best = (real_acc, {k: v.clone() for k, v in net.state_dict().items()})
    net.load_state_dict(best[1])
    net.eval()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(
        net,
        torch.zeros(1, 3, args.size, args.size),
        str(args.out),
        input_names=["crops"],
        output_names=["logits"],
        dynamic_axes={"crops": {0: "batch"}, "logits": {0: "batch"}},
        opset_version=17,
        dynamo=False,
    )
    args.log.parent.mkdir(parents=True, exist_ok=True)
    args.log.write_text(json.dumps({"size": args.size, "history": history}, indent=1))
    print(f"wrote {args.out} (best real val code accuracy {best[0]:.4f})", flush=True)


if __name__ == "__main__":
    main()
