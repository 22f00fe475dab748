#!/usr/bin/env bash
# The whole tilecam detector recipe, CPU version (see models/README.md for timings and
# the GPU variant: DEVICE=0 BATCH=64 WORKERS=8 EPOCHS=150 IMGSZ=512 COPIES=5
# SYNTH_COUNT=1500 CLS_MINUTES=20 CLS_THREADS=8 train/pipeline.sh).
# Run from the repository root. It writes a candidate model folder, runs/$NAME/models
# (MODELS=models writes the shipped folder instead, its later settings carried over), never
# models/ unless asked. Rerunning it after an interruption goes on where it stopped: data
# sets and crops already made are kept, a stopped training run is resumed (the detector
# from runs/$NAME/weights/last.pt, each crop network from its runs/classifier/*/last.pt) and
# a finished one skipped, as are the export and the calibration once done and newer than
# what they take (runs/$NAME/.done-*: a crop network trained again exports again; delete a
# marker or a run's folder to do that step again).
set -euo pipefail
cd "$(dirname "$0")/.."
. train/env.sh
DEVICE="${DEVICE:-cpu}"; BATCH="${BATCH:-16}"; WORKERS="${WORKERS:-2}"
EPOCHS="${EPOCHS:-6}"; IMGSZ="${IMGSZ:-512}"; NAME="${NAME:-tiles}"
COPIES="${COPIES:-3}"; SYNTH_COUNT="${SYNTH_COUNT:-500}"
SHARED="${TILECAM_SHARED}"
M="${MODELS:-runs/$NAME/models}"

# a venv whose install was cut short is made again (the file alone does not tell)
.venv-train/bin/python -c "import torch, ultralytics, onnx" 2>/dev/null || bash train/setup_venv.sh
mkdir -p datasets/build runs "runs/$NAME"
# a step is done when its marker exists and is newer than every input named after the
# step's name (a crop network trained again, the detector resumed: the step runs again)
done_step() {
  local marker="runs/$NAME/.done-$1" input; shift
  [ -f "$marker" ] || return 1
  for input in "$@"; do [ "$marker" -nt "$input" ] || return 1; done
}
mark_done() { touch "runs/$NAME/.done-$1"; }

# 1. starting weights: mahjong-detector (MIT) as an ultralytics checkpoint, 34 → 43 classes
START="$SHARED/models/mahjong-detector-yolo11n-34cls.pt"
if [ ! -f datasets/build/start43.pt ]; then
  [ -f "$START" ] || { echo "missing $START: set TILECAM_SHARED to the shared folder" \
      "(models/README.md, Data and credits)" >&2; exit 1; }
  cp "$START" datasets/build/start.pt
  .venv-train/bin/python train/surgery.py datasets/build/start.pt datasets/build/start43.pt
fi

# 2. real photos, mirrored copies fixed with the shipped handedness model
#    (to re-learn that model: train/parities.py, train/detector_cue.py, train/handedness.py)
[ -f datasets/build/hk-photos/data.yaml ] || .venv/bin/tilecam dataset photos \
    --out datasets/build/hk-photos

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
# second held-out set (datasets/synth.md): step 8 checks the calibration on it
[ -d datasets/generated/synth-val-heldout-v2 ] || .venv/bin/tilecam dataset synth \
    --out datasets/generated/synth-val-heldout-v2 --count 200 --seed 4 --art heldout

# 4. the training mix and the fine-tuning run (flips off; checkpoints every epoch). The run
#    validates on held-out synthetic art, never on the real val photos, and the last epoch
#    is exported (no checkpoint is chosen on the split the model card reports)
#    (a rerun resumes a stopped run, skips a finished one; the mix is made once)
[ -f datasets/build/train-mix.yaml ] || .venv/bin/python train/mix.py \
    datasets/build/train-mix.yaml --photos datasets/build/hk-photos \
    --copies-per-stem "$COPIES" --synth datasets/generated/synth-train --synth-count "$SYNTH_COUNT" \
    --val-synth datasets/generated/synth-val-heldout
LAST="runs/$NAME/weights/last.pt"
if [ -f "$LAST" ]; then
  .venv-train/bin/python train/train.py --resume "$LAST" --finished-ok --device "$DEVICE" \
      --threads "${THREADS:-0}"
else
  .venv-train/bin/python train/train.py --model datasets/build/start43.pt \
      --data datasets/build/train-mix.yaml --epochs "$EPOCHS" --imgsz "$IMGSZ" --batch "$BATCH" \
      --device "$DEVICE" --workers "$WORKERS" --name "$NAME" --threads "${THREADS:-0}" --overwrite
fi

