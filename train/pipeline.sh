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

# four more glyph styles for the crop classifier (xmahjongg's drawn sheets)
[ -d datasets/generated/synth-train-x ] || .venv/bin/tilecam dataset synth \
    --out datasets/generated/synth-train-x --count 1500 --seed 21 --imgsz 640 \
    --art xmahjongg-dorothys,xmahjongg-dorwhite,xmahjongg-gnome,xmahjongg-gnome2

# held-out art (never trained on): validation during training and the operating point
[ -d datasets/generated/synth-val-heldout ] || .venv/bin/tilecam dataset synth \
    --out datasets/generated/synth-val-heldout --count 200 --seed 2 --art heldout --imgsz 640

# 4. the training mix and the fine-tuning run (flips off; checkpoints every epoch). The run
#    validates on held-out synthetic art, never on the real val photos, and the last epoch
#    is exported (no checkpoint is chosen on the split the model card reports)
.venv/bin/python train/mix.py datasets/build/train-mix.yaml --photos datasets/build/hk-photos \
    --copies-per-stem "$COPIES" --synth datasets/generated/synth-train --synth-count "$SYNTH_COUNT" \
    --val-synth datasets/generated/synth-val-heldout
.venv-train/bin/python train/train.py --model datasets/build/start43.pt \
    --data datasets/build/train-mix.yaml --epochs "$EPOCHS" --imgsz "$IMGSZ" --batch "$BATCH" \
    --device "$DEVICE" --workers "$WORKERS" --name "$NAME" --threads "${THREADS:-0}"

# 5. the crop classifier (43 codes x 4 rotations; train/classifier/): crops cut with the
#    serving cropper (CLS_SIZE px, 64 as shipped since 2026-11-29.10) from the real train
#    photos and the synthetic scenes, a time-budgeted run (CLS_MINUTES; continue with
#    --resume --steps N), ONNX export
CLS_SIZE="${CLS_SIZE:-64}"
C="runs/classifier/s$CLS_SIZE"
mkdir -p "$C"
[ -f "$C/hk-train.npz" ] || .venv/bin/python train/classifier/crops.py "$C/hk-train.npz" \
    --photos datasets/build/hk-photos --split train --variants 2 --seed 1 --size "$CLS_SIZE"
[ -f "$C/synth-train.npz" ] || .venv/bin/python train/classifier/crops.py "$C/synth-train.npz" \
    --synth datasets/generated/synth-train --no-exact --seed 2 --size "$CLS_SIZE"
[ -f "$C/synth-train-x.npz" ] || .venv/bin/python train/classifier/crops.py \
    "$C/synth-train-x.npz" --synth datasets/generated/synth-train-x --no-exact --seed 3 \
    --size "$CLS_SIZE"
[ -f "$C/hk-val.npz" ] || .venv/bin/python train/classifier/crops.py "$C/hk-val.npz" \
    --photos datasets/build/hk-photos --split val --size "$CLS_SIZE"
.venv-train/bin/python train/classifier/train.py --real "$C/hk-train.npz" \
    --synth "$C/synth-train.npz" --synth "$C/synth-train-x.npz" --val "$C/hk-val.npz" \
    --out "runs/classifier/$NAME" --style 0.3 \
    --minutes "${CLS_MINUTES:-35}" --threads "${CLS_THREADS:-2}"
.venv-train/bin/python train/classifier/export.py "runs/classifier/$NAME/model.pt" \
    --out datasets/build/tiles-cls.onnx --weight "${CLS_WEIGHT:-0.85}" --size "$CLS_SIZE"

# 5b. the bonus-tile reader (8 codes x 4 rotations, 96 px crops of the bonus tiles only;
#     models/README.md recipe steps 26 and 35: view randomisation reads unseen photos'
#     flowers better): from the classifier's weights, then exported
R="runs/classifier/s96b"; BON=1f,2f,3f,4f,5f,6f,7f,8f
[ -f "$R/hk-train.npz" ] || .venv/bin/python train/classifier/crops.py "$R/hk-train.npz" \
    --photos datasets/build/hk-photos --split train --variants 4 --seed 1 --size 96 --codes "$BON"
[ -f "$R/synth.npz" ] || .venv/bin/python train/classifier/crops.py "$R/synth.npz" \
    --synth datasets/generated/synth-train --synth datasets/generated/synth-train-x \
    --no-exact --seed 3 --size 96 --codes "$BON"
[ -f "$R/hk-val.npz" ] || .venv/bin/python train/classifier/crops.py "$R/hk-val.npz" \
    --photos datasets/build/hk-photos --split val --size 96 --codes "$BON"
