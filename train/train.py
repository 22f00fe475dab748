"""Fine-tune the tilecam detector with ultralytics (CPU or GPU), resumable.

One stage per call; every epoch writes ``runs/<name>/weights/last.pt`` (and ``best.pt``),
so a stopped job continues with ``--resume``. Flips are off (mirrored glyphs do not exist
on real tables); the data already holds ±45° and right-angle rotations.

usage (CPU, from the repo root, after ``. train/env.sh``):
  .venv-train/bin/python train/train.py --model datasets/build/start43.pt \
      --data datasets/build/hk-photos/data.yaml --epochs 8 --name hk
  .venv-train/bin/python train/train.py --resume runs/hk/weights/last.pt
``--resume`` continues a *stopped* (killed) run only: a run that finished (its epochs or
``--hours`` done) has its optimizer stripped from last.pt and is refused with the command
that trains further, a new run from it (``--model runs/hk/weights/last.pt --data ...
--name hk2``: new optimizer and schedule). ``--device``, ``--batch``, ``--workers`` and
``--hours`` given with ``--resume`` replace the checkpoint's (a GPU run resumed on the
CPU: ``--device cpu``); a time-boxed run resumes with a fresh clock, so give ``--hours``
the time it had left. A new run refuses a ``--name`` whose folder already holds a
``weights/last.pt`` (``--resume`` it, pick another name, or ``--overwrite``).
``--box-only`` trains the head's box branch alone (where boxes sit, not what they read);
``--class-only`` its class branch alone (which boxes score as tiles, and as what).
GPU: add ``--device 0 --batch 64 --workers 8``; a time-boxed run on a lent machine adds
``--hours 0.13 --no-val --save-period -1 --project /tmp/runs`` (``train/gpu/run.sh``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]


def _use_threads(n: int) -> None:
    """Make ultralytics' CPU device setup use ``n`` torch threads instead of cores - 1."""
    import ultralytics.utils as uu
    import ultralytics.utils.torch_utils as tu

    uu.NUM_THREADS = n
    tu.NUM_THREADS = n  # select_device() calls torch.set_num_threads(NUM_THREADS)


def _skip_amp_check() -> None:
    """Trust mixed precision without ultralytics' AMP check.

    The check loads ``yolo26n.pt`` by name: a download the offline lent machine cannot
    make, and rather than depend on how ultralytics handles that failure the check is not
    run. The GPUs this runs on (Hopper) do fp16 autocast well.
    """
    import ultralytics.engine.trainer as tr

    tr.check_amp = lambda model: True


def box_only_freeze(head: int = 23) -> list[int | str]:
    """ultralytics ``freeze`` list that leaves only the Detect head's box branch trainable.

    YOLO11n's layers 0..22 are backbone and neck, layer 23 the Detect head with the box
    branch ``cv2`` (distribution of box sides) and the class branch ``cv3``; ``dfl`` is
    frozen by ultralytics anyway. Frozen layers' BatchNorm is kept in eval mode.

    >>> box_only_freeze()[-2:]
    [22, '23.cv3']
    """
    return [*range(head), f"{head}.cv3"]


def class_only_freeze(head: int = 23) -> list[int | str]:
    """ultralytics ``freeze`` list that leaves only the Detect head's class branch ``cv3``
    trainable (the mirror of :func:`box_only_freeze`: boxes stay where they are drawn).

    >>> class_only_freeze()[-2:]
    [22, '23.cv2']
    """
    return [*range(head), f"{head}.cv2"]


