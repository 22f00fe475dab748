#!/usr/bin/env bash
# The whole tilecam detector recipe, CPU version (see models/README.md for timings and
# the GPU variant: DEVICE=0 BATCH=64 WORKERS=8 EPOCHS=60 train/pipeline.sh).
# Run from the repository root. Steps are idempotent; training resumes with
#   .venv-train/bin/python train/train.py --resume runs/$NAME/weights/last.pt
set -euo pipefail
cd "$(dirname "$0")/.."
. train/env.sh
DEVICE="${DEVICE:-cpu}"; BATCH="${BATCH:-16}"; WORKERS="${WORKERS:-2}"
EPOCHS="${EPOCHS:-6}"; IMGSZ="${IMGSZ:-512}"; NAME="${NAME:-tiles}"
COPIES="${COPIES:-3}"; SYNTH_COUNT="${SYNTH_COUNT:-500}"
SHARED="${TILECAM_SHARED}"

[ -x .venv-train/bin/python ] || train/setup_venv.sh
mkdir -p datasets/build runs

# 1. starting weights: mahjong-detector (MIT) as an ultralytics checkpoint, 34 → 43 classes
cp "$SHARED/models/mahjong-detector-yolo11n-34cls.pt" datasets/build/start.pt
.venv-train/bin/python train/surgery.py datasets/build/start.pt datasets/build/start43.pt

# 2. real photos, mirrored copies fixed with the shipped handedness model
#    (to re-learn that model: train/parities.py, train/detector_cue.py, train/handedness.py)
.venv/bin/tilecam dataset photos --out datasets/build/hk-photos

# 3. synthetic scenes (art sets of datasets/synth.md; gnome-postmodern held out)
[ -d datasets/generated/synth-train ] || .venv/bin/tilecam dataset synth \
    --out datasets/generated/synth-train --count 1500 --seed 1 --art default --imgsz 640

# 4. the training mix and the fine-tuning run (flips off; checkpoints every epoch)
.venv/bin/python train/mix.py datasets/build/train-mix.yaml --photos datasets/build/hk-photos \
    --copies-per-stem "$COPIES" --synth datasets/generated/synth-train --synth-count "$SYNTH_COUNT"
.venv-train/bin/python train/train.py --model datasets/build/start43.pt \
    --data datasets/build/train-mix.yaml --epochs "$EPOCHS" --imgsz "$IMGSZ" --batch "$BATCH" \
    --device "$DEVICE" --workers "$WORKERS" --name "$NAME" --threads "${THREADS:-0}"

# 5. the crop classifier (43 codes x 4 rotations), time-budgeted
.venv-train/bin/python train/classifier.py --minutes "${CLS_MINUTES:-35}" \
    --threads "${CLS_THREADS:-1}" --out datasets/build/crops.onnx

# 6. export to ONNX + manifest, then measure on the real-photo val split
SERVE_IMGSZ="${SERVE_IMGSZ:-640}"
.venv-train/bin/python train/export.py "runs/$NAME/weights/best.pt" --imgsz "$SERVE_IMGSZ" \
    --version "$(date -u +%Y-%m-%d)" --conf "${CONF:-0.1}" \
    --classifier datasets/build/crops.onnx --classifier-weight "${CLS_WEIGHT:-0.7}"
# 7. int8 detector for the CPU (QUANTIZE=0 keeps float32), then the operating point on
#    training photos + held-out synthetic art (prints the grid; edit the manifest to use it)
if [ "${QUANTIZE:-1}" = 1 ]; then
  .venv-train/bin/python train/quantize.py models/tilecam-tiles-yolo11n.onnx \
      models/tilecam-tiles-yolo11n-int8.onnx --imgsz "$SERVE_IMGSZ" --use
fi
.venv/bin/python train/operating_point.py models
.venv/bin/tilecam eval datasets/build/hk-photos --split val
