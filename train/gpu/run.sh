#!/usr/bin/env bash
# Time-boxed detector fine-tune on a lent GPU machine (the device tool), one prepared call:
#   run(command="bash train/gpu/run.sh", carry=[".gpu/data.tgz", ".gpu/whl", ".gpu/start.pt",
#       ".gpu/Arial.ttf"], timeout_s=600)
# .gpu/ (git-ignored, carried; train/gpu/prepare.sh builds all of it on a fresh machine):
# whl/ultralytics-8.4.190-py3-none-any.whl (pip download --no-deps), data.tgz (data/, from
# train/gpu/pack.py, in one file: the tool counts thousands of small label files dearly),
# start.pt (the detector to continue: a training checkpoint, or the
# shipped ONNX rebuilt by train/onnx_to_pt.py), Arial.ttf (any TTF). The machine has torch, torchvision,
# numpy, opencv; it lacks ultralytics and polars (train/gpu/shim stands in for polars).
# Writes $OUT/gpu/weights/last.pt, $OUT/gpu/results.csv, $OUT/train.log, $OUT/gpu-info.txt.
# Knobs: HOURS (training time budget), BATCH, WORKERS, IMGSZ, LR0, DEVICE, PY.
set -uo pipefail
cd "$(dirname "$0")/../.."
HOURS="${HOURS:-0.125}"; BATCH="${BATCH:-32}"; WORKERS="${WORKERS:-14}"; IMGSZ="${IMGSZ:-512}"
LR0="${LR0:-0.0015}"; DEVICE="${DEVICE:-0}"; PY="${PY:-python3}"; OUT="${OUT:-/tmp/gpu-out}"
mkdir -p "$OUT"
if [ ! -f .gpu/data/data.yaml ] && [ -f .gpu/data.tgz ]; then tar -xzf .gpu/data.tgz -C .gpu; fi
"$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site \
    .gpu/whl/*.whl || { echo "wheel install failed"; exit 1; }
export PYTHONPATH="/tmp/site:$PWD/train/gpu/shim" PYTHONUNBUFFERED=1 YOLO_OFFLINE=1
export YOLO_CONFIG_DIR=/tmp/yolo-config
mkdir -p "$YOLO_CONFIG_DIR" && cp .gpu/Arial.ttf "$YOLO_CONFIG_DIR/Arial.ttf"
{ nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv 2>&1; nproc; free -g
  "$PY" -c "import torch, ultralytics; print(torch.__version__, torch.cuda.is_available(), ultralytics.__version__)"
} > "$OUT/gpu-info.txt" 2>&1
cat "$OUT/gpu-info.txt"
# hard stop well inside the call's limit, whatever ultralytics' own clock does
timeout -s INT "$(awk "BEGIN{print int($HOURS*3600+75)}")" "$PY" train/train.py \
    --model .gpu/start.pt --data "$PWD/.gpu/data/data.yaml" --hours "$HOURS" --epochs 300 \
    --imgsz "$IMGSZ" --batch "$BATCH" --workers "$WORKERS" --device "$DEVICE" --lr0 "$LR0" \
    --warmup 1 --close-mosaic 10 --no-val --save-period -1 --project "$OUT" --name gpu --overwrite \
    2>&1 | grep -v -E '^\s*[0-9]+/[0-9]+ .*it/s\]?$' > "$OUT/train.log"
rc=${PIPESTATUS[0]}
tail -n 40 "$OUT/train.log"
ls -la "$OUT/gpu/weights" 2>&1
exit "$rc"