def resume_problem(ckpt: Mapping[str, Any], path: str | Path) -> str | None:
    """Why the checkpoint ``ckpt`` (loaded from ``path``) cannot be resumed, or None.

    ultralytics strips the optimizer from last.pt and sets ``epoch`` to -1 when a run
    ends (its epochs or its time budget done), and on ``resume=True`` with such a file it
    silently starts a *new* training with its own defaults (coco8, 100 epochs, flips on);
    a checkpoint made by hand (``surgery.py``, ``onnx_to_pt.py``, ``average.py``) has no
    ``train_args`` at all.

    >>> resume_problem({"epoch": 3, "optimizer": {"state": {}}, "train_args": {"data": "d"}}, "x")
    >>> "finished" in resume_problem({"epoch": -1, "optimizer": None,
    ...                               "train_args": {"data": "d.yaml"}}, "r/last.pt")
    True
    """
    args = ckpt.get("train_args")
    if not isinstance(args, Mapping) or not args.get("data"):
        return (f"{path} is not a training checkpoint of train.py (no train_args): start a "
                f"run from it with --model {path} --data DATA.yaml")
    epoch = ckpt.get("epoch", -1)
    if run_finished(ckpt):
        return (f"{path}: this run finished (epoch {epoch}, optimizer stripped), so it cannot "
                f"be resumed; to train further start a new run from it (new optimizer and "
                f"schedule): train/train.py --model {path} --data {args.get('data')} "
                f"--epochs N --name NEW_NAME ... (its other settings: {path}'s train_args, "
                f"or the run's args.yaml)")
    return None


def run_finished(ckpt: Mapping[str, Any]) -> bool:
    """Whether the training checkpoint ``ckpt`` is of a run that ended (ultralytics strips
    the optimizer and sets ``epoch`` to -1) — what ``--finished-ok`` lets pass, decided on
    the checkpoint, not on a message that also holds the run's path (a run named
    ``unfinished``…).

    >>> run_finished({"epoch": -1, "optimizer": None}), run_finished({"epoch": 2, "optimizer": {}})
    (True, False)
    """
    epoch = ckpt.get("epoch", -1)
    return ckpt.get("optimizer") is None or not isinstance(epoch, int) or epoch < 0


def resume_overrides(args: argparse.Namespace) -> dict[str, Any]:
    """The ``train(resume=True, ...)`` settings that replace the checkpoint's: only those
    given on the command line (ultralytics accepts these on a resume).

    >>> ns = argparse.Namespace(device=None, batch=None, workers=4, hours=0.5)
    >>> resume_overrides(ns)
    {'workers': 4, 'time': 0.5}
    """
    given = {"device": args.device, "batch": args.batch, "workers": args.workers,
             "time": args.hours}
    return {k: v for k, v in given.items() if v is not None}


