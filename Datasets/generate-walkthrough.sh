#!/usr/bin/env bash
# Writes the synthetic RGB-D walk-through (TUM layout plus truth.json) to DIR; see README.md.
# Usage: Datasets/generate-walkthrough.sh DIR [SEED]
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 DIR [SEED]" >&2; exit 64; }
cd "$(dirname "$0")/.."
make -s build >/dev/null
exec .build/release/waymark-bench walkthrough --output "$1" --seed "${2:-1}"
