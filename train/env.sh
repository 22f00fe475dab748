# Source me: offline ultralytics settings for the training venv (.venv-train).
# usage: . train/env.sh
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export YOLO_OFFLINE=1
export YOLO_CONFIG_DIR="$REPO/yolo-config"
mkdir -p "$YOLO_CONFIG_DIR"
if [ ! -f "$YOLO_CONFIG_DIR/Arial.ttf" ]; then
  font="$(ls /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf 2>/dev/null || find /usr/share/fonts -name '*.ttf' | head -1)"
  [ -n "$font" ] && cp "$font" "$YOLO_CONFIG_DIR/Arial.ttf"
fi
export TILECAM_SHARED="${TILECAM_SHARED:-$REPO/../shared}"
