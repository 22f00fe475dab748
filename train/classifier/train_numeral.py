"""Train the numeral reader (:mod:`vision.numeral`) on ``numeral_strips.py`` files; export it.

usage: .venv-train/bin/python train/classifier/train_numeral.py --train A.npz [--train B.npz] \
           [--val V.npz ...] --out runs/numeral/NAME [--steps 4000] [--width 16] [--seed 0] \
           [--init runs/numeral/OTHER/model.pt]
       .venv-train/bin/python train/classifier/train_numeral.py \
           --export runs/numeral/NAME/model.pt --onnx models/tiles-numeral.onnx

Cross-entropy over the five answers (numerals 1-4, *none*), AdamW with a cosine schedule,
batches of ``--batch`` drawn evenly from each ``--train`` file (so a small file of real
sets weighs as much as a big one of procedural styles). Augmented on the fly: colour
channels swapped, strokes thickened / thinned / softened (``train.py``'s ``restyle``), a
small shift and scale, a loss of resolution, contrast, brightness, grey and noise — never
turned or mirrored (the strip is upright by construction). Each ``--val`` file is read at
every ``--eval-every`` steps: accuracy on upright strips whose label is a numeral (the
figure that matters), and on *none* strips. Writes ``model.pt`` (weights, width, strip
size) and ``log.jsonl`` in ``--out``; needs torch (``.venv-train``).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent))
from model import StripNet

from train import restyle

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from vision.numeral import numeral_odds

NONE = 4


class Strips:
    """A ``numeral_strips.py`` file in memory."""

    def __init__(self, path: Path) -> None:
        with np.load(path) as d:
            self.strips = d["strips"]
            self.labels = d["labels"].astype(np.int64)
            self.upright = d["upright"]
        self.name = path.stem

    def __len__(self) -> int:
        return len(self.labels)


def augment(x: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    """Random look changes of a float batch ``(B, 3, H, W)`` in 0..1 (no turn, no mirror)."""
    b, _, h, w = x.shape
    out = restyle(x, 0.3, gen)
    move = torch.rand(b, generator=gen) < 0.6
    if move.any():
        n = int(move.sum())
        scale = 0.9 + torch.rand(n, generator=gen) * 0.25
        shift = (torch.rand(n, 2, generator=gen) * 2 - 1) * 0.1
        angle = (torch.rand(n, generator=gen) * 2 - 1) * math.radians(4)
        cos, sin = torch.cos(angle) / scale, torch.sin(angle) / scale
        theta = torch.stack([torch.stack([cos, -sin * h / w, shift[:, 0]], 1),
                             torch.stack([sin * w / h, cos, shift[:, 1]], 1)], 1)
        grid = F.affine_grid(theta, [n, 3, h, w], align_corners=False)
        out = out.clone()
        out[move] = F.grid_sample(out[move], grid, padding_mode="border", align_corners=False)
    low = torch.nonzero(torch.rand(b, generator=gen) < 0.25)[:, 0].tolist()
    for i in low:
        f = 0.55 + 0.4 * torch.rand(1, generator=gen).item()
        small = F.interpolate(out[i:i + 1], size=(max(6, int(h * f)), max(8, int(w * f))),
                              mode="area")
        out[i] = F.interpolate(small, size=(h, w), mode="bilinear", align_corners=False)[0]
    contrast = torch.empty(b, 1, 1, 1).uniform_(0.6, 1.3, generator=gen)
    bright = torch.empty(b, 1, 1, 1).uniform_(-0.15, 0.15, generator=gen)
    gain = torch.empty(b, 3, 1, 1).uniform_(0.85, 1.15, generator=gen)
    mean = out.mean(dim=(1, 2, 3), keepdim=True)
    out = ((out - mean) * contrast + mean + bright) * gain
    gray = torch.rand(b, generator=gen) < 0.1
    if gray.any():
        out[gray] = out[gray].mean(dim=1, keepdim=True).expand(-1, 3, -1, -1)
    out = out + torch.randn(out.shape, generator=gen) * 0.02
    return out.clamp_(0, 1)


@torch.no_grad()
def evaluate(model: StripNet, data: Strips) -> dict[str, float]:
    """Accuracy on upright numeral strips (``numeral``), on *none* strips (``none``), and
    the numeral strips' mean probability of the right numeral among the four
    (``p_right``, what the pipeline's fusion uses)."""
    model.eval()
    preds, probs = [], []
    for s in range(0, len(data), 512):
        x = torch.from_numpy(data.strips[s:s + 512]).float().div_(255)
        p = torch.softmax(model(x), dim=1)
        preds.append(p.argmax(1).numpy())
        probs.append(p.numpy())
    model.train()
    pred, prob = np.concatenate(preds), np.concatenate(probs)
    num = (data.labels < NONE) & data.upright
    none = data.labels == NONE
    odds = numeral_odds(prob[:, None], np.ones((len(prob), 1)))  # as served, one turn
    right = odds[num, data.labels[num]] / np.maximum(odds[num].sum(1), 1e-9)
    return {
        "numeral": float((pred[num] == data.labels[num]).mean()) if num.any() else float("nan"),
        "numeral_by_odds": float((odds[num].argmax(1) == data.labels[num]).mean())
        if num.any() else float("nan"),
        "p_right": float(right.mean()) if num.any() else float("nan"),
        "none": float((pred[none] == NONE).mean()) if none.any() else float("nan"),
        "n": int(num.sum()),
    }


def export(weights: Path, out: Path) -> None:
    """ONNX of a checkpoint: ``input`` ``(B, 3, H, W)``, ``logits`` ``(B, 5)``, checked
    against torch."""
    import onnxruntime as ort

    state = torch.load(weights, map_location="cpu")
    model = StripNet(5, int(state["width"]))
    model.load_state_dict(state["model"])
    model.eval()
    h, w = state["size"]
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(model, (torch.rand(2, 3, h, w),), str(out), input_names=["input"],
                      output_names=["logits"],
                      dynamic_axes={"input": {0: "batch"}, "logits": {0: "batch"}},
                      opset_version=17, dynamo=False)
    x = torch.rand(5, 3, h, w)
    with torch.no_grad():
        ref = model(x).numpy()
    got = ort.InferenceSession(str(out), providers=["CPUExecutionProvider"]).run(
        None, {"input": x.numpy()})[0]
    diff = float(np.abs(ref - got).max())
    print(f"{out}: {out.stat().st_size / 1e6:.2f} MB, output {got.shape}, max diff {diff:.2e}")
    if got.shape != (5, 5) or diff > 1e-3:
        sys.exit("export check failed")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--train", type=Path, action="append", default=[])
    ap.add_argument("--val", type=Path, action="append", default=[])
    ap.add_argument("--out", type=Path)
    ap.add_argument("--steps", type=int, default=4000)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--width", type=int, default=16)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--eval-every", type=int, default=500)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--init", type=Path, help="start from this checkpoint's weights")
    ap.add_argument("--export", type=Path, help="export this checkpoint instead of training")
    ap.add_argument("--onnx", type=Path, help="where --export writes")
    args = ap.parse_args()
    if args.export:
        if not args.onnx:
            ap.error("--export needs --onnx")
        export(args.export, args.onnx)
        return
    if not args.train or not args.out:
        ap.error("give --train files and --out")
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    gen = torch.Generator().manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    train = [Strips(p) for p in args.train]
    vals = [Strips(p) for p in args.val]
    size = tuple(train[0].strips.shape[2:])
    model = StripNet(5, args.width)
    if args.init:
        state = torch.load(args.init, map_location="cpu")
        if int(state["width"]) != args.width:
            sys.exit(f"--init {args.init}: width {state['width']}, not --width {args.width}")
        model.load_state_dict(state["model"])
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, args.lr, total_steps=args.steps,
                                                pct_start=0.05)
    args.out.mkdir(parents=True, exist_ok=True)
    log = (args.out / "log.jsonl").open("a")
    per = [args.batch // len(train)] * len(train)
    per[0] += args.batch - sum(per)
    t0 = time.time()
    for step in range(1, args.steps + 1):
        xs, ys = [], []
        for data, k in zip(train, per, strict=True):
            j = rng.integers(0, len(data), k)
            xs.append(torch.from_numpy(data.strips[j]))
            ys.append(torch.from_numpy(data.labels[j]))
        x = augment(torch.cat(xs).float().div_(255), gen)
        loss = F.cross_entropy(model(x), torch.cat(ys), label_smoothing=0.05)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        if step % args.eval_every == 0 or step == args.steps:
            rec: dict[str, object] = {"step": step, "loss": round(loss.item(), 4),
                                      "s": round(time.time() - t0, 1)}
            for v in vals:
                rec[v.name] = {k: round(x, 3) if isinstance(x, float) else x
                               for k, x in evaluate(model, v).items()}
            print(json.dumps(rec), flush=True)
            log.write(json.dumps(rec) + "\n")
            log.flush()
            torch.save({"model": model.state_dict(), "width": args.width, "size": size,
                        "step": step}, args.out / "model.pt")


if __name__ == "__main__":
    main()
