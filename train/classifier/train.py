"""Train the crop classifier on real-photo and synthetic crops (``crops.py`` output).

usage: .venv-train/bin/python train/classifier/train.py \
           --real runs/classifier/hk-train.npz --synth runs/classifier/synth-train.npz \
           [--synth MORE.npz ...] --val runs/classifier/hk-val.npz \
           --val runs/classifier/heldout.npz --out runs/classifier/run1 --minutes 20 \
           [--width 16] [--resume] [--init runs/classifier/run9/last.pt] \
           [--codes 1f,2f,3f,4f,5f,6f,7f,8f] [--factors 2,4] [--style 0.3] [--view 0.5] \
           [--real-share 0.25] [--teacher runs/classifier/run15/model.pt --distill 1.0]

Each step draws half its batch from the real crops and half from the synthetic ones
(``--real-share S``: a share S of it from the real crops),
rotates every crop by a random multiple of 90° (counter-clockwise ``k`` quarter turns
moves a clockwise rotation index ``r`` to ``(r - k) mod 4``; never mirrored), and jitters
brightness, contrast and colour (``--balance POWER`` draws the real crops with weight
``class_count ** -POWER``, giving rare codes more turns); with ``--style P`` it also
swaps colour channels and thickens, thins or softens strokes on a share of the crops
(:func:`restyle`: tile sets it has not seen draw the same glyphs in other colours and
weights); with ``--view P`` it also warps a share of the crops a little (turn ±15°,
scale, shift) and takes some of their resolution away (:func:`reshape_view`: boxes of
turned tiles sit loosely, far tiles are few pixels). Loss on the 172
class × rotation logits:

* rotation known (synthetic face-up tiles): cross-entropy on the joint index
  ``class * 4 + rotation``;
* rotation unknown (real photos, face-down tiles): cross-entropy on the class marginal,
  ``logsumexp`` of the class's 4 rotation logits against ``logsumexp`` of all.

With ``--codes`` the network reads only those codes (e.g. the eight bonus tiles: the
manifest's ``reader``, which looks again at tiles the models take for flowers, from larger
crops); crops of other codes are dropped from every file, and ``--init`` takes every
tensor of the checkpoint whose shape fits (all but the head). ``--factors A,B`` gives the
network a factorised head (``model.CropNet``: class ``i * B + j`` scores ``A_i + B_j``, e.g.
``2,4`` for the bonus reader's season/flower group × number); from a full head's
checkpoint it starts at the nearest factorised head (``model.factor_head_from``).
Measured for the bonus reader in the sixteenth session and not shipped (model card step
34).

With ``--teacher CKPT`` a fine-tuning leg also keeps that classifier's answers on the
synthetic part of each batch (knowledge distillation: ``--distill W`` times the KL
divergence of the softened joint distributions, :func:`distill_loss`; the teacher reads
the same augmented crops resized to ``--teacher-size``). Legs from run15 learned the
photos and forgot the training art's own faces (model card step 39); the teacher term
is meant to hold those while the photos are learned.

With ``--motion P`` a share P of the crops is also smeared by motion blur
(:func:`motion_smear`: 3–13 px in a random direction); with ``--teacher-clean`` the
teacher reads every crop as it was before the smear and the distillation term covers the
whole batch, so the student learns to give a blurred crop the teacher's answer for the
sharp one; ``--distill-only`` drops the labels' cross-entropy, so that the teacher's
answers are all it learns (fiftieth session; ``models/HISTORY.md``, recipe step 67).

The run is planned by wall time: the step count comes from ``--minutes`` and the speed
measured over the first steps (or is fixed with ``--steps``, also on ``--resume``); the
learning rate follows one cosine cycle over it.
Checkpoints ``last.pt`` (resumable with ``--resume``: it keeps the run's settings, which a
resume restores; one given with another value is refused without ``--change-settings``,
and a missing ``last.pt`` is an error) and the final ``model.pt`` go in ``--out``;
``log.jsonl`` holds the validation figures (class top-1 and, where known,
rotation accuracy per ``--val`` file).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent))
from model import CropNet, factor_head_from
from run_settings import given_options, restore_settings, resume_checkpoint, run_settings

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from vision.classes import CLASSES, class_id


class Crops:
    """A ``crops.py`` file held in memory (uint8 crops, class ids, rotation indices)."""

    def __init__(self, *paths: Path, codes: list[int] | None = None) -> None:
        """One file, or several (same crop size) drawn from as one pool; with ``codes``
        (class ids) only those crops, their classes renumbered ``0..len(codes)-1``."""
        crops, classes, rotations = [], [], []
        for path in paths:
            with np.load(path) as d:
                crops.append(d["crops"])
                classes.append(d["classes"].astype(np.int64))
                rotations.append(d["rotations"].astype(np.int64))
        sizes = {c.shape[1:] for c in crops}
        if len(sizes) != 1:
            raise SystemExit(f"crop files differ in crop shape: {sorted(sizes)}")
        self.crops = crops[0] if len(crops) == 1 else np.concatenate(crops)
        self.classes = np.concatenate(classes)
        self.rotations = np.concatenate(rotations)
        self.name = "+".join(p.stem for p in paths)
        if codes is not None:
            keep = np.isin(self.classes, codes)
            self.crops, self.rotations = self.crops[keep], self.rotations[keep]
            self.classes = np.searchsorted(np.asarray(codes), self.classes[keep])

    def __len__(self) -> int:
        return len(self.classes)


def restyle(x: torch.Tensor, p: float, gen: torch.Generator) -> torch.Tensor:
    """Art-style randomisation of a float batch ``(B, 3, S, S)`` in 0..1, each change on a
    share ``p`` of the crops: colour channels swapped (glyph colours differ between tile
    sets), strokes thickened or thinned by one pixel (3 × 3 min / max filter), softened
    (3 × 3 mean). Shapes stay; the tile's identity is its glyph's shape."""
    b = x.shape[0]
    out = x.clone()
    pick = torch.rand(b, generator=gen) < p
    if pick.any():
        perm = torch.stack([torch.randperm(3, generator=gen) for _ in range(int(pick.sum()))])
        out[pick] = torch.gather(out[pick], 1, perm[:, :, None, None].expand(-1, -1, *x.shape[2:]))
    thick = torch.rand(b, generator=gen) < p / 2
    thin = ~thick & (torch.rand(b, generator=gen) < p / 2)
    if thick.any():  # dark strokes grow: minimum filter
        out[thick] = -F.max_pool2d(-out[thick], 3, stride=1, padding=1)
    if thin.any():
        out[thin] = F.max_pool2d(out[thin], 3, stride=1, padding=1)
    soft = torch.rand(b, generator=gen) < p / 2
    if soft.any():
        out[soft] = F.avg_pool2d(out[soft], 3, stride=1, padding=1, count_include_pad=False)
    return out


def reshape_view(x: torch.Tensor, p: float, gen: torch.Generator) -> torch.Tensor:
    """Viewpoint and resolution randomisation of a float batch ``(B, 3, S, S)`` in 0..1, each
    change on a share ``p`` of the crops: a small affine warp (turn ±15°, scale 0.85–1.15,
    shift ±6 % of the side; edges replicated), and a loss of resolution (down to 35–80 % of
    the side and back up, as a far or blurred tile). Never mirrored; a turn this small keeps
    the tile's quarter-turn rotation index."""
    b, _, s, _ = x.shape
    out = x
    warp = torch.rand(b, generator=gen) < p
    if warp.any():
        n = int(warp.sum())
        angle = (torch.rand(n, generator=gen) * 2 - 1) * math.radians(15)
        scale = 0.85 + torch.rand(n, generator=gen) * 0.3
        shift = (torch.rand(n, 2, generator=gen) * 2 - 1) * 0.12  # ±6 % of the side
        cos, sin = torch.cos(angle) / scale, torch.sin(angle) / scale
        theta = torch.stack([torch.stack([cos, -sin, shift[:, 0]], 1),
                             torch.stack([sin, cos, shift[:, 1]], 1)], 1)
        grid = F.affine_grid(theta, [n, 3, s, s], align_corners=False)
        out = out.clone()
        out[warp] = F.grid_sample(x[warp], grid, padding_mode="border", align_corners=False)
    low = torch.rand(b, generator=gen) < p
    if low.any():
        if out is x:
            out = out.clone()
        for i in torch.nonzero(low)[:, 0].tolist():
            side = max(8, int(s * (0.35 + 0.45 * torch.rand(1, generator=gen).item())))
            small = F.interpolate(out[i : i + 1], size=(side, side), mode="area")
            out[i] = F.interpolate(small, size=(s, s), mode="bilinear", align_corners=False)[0]
    return out


