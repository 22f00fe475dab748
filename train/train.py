"""Fine-tune the tilecam detector with ultralytics (CPU or GPU), resumable.

One stage per call; every epoch writes ``runs/<name>/weights/last.pt`` (and ``best.pt``),
so a stopped job continues with ``--resume``. Flips are off (mirrored glyphs do not exist
on real tables); the data already holds ±45° and right-angle rotations.

usage (CPU, from the repo root, after ``. train/env.sh``):
  .venv-train/bin/python train/train.py --model datasets/build/start43.pt \
      --data datasets/build/hk-photos/data.yaml --epochs 8 --name hk
  .venv-train/bin/python train/train.py --resume runs/hk/weights/last.pt
``--box-only`` trains the head's box branch alone (where boxes sit, not what they read);
``--class-only`` its class branch alone (which boxes score as tiles, and as what).
GPU: add ``--device 0 --batch 64 --workers 8``; a time-boxed run on a lent machine adds
``--hours 0.13 --no-val --save-period -1 --project /tmp/runs`` (``train/gpu/run.sh``).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ultralytics import YOLO

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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--model", help="starting weights (.pt), e.g. the head-surgery output")
    ap.add_argument("--data", help="YOLO data.yaml")
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--imgsz", type=int, default=640)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--workers", type=int, default=2)
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
    ap.add_argument("--resume", help="continue a stopped run from its last.pt")
    ap.add_argument("--hours", type=float, default=0.0, help="time budget (0: --epochs decides)")
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
    if args.threads:
        _use_threads(args.threads)
    if args.device != "cpu":
        _skip_amp_check()

    if args.resume:
        YOLO(args.resume).train(resume=True)
        return
    if not args.model or not args.data:
        ap.error("--model and --data are required (or --resume)")
    YOLO(args.model).train(
        data=args.data,
        epochs=args.epochs,
        imgsz=args.imgsz,
        batch=args.batch,
        device=args.device,
        workers=args.workers,
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
        amp=args.device != "cpu",
        verbose=True,
    )


if __name__ == "__main__":
    main()
