"""Where the reader draws its lines: one dataclass, its values read from the model's model.json.

Why one place: the operating point decides what a player sees (which boxes come back, which are
drawn orange and asked about first) and what `evaluate` reports; it was once a 0.25 repeated in
several modules, where changing one copy silently disagreed with the others. model.json carries a
model's own values (chosen by `train` on synthetic validation scenes); the defaults here are used
only for a model.json that predates a field, and for bare YOLO weights.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass

#: The pixels OperatingPoint.square_pair_up_to counts in: 1.0 is a square 10,000 px on a side.
SQUARE_PAIR_PIXELS = 10_000


@dataclass(frozen=True)
class OperatingPoint:
    """The reader's thresholds. Field names are model.json's keys."""

    #: Joint (detector x face) confidence: with tile_conf, the detector's floor at the operating
    #: point. Views of a photo are compared at `tile_conf` (vision.read.detect.choose_view).
    conf: float = 0.25
    #: A box whose tile confidence (is it a tile at all) is at or above this is returned.
    tile_conf: float = 0.25
    #: A returned tile whose face probability is under this is marked unsure (orange on the page).
    face_conf: float = 0.5
    #: Boxes overlapping more than this (IoU) are one tile to the detector's non-maximum suppression.
    nms_iou: float = 0.6
    #: A crop whose face the classifier reads less sure than this from the crop as it is is read
    #: again in its three other views and the four averaged (vision.read.tilenet.classify_crops;
    #: 1.0: every crop, 0.0: none). A reader's threshold like the others: it moves which face is
    #: read and how sure, so a change is judged by the ship rule (benchmarks/reader_report.py).
    tta_below: float = 0.9
    #: With a classifier that has a `flower` output: a box is a flower (never returned) when that
    #: output tops every face AND reads at least this (vision.read.detect.tile_and_face). 0.0: it
    #: only has to top them. Chosen by `train` on the train tile crops (vision.train.new_outputs.
    #: flower_bar): a bar under which a tile of the 34 is called a flower once in a thousand.
    flower_at_least: float = 0.0
    #: A box read in an aspect view (a photo stretched out of its aspect: vision.read.detect.
    #: ASPECT_VIEWS) whose face reads less sure than this is read again from its crop turned the
    #: other way, and the surer reading kept (vision.read.detect._with_faces). Why: the box's shape
    #: in a stretched photo is the stretch's, not the tile's, so whether the tile stood or lay (and
    #: so which way the crop must turn to stand it up) is not known; a tile standing in a column
    #: that an export widened 15x is a bar, turned sideways by the landscape rule, then squashed
    #: into the portrait crop. 0.0: never (every model.json before it); 1.0: every such box.
    turn_below: float = 0.0
    #: The share of one side an extra pair of aspect views keeps (0.5: the photo squeezed 2x in
    #: width, and 2x in height, beside ASPECT_VIEWS' 4x and 8x); 0.0: none (every model.json before
    #: it). Why: a 16:9 frame exported into a square (riichi-standing-dev's 2560x1440 screenshots at
    #: 640x640) narrows each tile 1.78x; the 4x view overshoots it, and the plain view misses most of
    #: its tiles (vision.read.detect.aspect_views_of). Read only where the plain view looks
    #: distorted, kept only where choose_view prefers it, as every aspect view.
    mild_view: float = 0.0
    #: Above 0: in the mild pair of views (`mild_view`), each box's crop is turned by the box's shape
    #: in that view, as the detector saw it, and never read again turned (`turn_below` stays for
    #: the 4x and 8x views). 0.0: as any aspect view (every model.json before it). Why: squeezed
    #: back 2x a tile has its own proportions, so whether it stood or lay is known; the turned
    #: re-read there read standing tiles' faces sideways and wrong (models/MODEL_CARD.md, stop 55).
    mild_as_seen: float = 0.0
    #: Above 0: the mild pair (`mild_view`) replaces the plain view where it reads at least
    #: (1 + mild_switch) x the plain view's score, and ASPECT_GAIN more (vision.read.detect.
    #: view_bar); the 4x and 8x views keep ASPECT_FACTOR. 0.0: the mild pair needs what every
    #: aspect view needs (every model.json before it). Why: a 16:9 frame squeezed into a square still
    #: reads many of its tiles in the plain view, so the 2x view, which reads them as they were
    #: photographed, seldom reads twice as many (models/MODEL_CARD.md, stops 55 and 56); the 4x and
    #: 8x views overshoot any camera's aspect and keep the high bar.
    mild_switch: float = 0.0
    #: Above 0: the mild pair (`mild_view`) replaces the plain view wherever it reads more than the
    #: plain view's score, with no factor and no ASPECT_GAIN (`mild_switch` then has no say); the 4x
    #: and 8x views keep ASPECT_FACTOR. 0.0: `mild_switch`'s bar (every model.json before it). Why:
    #: of riichi-standing-dev's 37 exports that reach the views, `mild_switch`'s bar let the 2x view
    #: replace the plain view in 18; with this key it replaces it in 27, and the set returns 0.713 of
    #: its tiles instead of 0.662 (models/MODEL_CARD.md, stop 57; found on that reported set).
    mild_even: float = 0.0
    #: Above 0: where the plain view's sure tiles are longer than a tile can be (median long/short
    #: side over the distortion ratio, vision.read.detect.distortion_ratio), the view of the mild
    #: pair that squeezes along their long side replaces the plain view wherever it reads anything,
    #: whatever the plain view reads (the 4x and 8x views keep their bar, and the best score among
    #: the views that clear theirs is kept). 0.0: `mild_even`'s bar (every model.json before it).
    #: Why: a tile photographed as it stands or lies is 4:3, seen low squatter still, so a face
    #: twice as long as wide is a photo stretched out of its aspect, and the plain view's score of
    #: such tiles is no reading to keep (models/MODEL_CARD.md, stop 58).
    mild_long: float = 0.0
    #: Above 0: where a photo is read again squatter (`camera_squat`), the detector also reads the
    #: mirror image of that view and the two readings are averaged as test-time augmentation does
    #: (vision.read.mirror.mean_of_two: boxes that are one tile at `nms_iou` take the mean of both
    #: confidences, a box one look alone found half its own). 0.0: one look (every model.json
    #: before it). Why: the unseen print's standing tiles that go missing are mostly boxes the
    #: detector half-believes. Off in models/model.json: it returned fewer of them and more boxes
    #: that are no tile (models/MODEL_CARD.md, stop 58).
    mirror_tall: float = 0.0
    #: Above 0 (with `square_views` and `mild_view`): a square photo whose plain view does not look
    #: distorted is also read through the mild pair, and one of them replaces the plain view where
    #: it reads more (vision.read.detect.view_bar, `mild_even`'s bar); else it reads as without it.
    #: 0.0: only a square that looks distorted reads its views (every model.json before it). Why: a
    #: square may be a camera's frame squeezed whatever its tiles look like; standing tiles seen low
    #: are squat, so squeezed they still look under 2:1. Off in models/model.json: it returned more of
    #: the training print's tiles but read some faces sideways (models/MODEL_CARD.md, stop 58).
    square_pair: float = 0.0
    #: Above 0, with `square_pair`: in that path only (a square that does not look distorted), the
    #: kept 2x view's crops are turned upright by each box's shape in the photo as it is, as the
    #: plain view's are, never by its shape in the view (`mild_as_seen`) nor read again turned
    #: (`turn_below`). 0.0: as any mild view (every model.json before it). Why: such a photo's tiles
    #: are of a tile's shape, so the photo says whether a tile stood or lay; the 2x view overshoots a
    #: 3:4 photo squeezed into a square, a lying tile looks upright there, and its crop was turned
    #: the wrong way (models/MODEL_CARD.md, stops 58 and 59).
    pair_as_taken: float = 0.0
    #: Above 0, with `square_pair`: in that path only, the 2x pair is read with the plain view's
    #: flower rules (the classifier's flower output, the flower gate, `rescue_gate`), from the
    #: scores against the bar to the kept view's boxes. 0.0: flowers are never called in it, as in
    #: every aspect view (every model.json before it). Why: such a photo does not look distorted,
    #: so it is a photo as taken, and 4 of the 5 boxes square_pair added on g4 were flower tiles
    #: (models/MODEL_CARD.md, stops 59 and 60).
    pair_flowers: float = 0.0
    #: Above 0, with `square_pair`: that path only for a square whose long side at full size is at
    #: most this many times SQUARE_PAIR_PIXELS (every key is within 0..1: 0.128 is 1280 px).
    #: 0.0: any size (every model.json before it). Why: a frame squeezed into a square is a resize
    #: an export tool makes at a model's input size (640 in every real set), while a phone's own
    #: square photo (its 1:1 mode) is a crop of the sensor at full resolution, never a squeeze; the
    #: pair's two views cost a 12 MP square 2.4x the page's time (models/MODEL_CARD.md, stop 60).
    square_pair_up_to: float = 0.0
    #: Above 0, with `square_pair`: where that path keeps a 2x view, its boxes are pooled into the
    #: plain reading (the plain view's sure boxes first, vision.read.detect._pooled) instead of the
    #: view replacing it. 0.0: the kept view replaces the plain reading (every model.json before
    #: it). Why: the plain view's faces stand wherever it has a box, and only the tiles it missed
    #: are added (models/MODEL_CARD.md, stops 59 and 60).
    pair_pooled: float = 0.0
    #: Above 0: where a photo is read again squatter (`camera_squat`), the plain reading is kept
    #: where it scores more (vision.read.detect._ViewReading.score at `tile_conf`; a tie keeps the
    #: squat one). 0.0: the squat reading stands (every model.json before it). Why: the detector's
    #: reading of an unseen print's standing tiles swings with the geometry from photo to photo, so
    #: a second reading that reads less should not replace the first. Off in models/model.json: the
    #: plain reading scored more where it boxed more that is no tile (models/MODEL_CARD.md, stop 58).
    squat_best: float = 0.0
    #: Above 0: where a photo is read again squatter (`camera_squat`), the plain reading's boxes
    #: the squat reading lacks are pooled into it (its sure boxes first, vision.read.detect._pooled)
    #: instead of the squat reading replacing the plain one (before `squat_best` decides). 0.0: the
    #: squat reading stands alone (every model.json before it). Why: a second look that adds the
    #: boxes the first lacks and keeps the first's boxes and faces shipped for the 2x pair
    #: (`pair_pooled`, models/MODEL_CARD.md stop 60).
    squat_pooled: float = 0.0
    #: Above 0: a photo that could be stretched (vision.read.detect.could_be_stretched) looks
    #: distorted where its confident tiles' median short side is under this share of their long
    #: side (0.5: 2:1); 0.0: under 1 / ASPECT_MAX_RATIO (every model.json before it). Why: a 16:9
    #: frame squeezed into a square makes a standing tile about 2.4:1, under ASPECT_MAX_RATIO's 2.5,
    #: so its aspect views were never read (models/MODEL_CARD.md, stop 56).
    distorted_below: float = 0.0
    #: Above 0: a reading of the mild pair (`mild_view`) shows its tiles in their own proportions,
    #: so it counts as a photo as taken for the rules that ask the boxes' sizes and the frame's
    #: cuts (the frame guard, `rescue_alone`, `cut_bigger`), and those rules and the row rescue see
    #: its boxes as the detector saw them, squeezed back; flowers are still never called in it.
    #: 0.0: as any aspect view (every model.json before it). Why: a 16:9 frame squeezed into a
    #: square and read through the 2x view returned far fewer of its tiles than the same frame at
    #: 16:9, which those rules read as a photo as taken (models/MODEL_CARD.md, stop 56).
    mild_undistorted: float = 0.0
    #: Above 0, with `square_views`: a photo at its camera's aspect (not a square, so never a
    #: stretched export) whose tiles look tall (`camera_squat_below`) is shown to the detector again
    #: with its height x camera_squat, its width as it is, and that reading replaces the first; the
    #: boxes come back in the photo's pixels and every other rule reads the photo as taken. Not
    #: with a player's learnt detector, which learnt photos as taken. 0.0: the photo as it is
    #: (every model.json before it). Why: the detector learnt tiles from exports Roboflow stretched
    #: to squares (train boxes upright: median w/h 0.86; a tile's face is about 3:4), and reads an
    #: unseen print's standing tiles photographed at 16:9 far better a little squatter, but tiles
    #: already squat (flat, seen from the seat) worse (models/MODEL_CARD.md, stop 56).
    camera_squat: float = 0.0
    #: With `camera_squat`: the median width / height of the first reading's sure boxes under which
    #: the tiles look tall (at least ASPECT_MIN_TILES of them); 0.0 with camera_squat: every such
    #: photo. The shipped value is the train boxes' median w/h times camera_squat: read squatter,
    #: the tiles are then no squatter than the tiles the detector learnt.
    camera_squat_below: float = 0.0
    #: A box whose tile confidence is under `tile_conf` but at least this is returned too when it
    #: stands in a row (or column) with sure tiles, touching one, of a tile's size
    #: (vision.read.row_rescue); it is reported at `tile_conf`. 0.0: never (every model.json
    #: before it). Why: on standing tiles of a print never seen, the tiles the detector misses are
    #: mostly boxed under the point, beside tiles it is sure of, and its false boxes mostly stand
    #: alone in the clutter (models/MODEL_CARD.md, stop 47).
    row_rescue: float = 0.0
    #: With `row_rescue`: a doubted box may be rescued (or carry the chain on) only if the
    #: classifier's best face for it reads at least this. 0.0: any face (every model.json before it).
    #: Why: the rescue's false boxes were book spines chained along a shelf (models/MODEL_CARD.md,
    #: stop 47); a spine is no tile of ours, so which tile it is should be unsure.
    rescue_face: float = 0.0
    #: With `row_rescue`, above 0: a doubted box is rescued only where it fills a gap, a kept tile of
    #: its size on its line on each side of it; it never lengthens a row. 0.0: at the ends too (every
    #: model.json before it). Why: the rescue ran along a hand onto the flower tiles at its end, which
    #: the classifier reads as 1s or 1p surely (models/MODEL_CARD.md, stop 49).
    rescue_gaps: float = 0.0
    #: With `row_rescue`, above 0: in a photo that does not look distorted (as `flower_at_least`), a
    #: box cut by the frame (an edge within this share of the photo's side from its border) is
    #: neither rescued nor carries a rescue on; at the operating point it is returned as before.
    #: 0.0: no such guard (every model.json before it). Why: the rescue trusts a box whose size
    #: matches a sure neighbour's on one line, and a box the frame cuts has no known size; what the
    #: frame cuts at a table is mostly clutter, book spines on a shelf chained to a spine the reader
    #: already kept (models/MODEL_CARD.md, stop 53). A stretched export's tiles span its frame.
    rescue_uncut: float = 0.0
    #: With `row_rescue` and a flower gate, above 0: in a photo that does not look distorted, a
    #: doubted box the gate reads as a flower at least this surely is neither rescued nor carries a
    #: rescue on. 0.0: no such guard (every model.json before it). Why: the rescue let back flower
    #: tiles in grids that the gate read under `flower_gate_at_least`, a bar set for boxes the
    #: reader is sure of; a rescue is weaker evidence, and a tile kept out of it costs only the
    #: rescue (models/MODEL_CARD.md, stop 53). 0.5: the gate's own argmax.
    rescue_gate: float = 0.0
    #: With `row_rescue`, above 0: a doubted box is rescued only where it makes a line of three
    #: with kept tiles on one axis (vision.read.row_rescue._Lines.in_three). 0.0: one touching
    #: neighbour is enough (every model.json before it). Why: in a pile of tilted tiles, boxes touch
    #: by chance, and the rescue let back boxes across two tiles there, read with a wrong face; a
    #: row is three tiles or more (models/MODEL_CARD.md, stop 53).
    rescue_three: float = 0.0
    #: With `row_rescue`, above 0: in a photo that does not look distorted, a doubted box (tile
    #: confidence at least `row_rescue`) in no row is returned alone where its best face reads at
    #: least this, the flower gate and the frame guards (`rescue_gate`, `rescue_uncut`) let it, and
    #: it is the kept tiles' size (vision.read.row_rescue.alone_rescued). 0.0: never (every
    #: model.json before it). Why: on an unseen print's standing tiles, set on the felt one by one,
    #: and in a pile's tilted tiles, the tiles the detector doubts stand in no row; without a row to
    #: vouch for a box, its face must (models/MODEL_CARD.md, stop 55).
    rescue_alone: float = 0.0
    #: With `rescue_alone`, above 0: a box is let back alone only where its centre lies within the
    #: extent of the kept tiles the frame does not cut: among them, not beyond them (0.0: anywhere).
    rescue_alone_among: float = 0.0
    #: With `rescue_alone_among`, above 0: a box counts as among the kept tiles where the box itself
    #: reaches into their extent, not only its centre (0.0: its centre, every model.json before it).
    #: Why: a tile standing at the end of a group, or in a row just behind it, has its centre a
    #: little outside the sure tiles' extent though its edge touches it; clutter on a shelf above
    #: the tiles stays out by the frame and size guards (models/MODEL_CARD.md, stop 62).
    rescue_alone_touching: float = 0.0
    #: With `rescue_alone_among`, above 0: a doubted box also counts as among the sure tiles where
    #: the gap between it and one of them is too small for a tile (less than their median short
    #: side; vision.read.row_rescue.near_a_tile). 0.0: never (every model.json before it). Why: a
    #: tile standing a little apart from its group, at its end or a row behind, lies outside the
    #: sure tiles' extent though nothing could stand between (models/MODEL_CARD.md, stop 63).
    rescue_alone_near: float = 0.0
    #: With `rescue_alone_near`, above 0: a doubted box less than a tile from a kept tile comes back
    #: alone where its face reads at least this surely, instead of `rescue_alone` (0.0: the same bar
    #: for every box, every model.json before it). Chosen on the train split, never a reported set:
    #: the lowest bar at which such boxes lie on a missed tile as often as those read at
    #: `rescue_alone` or more (models/MODEL_CARD.md, stop 63).
    rescue_near_face: float = 0.0
    #: With `rescue_alone`, above 0: a doubted box whose surest face is `back` is never let back
    #: alone (0.0: it may be, every model.json before it). Why: the alone rescue's evidence is a
    #: face read surely, and a face-down tile shows none; the felt between standing tiles reads as
    #: a back (models/MODEL_CARD.md, stop 63).
    rescue_alone_faces: float = 0.0
    #: With `row_rescue` and `rescue_alone`, above 0: in a photo that does not look distorted where
    #: fewer than three boxes are kept at the point, the doubted boxes whose face reads at least
    #: `rescue_alone` (under the gate and frame guards) come back where they and the kept boxes make
    #: three tiles or more of one size (vision.read.row_rescue.unsure_photo_rescued). 0.0: never
    #: (every model.json before it). Why: on photos of an unseen print's tiles standing apart, the
    #: detector doubts the whole photo, so no sure tile is there to make a row with or to lie
    #: among, and the row and alone rescues cannot run (models/MODEL_CARD.md, stops 59 and 61).
    rescue_unsure: float = 0.0
    #: Above 0: in a photo that does not look distorted (as `rescue_uncut`), a box the frame cuts
    #: (an edge within 1 % of the photo's side from its border) whose long side is at least
    #: (1 + this) times the median long side of the returned boxes the frame does not cut (three at
    #: least) is not returned, at any point. 0.0: returned as any box (every model.json before it).
    #: Why: part of a tile is never bigger than the whole tiles beside it, and what the frame cuts
    #: at a table is mostly clutter: book spines on a shelf above the tiles, read surely as tiles,
    #: were most of the wrong boxes on an unseen print's standing tiles (models/MODEL_CARD.md, stop
    #: 54; vision.read.row_rescue.too_big_for_a_cut_tile). A stretched export's tiles span its frame.
    cut_bigger: float = 0.0
    #: With `row_rescue` and a classifier that has a `flower` output, above 0: a doubted box is
    #: rescued (and carries the chain on) only if its flower output reads under this, in a photo
    #: that does not look distorted (as `flower_at_least`). 0.0: no such gate (every model.json
    #: before it). Chosen by `train` on the train tile crops (vision.train.new_outputs.
    #: rescue_flower_bar). Why: on a grid of tiles with the flower tiles among them, the rescue put
    #: back the flowers the detector had rightly doubted, read as N or 5m; the flower output leaned
    #: to them without topping every face (models/MODEL_CARD.md, stop 50).
    rescue_flower: float = 0.0
    #: With a classifier that has a `flower` output, in a photo that does not look distorted: the
    #: share of a box's flower reading that counts toward its tile confidence (detector x (faces +
    #: share x flower)). 1.0: all of it (every model.json before it; stop 36: a flower is a tile,
    #: only not in play, dropped when it tops every face and reaches `flower_at_least`). 0.0: a
    #: flower is no tile in play, like `other`. Why: a flower output learnt on hand-checked
    #: flowers (stop 51) reads much of what `other` read before, and counted as a tile it lifted a
    #: box whose faces read 0.02 over the point (models/MODEL_CARD.md, stop 51).
    flower_tile_share: float = 1.0
    #: With a flower gate beside the classifier (model.json's `flower_gate`: a TileNet with two
    #: outputs, tile and flower), above 0: in a photo that does not look distorted (as
    #: `flower_at_least`), a box the gate reads as a flower at least this surely is not in play:
    #: never returned, never rescued (vision.read.detect.tile_and_face; the gate is asked only of
    #: boxes the reader could return, so a flower under the point may be offered as maybe missed). 0.0: no gate (every model.json before it). Chosen by `vision flower-gate` on
    #: train photos the gate did not learn from (vision.train.flower_gate.gate_bar). Why: a flower
    #: output among the faces took this set's 1p and 1s for flowers (stop 51); a question of its
    #: own, with those faces as hard negatives, tells them apart (models/MODEL_CARD.md, stop 52).
    flower_gate_at_least: float = 0.0
    #: With the flower gate: it is asked only of boxes whose best face the classifier reads less
    #: surely than this (1.0: every box). Chosen by `vision flower-gate` on the held-out photos:
    #: the lowest value at which the gate catches as many of their flowers as asking every box.
    #: Why: a flower is no face, so the classifier is never sure of it, and the gate's pass over
    #: every crop cost the page more than its speed budget had (models/MODEL_CARD.md, stop 52).
    flower_gate_below: float = 1.0
    #: The photo as it is read a second time at this share of the detector's input size (0.8333:
    #: 320 of 384 pixels, rounded to the detector's stride of 32), the two readings' boxes pooled and
    #: suppressed together; only where the plain view does not look distorted (a stretched export is
    #: read through the aspect views instead). 0.0: never (every model.json before it). Why: the
    #: detector's view of an unseen print's standing tiles depends on their size (models/
    #: MODEL_CARD.md, stop 44: a sixth smaller, 7 points more of them returned, other sets worse);
    #: pooled, each size may return what the other misses.
    small_view: float = 0.0
    #: With `small_view`, above 0: where both sizes box a tile the plain reading is sure of
    #: (detector confidence >= tile_conf), the plain box stands, so that tile keeps the box and the
    #: face it has without the second size; elsewhere the surer box stands. 0.0: the surer box
    #: always stands (every model.json before it). Why: a kept box of the smaller reading is cut a
    #: little differently, and both pooled readers so far lost faces on tiles the plain reading had
    #: right (models/MODEL_CARD.md, stops 48 and 51).
    small_view_plain_first: float = 0.0
    #: With `small_view`, above 0: the second size is read only where the plain reading holds fewer
    #: than three boxes at the point (as `rescue_unsure`: the detector doubts the whole photo). 0.0:
    #: wherever `small_view` says (every model.json before it). Why: the second size returned more
    #: of an unseen print's standing tiles and as many false boxes over every photo (stop 48); a
    #: photo with sure tiles reads as it did (models/MODEL_CARD.md, stop 61).
    small_view_unsure: float = 0.0
    #: With `small_view` and `small_view_unsure`, above 0: a square that looks distorted and keeps a
    #: view of the mild pair (its tiles in their own proportions, `mild_undistorted`) with fewer
    #: than three sure boxes reads that view again at the second size, pooled as above. 0.0: such a
    #: square reads its kept view once (every model.json before it). Why: the same unseen print's
    #: standing tiles, exported into a square (models/MODEL_CARD.md, stop 61).
    small_view_stretched: float = 0.0
    #: Above 0: the aspect views (and the mild pair) are read only for a photo whose two sides differ
    #: by at most this share of the longer (0.02: a square, give or take rounding); 0.0: for any
    #: photo that looks distorted (every model.json before it). Why: a stretched photo is an
    #: export's square (Roboflow's 640 x 640); a phone photo keeps its camera's aspect, so its views
    #: cannot read it better, and for a hand that fills part of the frame they are most of the time
    #: the page takes (models/MODEL_CARD.md, stop 48).
    square_views: float = 0.0
    #: Above 0: a close-up (looks_close: its sure boxes' median long side at least `zoom_view_at` of
    #: the photo's long side) that does not look distorted is read again centred on a canvas, the
    #: photo taking this share of its width and height (0.5: a canvas twice its size), filled with
    #: its border's colour; the two readings pooled as `small_view` pools them (where both box one
    #: tile, `small_view_plain_first` says which box stands; vision.read.detect._read_zoomed). 0.0:
    #: never (every model.json before it).
    #: Why: the shipped detector returned 0.84 of the tiles of val photos whose tiles are 15-25 %
    #: of the frame, against 0.98-1.0 for smaller ones, and read a loser's melds photographed close
    #: right on a third of the photos; on the canvas the tiles have a size it reads well
    #: (models/MODEL_CARD.md, stop 53).
    zoom_view: float = 0.0
    #: With `zoom_view`: the share of the photo's long side from which a reading is a close-up.
    zoom_view_at: float = 0.0
    #: Above 0, with `square_views`: a photo that could be a stretched export and whose plain
    #: reading has enough sure tiles to tell (ASPECT_MIN_TILES) is read both as taken and as
    #: stretched, and the reading that scores more at the point is kept (a tie: the one the
    #: distortion test picks). 0.0: the test alone picks (every model.json before it). Why: the
    #: test is one median against `distorted_below`, and the unseen print's exports lie on that
    #: edge, so a detector boxing their tiles a few percent squatter read them the other way and
    #: lost tiles (models/MODEL_CARD.md, stop 68). This rule takes no value of its own.
    square_both: float = 0.0

    def is_unsure(self, face_probability: float) -> bool:
        """The unsure rule: the reader is sure a tile is there but not of its face."""
        return face_probability < self.face_conf

    def to_json(self) -> dict[str, float]:
        return asdict(self)

    @classmethod
    def from_json(cls, d: Mapping[str, object], legacy_tile_conf: bool = False) -> OperatingPoint:
        """The values present in `d` (model.json), the defaults for the rest; each within 0..1.
        `legacy_tile_conf`: a format-1 model.json had one threshold, `conf`, for both."""
        values: dict[str, float] = {}
        for name in cls.__dataclass_fields__:
            raw = d.get(name)
            if raw is None and name == "tile_conf" and legacy_tile_conf:
                raw = d.get("conf")
            if raw is None:
                continue
            values[name] = unit_value(name, raw)
        return cls(**values)


def unit_value(name: str, raw: object) -> float:
    """`raw` as a confidence: a JSON number within 0..1 (true/false and strings are not numbers);
    else a ValueError naming `name`. One check for every threshold a model.json carries."""
    if isinstance(raw, bool) or not isinstance(raw, (int, float)):
        raise ValueError(f"{name} must be a number, got {raw!r}")
    value = float(raw)
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must be within 0..1, got {value}")
    return value


#: The values used where a model does not say (see the module doc).
DEFAULT = OperatingPoint()
