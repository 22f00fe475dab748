#!/usr/bin/env bash
# Create the training venv (.venv-train): torch CPU/GPU + ultralytics + ONNX export tools.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv-train
.venv-train/bin/pip install -q torch==2.14.1 torchvision==0.29.1 ultralytics onnx onnxslim onnxruntime