def motion_kernels(lengths: torch.Tensor, angles: torch.Tensor, size: int) -> torch.Tensor:
    """Straight-smear kernels ``(n, size, size)``, each summing to 1: a line through the
    centre ``lengths`` px long (of the crop; ≥ 1) at ``angles`` radians, drawn with a
    one-pixel soft edge (weight ``1 - distance`` off the line, the ends tapered alike)."""
    r = (size - 1) / 2
    yy, xx = torch.meshgrid(torch.arange(size) - r, torch.arange(size) - r, indexing="ij")
    dx, dy = torch.cos(angles)[:, None, None], torch.sin(angles)[:, None, None]
    along = xx[None] * dx + yy[None] * dy
    across = (-xx[None] * dy + yy[None] * dx).abs()
    beyond = (along.abs() - (lengths[:, None, None] - 1) / 2).clamp(min=0)
    w = ((1 - across).clamp(min=0) * (1 - beyond).clamp(min=0))
    return w / w.sum(dim=(1, 2), keepdim=True)


def motion_smear(
    x: torch.Tensor, p: float, gen: torch.Generator, lengths: tuple[float, float] = (3.0, 13.0)
) -> torch.Tensor:
    """Motion blur of a share ``p`` of a float batch ``(B, 3, S, S)`` in 0..1: a straight
    smear of a random length (``lengths`` px of the crop, uniform) in a random direction,
    as a shaking hand leaves a photo (``bench/robustness_eval.py``'s "motion blur" is 7 px
    of a 640 px photo, 6–11 px of a 64 px crop of its tiles). Edges replicated."""
    b = x.shape[0]
    pick = torch.nonzero(torch.rand(b, generator=gen) < p)[:, 0]
    if not len(pick):
        return x
    n = len(pick)
    length = lengths[0] + torch.rand(n, generator=gen) * (lengths[1] - lengths[0])
    angle = torch.rand(n, generator=gen) * math.pi
    size = math.ceil(lengths[1]) | 1  # odd
    k = motion_kernels(length, angle, size)
    pad = size // 2
    src = F.pad(x[pick], (pad, pad, pad, pad), mode="replicate")  # (n, 3, S+2p, S+2p)
    weight = k[:, None].repeat_interleave(3, dim=0)  # (n*3, 1, size, size)
    out = x.clone()
    smeared = F.conv2d(src.reshape(1, n * 3, *src.shape[2:]), weight, groups=n * 3)
    out[pick] = smeared.reshape(n, 3, *x.shape[2:])
    return out


