#!/usr/bin/env bash
# Create the training venv (.venv-train): torch CPU/GPU + ultralytics + ONNX export tools,
# at the versions of the recent training legs (the lent GPU's too: train/gpu/prepare.sh);
# TRAIN_PINS= takes the newest ultralytics and ONNX tools instead.
set -euo pipefail
cd "$(dirname "$0")/.."
TRAIN_PINS="${TRAIN_PINS-ultralytics==8.4.190 onnx==1.23.2 onnxslim==0.1.98 onnxruntime==1.32.0}"
python3 -m venv .venv-train
# shellcheck disable=SC2086  # the pins are words
.venv-train/bin/pip install -q torch==2.14.1 torchvision==0.29.1 \
    ${TRAIN_PINS:-ultralytics onnx onnxslim onnxruntime}
