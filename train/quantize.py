"""Quantize the exported detector to int8 (static, QDQ, per-channel) for CPU inference.

The CPUs this project runs on (AVX-512 VNNI here) execute int8 convolutions several times
faster than float32. Calibration uses real training photos (never validation), letterboxed
exactly as :func:`vision.preprocess.prepare_input` does at inference. The detection head's
decoding (DFL, box arithmetic, the final class sigmoid and concatenations) stays float32,
so boxes and scores keep their precision; the convolutions and activations before it run
in int8.

usage: .venv-train/bin/python train/quantize.py IN.onnx OUT.onnx [--use]
           [--calib datasets/build/hk-photos/images/train] [--images 64] [--imgsz 640]

``--use`` points the ``manifest.json`` in OUT's folder at OUT.

Check the result before shipping it: ``tilecam eval`` with ``--weights OUT.onnx`` and
``train/operating_point.py`` on training photos; ``bench/detect_bench.py`` for speed.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import cv2  # noqa: E402
import numpy as np  # noqa: E402
import onnx  # noqa: E402
from onnxruntime.quantization import (  # noqa: E402
    CalibrationDataReader,
    CalibrationMethod,
    QuantFormat,
    QuantType,
    quantize_static,
)
from onnxruntime.quantization.shape_inference import quant_pre_process  # noqa: E402

from vision.preprocess import prepare_input  # noqa: E402

#: Nodes of the Detect head's decoding, kept float32 (name prefixes in ultralytics exports).
HEAD_DECODE = ("/model.23/dfl/", "/model.23/Concat", "/model.23/Reshape", "/model.23/Slice",
               "/model.23/Sigmoid", "/model.23/Sub", "/model.23/Add", "/model.23/Div",
               "/model.23/Mul", "/model.23/Split", "/model.23/Transpose")  # fmt: skip


class Photos(CalibrationDataReader):
    """Letterboxed calibration tensors ``(1, 3, S, S)`` from image files."""

    def __init__(self, files: list[Path], input_name: str, imgsz: int) -> None:
        self._it: Iterator[dict[str, np.ndarray]] = (
            {input_name: prepare_input(img, imgsz)[0]}
            for img in (cv2.imread(str(f), cv2.IMREAD_COLOR) for f in files)
            if img is not None
        )

    def get_next(self) -> dict[str, np.ndarray] | None:
        return next(self._it, None)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("src", type=Path)
    ap.add_argument("dst", type=Path)
    ap.add_argument(
        "--calib", type=Path, nargs="+", default=[REPO / "datasets/build/hk-photos/images/train"]
    )
    ap.add_argument("--images", type=int, default=64)
    ap.add_argument("--imgsz", type=int, default=640)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--method", choices=["minmax", "percentile", "entropy"], default="minmax")
    ap.add_argument(
        "--reduce-range",
        action="store_true",
        help="7-bit weights: avoids u8s8 saturation on AVX2 CPUs without VNNI",
    )
    ap.add_argument(
        "--weights", choices=["int8", "uint8"], default="int8",
        help="weight type (uint8: u8u8 kernels, no saturation, slower on some CPUs)",
    )
    ap.add_argument(
        "--skip", nargs="*", default=[],
        help="node name prefixes kept float32 besides the head's decoding (e.g. /model.23/)",
    )
    ap.add_argument(
        "--use",
        action="store_true",
        help="point the manifest.json beside DST at DST (its detector entry's file)",
    )
    args = ap.parse_args()

    files = sorted(
        p for d in args.calib for p in d.iterdir() if p.suffix.lower() in (".jpg", ".jpeg", ".png")
    )
    if not files:
        sys.exit(f"no calibration images in {args.calib}")
    random.Random(args.seed).shuffle(files)
    files = files[: args.images]

    pre = args.dst.with_suffix(".pre.onnx")
    quant_pre_process(str(args.src), str(pre), skip_symbolic_shape=True)
    model = onnx.load(str(pre))
    keep_float = HEAD_DECODE + tuple(args.skip)
    exclude = [n.name for n in model.graph.node if n.name.startswith(keep_float)]
    input_name = model.graph.input[0].name
    method = {"minmax": CalibrationMethod.MinMax, "percentile": CalibrationMethod.Percentile,
              "entropy": CalibrationMethod.Entropy}[args.method]  # fmt: skip
    quantize_static(
        str(pre),
        str(args.dst),
        Photos(files, input_name, args.imgsz),
        quant_format=QuantFormat.QDQ,
        per_channel=True,
        activation_type=QuantType.QUInt8,
        weight_type=QuantType.QInt8 if args.weights == "int8" else QuantType.QUInt8,
        nodes_to_exclude=exclude,
        calibrate_method=method,
        reduce_range=args.reduce_range,
    )
    pre.unlink(missing_ok=True)
    if args.use:
        manifest_path = args.dst.parent / "manifest.json"
        manifest = json.loads(manifest_path.read_text())
        manifest["detector"]["file"] = args.dst.name
        manifest["detector"]["quantized"] = "int8 static QDQ per-channel (train/quantize.py)"
        manifest_path.write_text(json.dumps(manifest, indent=2) + "\n")
        print(f"{manifest_path}: detector file is now {args.dst.name}")
    print(
        f"wrote {args.dst} ({args.dst.stat().st_size / 1e6:.1f} MB) from {len(files)} "
        f"calibration images, {len(exclude)} head-decoding nodes kept float32"
    )


if __name__ == "__main__":
    main()
