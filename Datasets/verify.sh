#!/usr/bin/env bash
# Checks the datasets in manifest.tsv against their recorded checksums.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=${WAYMARK_DATASETS:-$here/../../shared/datasets}
[ -d "$root" ] || { echo "datasets folder not found: $root (set WAYMARK_DATASETS)" >&2; exit 66; }
status=0
while IFS=$'\t' read -r folder _ _ _ expected; do
  case "$folder" in ''|'#'*) continue ;; esac
  actual=$(cd "$root" && find "$folder" -type f | LC_ALL=C sort | xargs sha256sum | sha256sum | cut -c1-64)
  if [ "$actual" = "$expected" ]; then echo "ok       $folder"; else echo "MISMATCH $folder"; status=65; fi
done < "$here/manifest.tsv"
exit $status
