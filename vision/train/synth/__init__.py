"""Synthetic scenes of Liaoning mahjong hands for detector training and layout-reader tests.

Why: the real photo set has no face-down tiles, no melds set apart, no ┴ kongs and no 混 indicator;
these scenes show them with exact boxes and layout truth.

    python -m vision synth --out DIR --n N --seed S [--val-fraction F] [--source REAL_SET] [--workers K]
                           [--drawn-share F]

`--drawn-share F` gives that share of scenes faces drawn in other sets' printing styles (with the
CJK font shipped in vision/assets/fonts, or $VISION_CJK_FONT); 0 (the default) keeps every face cut
from the real set.

`--vary` / `--no-vary` switch the domain randomisation that teaches "tile" and "face" rather than one
print: more drawn prints, tile body and back colours, automatic-table felt, views from the
player's seat with upright tiles, and what phones and webcams do (exposure, white balance, glare,
blur, noise, recompression).  All on by default; `--vary none` renders the earlier scenes byte for byte.

Modules, one job each: `faces` (real face crops from the shared set's train split), `drawn` (the 34
faces drawn procedurally, one printing style per column of the bank), `tiles`
(tile sprites with thickness), `table` (procedural tables, light, blur, noise), `content` (which
tiles a hand shows), `scene` (placement, warp, boxes, truth), `cli` (the dataset on disk),
`truth` (reading a scene back for evaluation), `vary` (the randomisation switches and their
generators), `seat` (upright tiles and the camera at the player's seat), `photo` (camera effects on
the finished scene).

Layout truth `DIR/layout/<name>.json` (indices are line numbers, from 0, of `labels/<name>.txt`):

    image, labels            relative paths of the image and its label file
    width, height            image size in pixels
    standing                 the standing hand, left to right (includes the winning tile when it
                             is not set apart: then winning_in_standing is true)
    winning                  the lone winning tile set apart, or null; winning_face its code
    indicator                the 混 indicator tile set apart, or null
    melds                    list of {kind: chi|pong|kong|concealed_kong, tiles: [...] left to right,
                             a ┴ kong's top tile last, faces: codes of the four/three tiles (also
                             of those shown face down), shape: row|stacked, stacked: the ┴ top
                             tile or null, sideways: the tile laid across or null, backs: the
                             face-down tiles}
    meld_placement           row (right of the hand), front (nearer the camera), behind, or null
    wall                     face-down wall tiles (labelled `back`, not part of the hand)
"""
