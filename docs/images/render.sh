#!/bin/sh
# Re-make the writer diagrams (run from the repository root; issues 16 and 34):
# (a) sliver: Line of Fire over a low wall through a thin sliver: plan, side view and the
#     view from a's deciding eye (the wall's top against t's head, the seen band shaded);
# (b) teardrop: three troopers hit, a prone one missed (Total Cover behind a low wall);
# (c) impact: an impact template whose Blast Focus reaches two troopers and is in Total
#     Cover from a third (rays reached and stopped);
# (d) flamer40k: a Warhammer 40k flamer, in inches (no Infinity words, no millimetres);
# (e) wall-of-death: a 40k Wall of Death (the 8" ring, the target unit, D3 hits).
# Plan, side and eye views are written as SVG (true vector) and PNG.
# Timing: python benchmarks/bench_render.py
set -e
G=${GEOM3D:-geom3d}
D=docs/images
for ext in svg png; do
  $G render $D/sliver.yaml --out $D/sliver.$ext --lof a:t --annotate heights,distances \
    --title "Line of Fire over a low wall: a sliver is enough" \
    --caption "a sees a sliver of t over the 37 mm wall (175 mm² in view): more than the 3 x 3 mm patch, so LoF yes." --quiet
  $G render $D/sliver.yaml --out $D/sliver-side.$ext --view side:a:t --annotate heights,distances \
    --title "Line of Fire over a low wall: side view" \
    --caption "The deciding ray passes just over the wall's top (37 mm); the shaded band is the part of t that a's eye sees." --quiet
  $G render $D/sliver.yaml --out $D/sliver-eye.$ext --view eye:a:t --lof a:t \
    --title "Line of Fire over a low wall: what a's eye sees" \
    --caption "Seen from a's deciding eye point: the band of t above the wall (shaded) holds the 3 x 3 mm patch (outlined); the dashed outline is t behind the wall." --quiet
  $G render $D/teardrop.yaml --out $D/teardrop.$ext --attack shot --annotate templates \
    --title "Teardrop: three troopers hit, the prone one missed" \
    --caption "The prone trooper p lies inside the teardrop, but the low wall stops every ray from the Blast Focus to it (dashed): Total Cover." --quiet
  $G render $D/impact.yaml --out $D/impact.$ext --attack grenade --zoom 2 \
    --title "Impact template: the Blast Focus reaches two troopers, not the third" \
    --caption "Rays from the Blast Focus reach target and beside (solid); the wall cuts every ray to behind (dashed): Total Cover." --quiet
  $G render $D/flamer40k.yaml --out $D/flamer40k.$ext --attack flamer --annotate templates \
    --title "Warhammer 40k: a flamer on the boyz" \
    --caption "The template covers the three boyz and the nob; only the target unit's models count: 3 hits." --quiet
  $G render $D/wall-of-death.yaml --out $D/wall-of-death.$ext --attack wall-of-death \
    --title "Warhammer 40k: Wall of Death" \
    --caption "A flamer's snap shot places no template: boy-1 is within 8 inches of the sergeant's base, so the boyz take D3 hits." --quiet
done