def augment(
    x: torch.Tensor, rot: torch.Tensor, gen: torch.Generator, style: float = 0.0,
    view: float = 0.0,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Random quarter turns and photometric jitter of a float batch ``(B, 3, S, S)`` in 0..1
    (with ``style`` > 0 also :func:`restyle`, with ``view`` > 0 also :func:`reshape_view`);
    returns the batch and the shifted rotation indices (-1 stays -1)."""
    b = x.shape[0]
    k = torch.randint(0, 4, (b,), generator=gen)
    out = torch.empty_like(x)
    for q in range(4):
        m = k == q
        if m.any():
            out[m] = torch.rot90(x[m], q, dims=(2, 3))
    rot = torch.where(rot >= 0, (rot - k) % 4, rot)
    if style > 0:
        out = restyle(out, style, gen)
    if view > 0:
        out = reshape_view(out, view, gen)
    contrast = torch.empty(b, 1, 1, 1).uniform_(0.7, 1.3, generator=gen)
    bright = torch.empty(b, 1, 1, 1).uniform_(-0.12, 0.12, generator=gen)
    gain = torch.empty(b, 3, 1, 1).uniform_(0.9, 1.1, generator=gen)
    mean = out.mean(dim=(1, 2, 3), keepdim=True)
    out = (out - mean) * contrast + mean + bright
    out = out * gain
    gray = torch.rand(b, generator=gen) < 0.1
    if gray.any():
        out[gray] = out[gray].mean(dim=1, keepdim=True).expand(-1, 3, -1, -1)
    out = out + torch.randn(out.shape, generator=gen) * 0.02
    return out.clamp_(0, 1), rot


def distill_loss(
    student: torch.Tensor, teacher: torch.Tensor, temperature: float = 2.0
) -> torch.Tensor:
    """Mean KL divergence ``KL(teacher || student)`` over the batch of the softened joint
    class × rotation distributions (``softmax(logits / T)``), times ``T²`` so that its
    gradients keep their size across temperatures (Hinton et al.'s knowledge
    distillation). ``(B, K)`` logits each; 0 when the two agree."""
    t = temperature
    log_s = F.log_softmax(student / t, dim=1)
    log_t = F.log_softmax(teacher / t, dim=1)
    return (log_t.exp() * (log_t - log_s)).sum(1).mean() * t * t


def load_teacher(path: Path, n_classes: int, size: int) -> tuple[CropNet, int]:
    """A frozen classifier checkpoint (``model.pt``/``last.pt``) in eval mode and the crop
    side it was trained at (``size`` when the checkpoint does not say)."""
    state = torch.load(path)
    net = CropNet(n_classes, state.get("width", 16), state.get("factors"),
                  state.get("stem_stride", 2))
    net.load_state_dict(state["model"])
    net.eval()
    for p in net.parameters():
        p.requires_grad_(False)
    return net, int(state.get("size", size))


def loss_fn(logits: torch.Tensor, cls: torch.Tensor, rot: torch.Tensor) -> torch.Tensor:
    """Mean loss over the batch: joint cross-entropy where the rotation is known, class
    marginal cross-entropy where it is -1."""
    logz = torch.logsumexp(logits, dim=1)
    per_class = torch.logsumexp(logits.view(len(logits), -1, 4), dim=2)
    marginal = logz - per_class.gather(1, cls[:, None])[:, 0]
    joint_idx = cls * 4 + rot.clamp(min=0)
    joint = logz - logits.gather(1, joint_idx[:, None])[:, 0]
    return torch.where(rot >= 0, joint, marginal).mean()


@torch.no_grad()
def evaluate(model: CropNet, data: Crops, limit: int | None = None) -> dict[str, float]:
    """Class top-1 (from the class marginal) and rotation accuracy (crops with a known
    rotation) on ``data`` (first ``limit`` crops, evenly strided when limited)."""
    model.eval()
    idx = np.arange(len(data))
    if limit and len(idx) > limit:
        idx = idx[:: len(idx) // limit][:limit]
    right_c = right_r = n_r = 0
    for s in range(0, len(idx), 512):
        j = idx[s : s + 512]
        x = torch.from_numpy(data.crops[j]).float().div_(255)
        p = torch.softmax(model(x), dim=1).view(len(j), -1, 4)
        c = p.sum(2).argmax(1).numpy()
        r = p.sum(1).argmax(1).numpy()
        right_c += int((c == data.classes[j]).sum())
        known = data.rotations[j] >= 0
        right_r += int((r[known] == data.rotations[j][known]).sum())
        n_r += int(known.sum())
    model.train()
    return {
        "class_top1": right_c / len(idx),
        "rotation": right_r / n_r if n_r else float("nan"),
        "n": len(idx),
    }


def _factors(text: str) -> tuple[int, int]:
    """``--factors A,B`` as two whole numbers ≥ 2."""
    parts = text.split(",")
    if len(parts) != 2 or not all(p.strip().isdigit() and int(p) >= 2 for p in parts):
        raise argparse.ArgumentTypeError(f"expected two whole numbers >= 2 like 2,4, got {text!r}")
    return int(parts[0]), int(parts[1])


def _share(text: str) -> float:
    """``--real-share S`` as a number in [0, 1]."""
    try:
        share = float(text)
    except ValueError:
        share = -1.0
    if not 0.0 <= share <= 1.0:
        raise argparse.ArgumentTypeError(f"expected a share between 0 and 1, got {text!r}")
    return share


def real_count(batch: int, share: float) -> int:
    """How many of a batch's ``batch`` crops come from the real crops (the rest are
    synthetic), for a real share ``share`` in [0, 1].

    >>> real_count(128, 0.5), real_count(128, 0.25), real_count(128, 0.0), real_count(7, 1.0)
    (64, 32, 0, 7)
    """
    return min(batch, max(0, round(batch * share)))


def _start_from(model: CropNet, path: Path, width: int, factors: tuple[int, int] | None,
                n_classes: int) -> None:
    """Load the weights of the checkpoint ``path`` (``--init``) into ``model`` where their
    shapes agree; a full head becomes a factorised one (``factors``) by least squares.
    The layers left new (e.g. the head of a ``--codes`` reader) are printed."""
    init = torch.load(path)
    if init.get("width", width) != width:
        raise SystemExit(f"--init {path} has width {init['width']}, not {width}")
    own = model.state_dict()
    source = dict(init["model"])
    if factors is not None and "head.weight" in source and "head_a.weight" not in source:
        full_w, full_b = source.pop("head.weight"), source.pop("head.bias")
        if full_w.shape[0] == n_classes * 4:  # start near the full head (least squares)
            source.update(factor_head_from(full_w, full_b, factors))  # type: ignore[arg-type]
    weights = {k: v for k, v in source.items() if k in own and own[k].shape == v.shape}
    model.load_state_dict(weights, strict=False)
    fresh = sorted(set(own) - set(weights))  # e.g. the head of a --codes reader
    print(f"weights from {path} (its step {init.get('step', 'final')})"
          + (f"; new: {', '.join(fresh)}" if fresh else ""), flush=True)


def _parser() -> argparse.ArgumentParser:
    """The command line of this script (see the module doc)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--real", type=Path, required=True)
    ap.add_argument("--synth", type=Path, action="append", required=True,
                    help="synthetic crops (repeat to pool several files)")
    ap.add_argument("--val", type=Path, action="append", default=[])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--minutes", type=float, default=20.0, help="wall-time budget")
    ap.add_argument("--width", type=int, default=16)
    ap.add_argument("--stem-stride", type=int, choices=(1, 2), default=2,
                    help="1: the first stage at the crop's full side (small glyphs; 4x work)")
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--eval-every", type=int, default=400)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--style", type=float, default=0.0, help="art-style randomisation share (restyle)"
    )
    ap.add_argument(
        "--view", type=float, default=0.0,
        help="viewpoint/resolution randomisation share (reshape_view: small turns, "
             "scale, shift, lost resolution)")
    ap.add_argument("--motion", type=_share, default=0.0, metavar="P",
                    help="motion-blur share (motion_smear: a straight smear of 3-13 px in a "
                         "random direction on a share P of the crops, after the other changes)")
    ap.add_argument("--motion-px", type=float, nargs=2, default=(3.0, 13.0), metavar=("MIN", "MAX"),
                    help="smear lengths in px of the crop (default 3 13, for 64 px crops; "
                         "4.5 19.5 keeps the same smear of the photo at 96 px)")
    ap.add_argument("--teacher-clean", action="store_true",
                    help="with --teacher and --motion: the teacher reads every crop of the "
                         "batch as it was before the smear and the student learns its answers "
                         "on the smeared crop (the same reading, blurred or not)")
    ap.add_argument("--distill-only", action="store_true",
                    help="with --teacher-clean: no cross-entropy on the labels, only the "
                         "teacher's answers (the student learns the teacher's own reading "
                         "under the smear and nothing else)")
    ap.add_argument("--real-share", type=_share, default=0.5, metavar="S",
                    help="share of each batch drawn from the real crops (default 0.5; "
                         "less leans on the synthetic art, whose faces vary more)")
    ap.add_argument("--balance", type=float, default=0.0, metavar="POWER",
                    help="draw real crops with weight class_count**-POWER (0: uniform; "
                         "0.5 gives rare codes such as the flowers more turns)")
    ap.add_argument("--resume", action="store_true",
                    help="continue the run in --out from its last.pt, with the run's own "
                         "settings (an error when there is none)")
    ap.add_argument("--change-settings", action="store_true",
                    help="with --resume: continue the run's state with the settings given "
                         "here where they differ from the run's (a new leg, e.g. a new "
                         "--seed); without it such a resume is refused")
    ap.add_argument("--init", type=Path,
                    help="start from this checkpoint's weights (last.pt or model.pt) with a "
                         "new schedule and optimiser: fine-tuning, e.g. at another crop size")
    ap.add_argument("--steps", type=int, default=0, help="fix the step count (overrides --minutes)")
    ap.add_argument("--codes", help="train a reader of these codes only, comma-separated "
                                    "(e.g. the bonus tiles 1f,...,8f); other crops are dropped")
    ap.add_argument("--teacher", type=Path,
                    help="keep this classifier's answers on the synthetic crops (knowledge "
                         "distillation, learning without forgetting): a fine-tuning leg "
                         "learns the photos without forgetting the training art's faces")
    ap.add_argument("--distill", type=float, default=1.0, metavar="W",
                    help="weight of the teacher term (default 1.0)")
    ap.add_argument("--teacher-size", type=int, default=64, metavar="PX",
                    help="crop side the teacher reads (the batch is resized to it; "
                         "default 64)")
    ap.add_argument("--factors", type=_factors,
                    help="factorised head A,B (A*B classes; class i*B+j gets logit A_i + B_j), "
                         "e.g. 2,4 for the bonus reader's season/flower group × number 1-4")
    return ap


