#!/usr/bin/env bash
# Copies the sample data that Debian's opencv-doc package ships into DIR (default out/samples):
# the images and ground truth the smallest detection checks use, and OpenCV's sample videos.
set -euo pipefail
dest=${1:-out/samples}
doc=/usr/share/doc/opencv-doc
if [ ! -d "$doc/examples/data" ]; then
  [ "$(id -u)" = 0 ] && sudo= || sudo=sudo
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq opencv-doc >/dev/null
fi
mkdir -p "$dest"
for f in graf1.png graf3.png H1to3p.xml box.png box_in_scene.png aloeL.jpg leuvenA.jpg leuvenB.jpg Megamind.avi tree.avi; do
  cp "$doc/examples/data/$f" "$dest/"
done
for v in box cup; do
  gunzip -c "$doc/opencv4/html/$v.mp4.gz" > "$dest/$v.mp4"
done
echo "sample data in $dest"