.venv-train/bin/python train/classifier/train.py --codes "$BON" --real "$R/hk-train.npz" \
    --synth "$R/synth.npz" --val "$R/hk-val.npz" --out "runs/classifier/$NAME-bonus" \
    --init "runs/classifier/$NAME/model.pt" --width 16 --lr 1e-3 --style 0.3 --view 0.5 \
    --steps "${READER_STEPS:-7000}" --threads "${CLS_THREADS:-2}"
.venv-train/bin/python train/classifier/export.py "runs/classifier/$NAME-bonus/model.pt" \
    --out datasets/build/tiles-bonus.onnx --size 96

# 5c. the glyph reader (the characters and winds, 13 codes x 4 rotations; recipe step 27):
#     a leg over all 43 codes at 96 px from the classifier's weights, then the 13 codes,
#     exported; the manifest has it look only at tiles read with p < 0.9
G="runs/classifier/s96"; GLY=1m,2m,3m,4m,5m,6m,7m,8m,9m,E,S,W,N
[ -f "$G/hk-train.npz" ] || .venv/bin/python train/classifier/crops.py "$G/hk-train.npz" \
    --photos datasets/build/hk-photos --split train --variants 2 --seed 1 --size 96
[ -f "$G/synth.npz" ] || .venv/bin/python train/classifier/crops.py "$G/synth.npz" \
    --synth datasets/generated/synth-train --synth datasets/generated/synth-train-x \
    --no-exact --seed 2 --size 96
[ -f "$G/hk-val.npz" ] || .venv/bin/python train/classifier/crops.py "$G/hk-val.npz" \
    --photos datasets/build/hk-photos --split val --size 96
.venv-train/bin/python train/classifier/train.py --real "$G/hk-train.npz" --synth "$G/synth.npz" \
    --val "$G/hk-val.npz" --out "runs/classifier/$NAME-96" --init "runs/classifier/$NAME/model.pt" \
    --lr 5e-4 --style 0.3 --balance 0.5 --steps "${LOOK_STEPS:-3000}" --threads "${CLS_THREADS:-2}"
.venv-train/bin/python train/classifier/train.py --codes "$GLY" --real "$G/hk-train.npz" \
    --synth "$G/synth.npz" --val "$G/hk-val.npz" --out "runs/classifier/$NAME-glyph" \
    --init "runs/classifier/$NAME-96/model.pt" --lr 1e-3 --style 0.3 --balance 0.5 \
    --steps "${GLYPH_STEPS:-4000}" --threads "${CLS_THREADS:-2}"
.venv-train/bin/python train/classifier/export.py "runs/classifier/$NAME-glyph/model.pt" \
    --out datasets/build/tiles-glyph.onnx --size 96

# 6. export to ONNX + manifest (the classifier is copied beside it as tiles-cls.onnx,
#    the readers as tiles-bonus.onnx and tiles-glyph.onnx),
#    then measure on the real-photo val split
SERVE_IMGSZ="${SERVE_IMGSZ:-512}"
.venv-train/bin/python train/export.py "runs/$NAME/weights/last.pt" --imgsz "$SERVE_IMGSZ" \
    --version "$(date -u +%Y-%m-%d)" --conf "${CONF:-0.25}" \
    --classifier datasets/build/tiles-cls.onnx --classifier-weight "${CLS_WEIGHT:-0.85}" \
    --classifier-size "$CLS_SIZE" --classifier-tta "${CLS_TTA:-2}" \
    --reader datasets/build/tiles-bonus.onnx --glyph-reader datasets/build/tiles-glyph.onnx
# 7. int8 detector for the CPU (QUANTIZE=1; measured, not shipped: see models/README.md),
#    then the operating point on training photos + held-out synthetic art (prints the grid; edit the manifest to use it)
if [ "${QUANTIZE:-0}" = 1 ]; then
  .venv-train/bin/python train/quantize.py models/tilecam-tiles-yolo11n.onnx \
      models/tilecam-tiles-yolo11n-int8.onnx --imgsz "$SERVE_IMGSZ" --use
fi
.venv/bin/python train/operating_point.py models
# 8. hand-confidence calibration on the real val photos + held-out art v1 (cross-validated
#    by source photo; writes the fit on all of them into the manifest), checked on held-out
#    art v2, then the report figures
.venv/bin/python train/calibrate.py models --data datasets/build/hk-photos \
    --data datasets/generated/synth-val-heldout --weight synth-val-heldout=3 --write
.venv/bin/python train/calibrate.py models --data datasets/generated/synth-val-heldout-v2 --apply
.venv/bin/tilecam eval datasets/build/hk-photos --split val