def _resume_state(
    ap: argparse.ArgumentParser, argv: list[str], args: argparse.Namespace
) -> dict[str, Any] | None:
    """With ``--resume``, the run's ``last.pt`` (an error when missing), its settings put
    into ``args`` first: they decide the crops and the network; None without it."""
    if not args.resume:
        if args.change_settings:
            ap.error("--change-settings goes with --resume")
        return None
    last = resume_checkpoint(args.out)
    state: dict[str, Any] = torch.load(last)
    for note in restore_settings(state.get("settings"), args, given_options(ap, argv),
                                 args.change_settings, str(last)):
        print(note, flush=True)
    return state


def main() -> None:
    ap = _parser()
    argv = sys.argv[1:]
    args = ap.parse_args(argv)
    state = _resume_state(ap, argv, args)
    factors = args.factors
    codes = sorted(class_id(c) for c in args.codes.split(",")) if args.codes else None
    names = [CLASSES[c] for c in codes] if codes else list(CLASSES)
    n_classes = len(names)
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    gen = torch.Generator().manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    real, synth = Crops(args.real, codes=codes), Crops(*args.synth, codes=codes)
    if real.crops.shape[1:] != synth.crops.shape[1:]:
        raise SystemExit(f"--real crops {real.crops.shape[1:]} and --synth crops "
                         f"{synth.crops.shape[1:]} differ in shape")
    vals = [Crops(v, codes=codes) for v in args.val]
    real_p = None
    if args.balance > 0:
        counts = np.bincount(real.classes, minlength=n_classes).astype(np.float64)
        weight = np.where(counts > 0, np.maximum(counts, 1) ** -args.balance, 0.0)
        real_p = weight[real.classes] / weight[real.classes].sum()
    args.out.mkdir(parents=True, exist_ok=True)
    model = CropNet(n_classes, args.width, factors, args.stem_stride)  # type: ignore[arg-type]
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=5e-4)
    step, total = 0, 0
    if args.init and state is None:
        _start_from(model, args.init, args.width, factors, n_classes)
    if state is not None:
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["opt"])
        step, total = state["step"], state["total"]
    if args.steps:
        total = args.steps
    if step:  # a resumed run draws other batches than the first steps did
        rng = np.random.default_rng([args.seed, step])
        gen.manual_seed(args.seed * 100_003 + step)
    teacher = None
    if args.teacher:
        teacher, _ = load_teacher(args.teacher, n_classes, args.teacher_size)
        print(f"teacher {args.teacher} at {args.teacher_size} px, weight {args.distill}",
              flush=True)
    log = (args.out / "log.jsonl").open("a")
    half = real_count(args.batch, args.real_share)
    t0 = time.time()
    warm = 30
    while total == 0 or step < total:
        j_r = (rng.integers(0, len(real), half) if real_p is None
               else rng.choice(len(real), half, p=real_p))
        j_s = rng.integers(0, len(synth), args.batch - half)
        x = torch.from_numpy(np.concatenate([real.crops[j_r], synth.crops[j_s]])).float().div_(255)
        cls = torch.from_numpy(np.concatenate([real.classes[j_r], synth.classes[j_s]]))
        rot = torch.from_numpy(np.concatenate([real.rotations[j_r], synth.rotations[j_s]]))
        x, rot = augment(x, rot, gen, args.style, args.view)
        clean = x
        if args.motion > 0:
            x = motion_smear(x, args.motion, gen, tuple(args.motion_px))
        if total:
            lr = args.lr * 0.5 * (1 + math.cos(math.pi * step / total))
        else:
            lr = args.lr * min(1.0, (step + 1) / warm)
        for g in opt.param_groups:
            g["lr"] = lr
        logits = model(x)
        if args.distill_only and teacher is not None and args.teacher_clean:
            loss = torch.zeros(())
        else:
            loss = loss_fn(logits, cls, rot)
        if teacher is not None and (args.teacher_clean or half < len(x)):
            # the teacher reads the whole batch before the smear, or the synthetic part
            xs, taught = (clean, logits) if args.teacher_clean else (x[half:], logits[half:])
            if xs.shape[-1] != args.teacher_size:
                xs = F.interpolate(xs, size=args.teacher_size, mode="area")
            with torch.no_grad():
                t_logits = teacher(xs)
            loss = loss + args.distill * distill_loss(taught, t_logits)
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        if total == 0 and step == warm:
            per_step = (time.time() - t0) / warm
            total = max(warm + 1, int(args.minutes * 60 / per_step))
            print(
                f"{per_step:.3f} s/step → {total} steps "
                f"({total * args.batch / (len(real) + len(synth)):.1f} passes)",
                flush=True,
            )
        if step % 50 == 0:
            print(
                f"step {step}/{total} loss {loss.item():.3f} lr {lr:.5f} {time.time() - t0:.0f}s",
                flush=True,
            )
        if step % args.eval_every == 0 or step == total:
            rec: dict[str, object] = {
                "step": step,
                "loss": round(loss.item(), 4),
                "seconds": round(time.time() - t0),
            }
            for v in vals:
                rec[v.name] = evaluate(model, v, None if step == total else 1500)
            print(json.dumps(rec), flush=True)
            log.write(json.dumps(rec) + "\n")
            log.flush()
            torch.save(
                {
                    "model": model.state_dict(),
                    "opt": opt.state_dict(),
                    "step": step,
                    "total": total,
                    "width": args.width,
                    "names": names,
                    "factors": factors,
                    "stem_stride": args.stem_stride,
                    "settings": run_settings(args),
                    "size": int(real.crops.shape[-1]),
                },
                args.out / "last.pt",
            )
    torch.save(
        {"model": model.state_dict(), "width": args.width, "n_classes": n_classes,
         "names": names, "factors": factors, "stem_stride": args.stem_stride,
         "size": int(real.crops.shape[-1])},  # the crop side, export.py's default --size
        args.out / "model.pt",
    )
    print(f"done in {time.time() - t0:.0f}s", flush=True)


if __name__ == "__main__":
    main()