# 5. the crop classifier (43 codes x 4 rotations; train/classifier/): crops cut with the
#    serving cropper (CLS_SIZE px, 64 as shipped since 2026-11-29.10) from the real train
#    photos and the synthetic scenes, a time-budgeted run (CLS_MINUTES; a longer one:
#    train/classifier/train.py --out runs/classifier/$NAME --resume --steps N, its own
#    settings restored), ONNX export
# cls_leg OUT ARGS...: a crop network's leg into OUT, skipped once OUT/model.pt exists,
# resumed (the same ARGS, the run's own settings) where OUT/last.pt is
cls_leg() {
  local out="$1"; shift
  if [ -f "$out/model.pt" ]; then echo "$out/model.pt exists: leg skipped"; return; fi
  local resume=()
  if [ -f "$out/last.pt" ]; then resume=(--resume); fi
  .venv-train/bin/python train/classifier/train.py --out "$out" "${resume[@]}" "$@"
}
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
cls_leg "runs/classifier/$NAME" --real "$C/hk-train.npz" \
    --synth "$C/synth-train.npz" --synth "$C/synth-train-x.npz" --val "$C/hk-val.npz" \
    --style 0.3 \
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
cls_leg "runs/classifier/$NAME-bonus" --codes "$BON" --real "$R/hk-train.npz" \
    --synth "$R/synth.npz" --val "$R/hk-val.npz" \
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
cls_leg "runs/classifier/$NAME-96" --real "$G/hk-train.npz" --synth "$G/synth.npz" \
    --val "$G/hk-val.npz" --init "runs/classifier/$NAME/model.pt" \
    --lr 5e-4 --style 0.3 --balance 0.5 --steps "${LOOK_STEPS:-3000}" --threads "${CLS_THREADS:-2}"
cls_leg "runs/classifier/$NAME-glyph" --codes "$GLY" --real "$G/hk-train.npz" \
    --synth "$G/synth.npz" --val "$G/hk-val.npz" \
    --init "runs/classifier/$NAME-96/model.pt" --lr 1e-3 --style 0.3 --balance 0.5 \
    --steps "${GLYPH_STEPS:-4000}" --threads "${CLS_THREADS:-2}"
.venv-train/bin/python train/classifier/export.py "runs/classifier/$NAME-glyph/model.pt" \
    --out datasets/build/tiles-glyph.onnx --size 96

# 6. export to ONNX + manifest into $M (the classifier copied beside it as tiles-cls.onnx,
#    the readers as tiles-bonus.onnx and tiles-glyph.onnx; train/export.py writes through a
#    checked copy of the folder and keeps whatever else $M's manifest holds), then the
#    operating point, the calibration and the measure on the real-photo val split
SERVE_IMGSZ="${SERVE_IMGSZ:-512}"
done_step export "runs/$NAME/weights/last.pt" datasets/build/tiles-cls.onnx \
    datasets/build/tiles-bonus.onnx datasets/build/tiles-glyph.onnx || {
  .venv-train/bin/python train/export.py "runs/$NAME/weights/last.pt" --imgsz "$SERVE_IMGSZ" \
      --version "$(date -u +%Y-%m-%d)" --conf "${CONF:-0.25}" --models "$M" --calibration drop \
      --classifier datasets/build/tiles-cls.onnx --classifier-weight "${CLS_WEIGHT:-0.85}" \
      --classifier-size "$CLS_SIZE" --classifier-tta "${CLS_TTA:-2}" \
      --reader datasets/build/tiles-bonus.onnx --glyph-reader datasets/build/tiles-glyph.onnx
  mark_done export; }
# 7. int8 detector for the CPU (QUANTIZE=1; measured, not shipped: see models/README.md),
#    then the operating point on training photos + held-out synthetic art (prints the grid; edit the manifest to use it)
if [ "${QUANTIZE:-0}" = 1 ]; then
  .venv-train/bin/python train/quantize.py "$M/tilecam-tiles-yolo11n.onnx" \
      "$M/tilecam-tiles-yolo11n-int8.onnx" --imgsz "$SERVE_IMGSZ" --use
fi
.venv/bin/python train/operating_point.py "$M"
# 8. hand-confidence calibration on the real val photos + held-out art v1 (cross-validated
#    by source photo; writes the fit on all of them into the manifest), checked on held-out
#    art v2, then the report figures
done_step calibration "runs/$NAME/.done-export" || {
  .venv/bin/python train/calibrate.py "$M" --data datasets/build/hk-photos \
      --data datasets/generated/synth-val-heldout --weight synth-val-heldout=3 --write
  mark_done calibration; }
.venv/bin/python train/calibrate.py "$M" --data datasets/generated/synth-val-heldout-v2 --apply
.venv/bin/tilecam eval datasets/build/hk-photos --split val --model-dir "$M"
echo "candidate model folder: $M (compare it with train/compare.py choice models $M)"