def occupied_run(project: str | Path, name: str) -> Path | None:
    """``project/name/weights/last.pt`` when a run already lives there (a new run with
    ultralytics' ``exist_ok=True`` would overwrite it at its first epoch), else None."""
    last = Path(project) / name / "weights" / "last.pt"
    return last if last.is_file() else None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--model", help="starting weights (.pt), e.g. the head-surgery output")
    ap.add_argument("--data", help="YOLO data.yaml")
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--imgsz", type=int, default=640)
    ap.add_argument("--batch", type=int, help="images per batch (default 16)")
    ap.add_argument("--device", help="cpu (default) or a GPU index such as 0")
    ap.add_argument("--workers", type=int, help="data loader workers (default 2)")
    ap.add_argument("--name", default="tiles")
    ap.add_argument("--lr0", type=float, default=0.002)
    ap.add_argument("--warmup", type=float, default=0.5, help="warm-up epochs")
    ap.add_argument("--mosaic", type=float, default=1.0)
    ap.add_argument("--close-mosaic", type=int, default=2)
    ap.add_argument("--fraction", type=float, default=1.0)
    ap.add_argument("--freeze", type=int, default=0, help="freeze N first layers (10: backbone)")
    ap.add_argument(
        "--box-only",
        action="store_true",
        help="train only the head's box branch (model.23.cv2): every other layer frozen, "
        "their BatchNorm statistics too (class scores stay as they were)",
    )
    ap.add_argument(
        "--class-only",
        action="store_true",
        help="train only the head's class branch (model.23.cv3): every other layer frozen, "
        "their BatchNorm statistics too (boxes stay as they were)",
    )
    ap.add_argument("--resume", help="continue a stopped (killed) run from its last.pt")
    ap.add_argument("--finished-ok", action="store_true",
                    help="with --resume: a finished run is not an error (exit 0, nothing "
                         "trained; train/pipeline.sh on a rerun)")
    ap.add_argument("--overwrite", action="store_true",
                    help="start a new run even where --project/--name holds one")
    ap.add_argument("--hours", type=float, help="time budget (default: --epochs decides)")
    ap.add_argument("--project", default=str(REPO / "runs"), help="folder of runs")
    ap.add_argument("--no-val", action="store_true", help="validate only after the last epoch")
    ap.add_argument("--save-period", type=int, default=1, help="epochN.pt every N (-1: none)")
    ap.add_argument("--cache", default="ram", help="ram, disk or none")
    ap.add_argument(
        "--threads",
        type=int,
        default=0,
        help="torch CPU threads (0: ultralytics' default, cores - 1, i.e. 1 on a 2-core machine)",
    )
    args = ap.parse_args()
    if args.box_only and args.class_only:
        ap.error("--box-only and --class-only exclude each other")
    if (args.box_only or args.class_only) and args.freeze:
        which = "--box-only" if args.box_only else "--class-only"
        ap.error(f"{which} already freezes every layer but one head branch; drop --freeze")
    if args.resume and (args.model or args.data):
        ap.error("--resume continues a run with its own model and data: drop --model/--data "
                 "(a new run from a checkpoint: --model CKPT --data DATA without --resume)")
    if not args.resume and (not args.model or not args.data):
        ap.error("--model and --data are required (or --resume)")
    if args.resume:
        import torch

        if not Path(args.resume).is_file():
            sys.exit(f"--resume: no such checkpoint {args.resume}")
        ckpt = torch.load(args.resume, map_location="cpu", weights_only=False)
        problem = resume_problem(ckpt, args.resume)
        if problem is not None and args.finished_ok and run_finished(ckpt):
            print(f"{args.resume}: the run finished; nothing to resume (--finished-ok)")
            return
        if problem is not None:
            sys.exit(problem)
        data = Path(str(ckpt["train_args"]["data"]))
        if not data.is_file():
            sys.exit(f"--resume: the run's data {data} is missing (ultralytics would look for "
                     "it online); make it again first")
        budget = ckpt["train_args"].get("time")
        if budget and args.hours is None:
            print(f"note: a time-boxed run ({budget} h) resumes with a fresh clock and its "
                  "whole budget again; give --hours H for the time it had left")
        device = args.device or str(ckpt["train_args"].get("device") or "cpu")
        del ckpt
    else:
        last = occupied_run(args.project, args.name)
        if last is not None and not args.overwrite:
            sys.exit(f"{last} exists: continue that run with --resume {last}, pick another "
                     "--name, or pass --overwrite to start over in its folder")
        device = args.device or "cpu"
    if args.threads:
        _use_threads(args.threads)
    if device != "cpu":
        _skip_amp_check()

    from ultralytics import YOLO

    if args.resume:
        YOLO(args.resume).train(resume=True, **resume_overrides(args))
        return
    YOLO(args.model).train(
        data=args.data,
        epochs=args.epochs,
        imgsz=args.imgsz,
        batch=16 if args.batch is None else args.batch,
        device=device,
        workers=2 if args.workers is None else args.workers,
        project=args.project,
        name=args.name,
        exist_ok=True,
        optimizer="AdamW",
        lr0=args.lr0,
        lrf=0.1,
        cos_lr=False,
        warmup_epochs=args.warmup,
        fliplr=0.0,
        flipud=0.0,
        mosaic=args.mosaic,
        close_mosaic=args.close_mosaic,
        degrees=0.0,
        scale=0.5,
        translate=0.1,
        hsv_h=0.015,
        hsv_s=0.6,
        hsv_v=0.4,
        fraction=args.fraction,
        freeze=(
            box_only_freeze() if args.box_only
            else class_only_freeze() if args.class_only
            else args.freeze or None
        ),
        cache=False if args.cache == "none" else args.cache,
        time=args.hours or None,
        val=not args.no_val,
        patience=100,
        plots=False,
        save_period=args.save_period,
        seed=0,
        deterministic=False,
        amp=device != "cpu",
        verbose=True,
    )


if __name__ == "__main__":
    main()
