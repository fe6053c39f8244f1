#!/bin/sh
# Re-make the writer diagrams of issue 16 (run from the repository root):
# (a) sliver: Line of Fire over a low wall through a thin sliver (plan and side view);
# (b) teardrop: three troopers hit, a prone one missed (Total Cover behind a low wall);
# (c) impact: an impact template whose Blast Focus is in Total Cover from one trooper.
# Plan views are written as SVG (true vector) and PNG; the side view as PNG.
set -e
G=${GEOM3D:-geom3d}
D=docs/images
for ext in svg png; do
  $G render $D/sliver.yaml --out $D/sliver.$ext --lof a:t --annotate heights,distances \
    --title "Line of Fire over a low wall: a sliver is enough" \
    --caption "a sees a sliver of t over the 37 mm wall (175 mm² in view): more than the 3 x 3 mm patch, so LoF yes." --quiet
  $G render $D/teardrop.yaml --out $D/teardrop.$ext --attack shot --annotate templates \
    --title "Teardrop: three troopers hit, the prone one missed" \
    --caption "The prone trooper p lies inside the teardrop, but the low wall stops every ray from the Blast Focus to it (dashed): Total Cover." --quiet
  $G render $D/impact.yaml --out $D/impact.$ext --attack grenade --lof gunner:target \
    --annotate templates,distances \
    --title "Impact template: Blast Focus in Total Cover from one trooper" \
    --caption "behind stands inside the template, but the wall cuts every ray from the Blast Focus to it (dashed)." --quiet
done
$G render $D/sliver.yaml --out $D/sliver-side.png --view side:a:t --annotate heights,distances \
  --title "Line of Fire over a low wall: side view" --quiet
