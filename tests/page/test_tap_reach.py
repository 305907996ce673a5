"""A tile on the photo is reachable by a thumb however small it is drawn (page.keyboard.box_at).

Why: on a 390 px phone a 640 px photo of 14 tiles draws each tile about 26 px wide and 35 px high;
a tap a little above or below one missed it. The tap area of a tile is at least the 44 px target
(passed as `reach` in photo pixels), and the nearest tile wins where two areas overlap."""

from __future__ import annotations

from page.box import Box
from page.keyboard import box_at

# two tiles 20 x 28 photo px side by side; on the phone the photo is drawn at half size
ROW = [Box("1m", xyxy=[100, 100, 120, 128]), Box("2m", xyxy=[121, 100, 141, 128])]
REACH = 44 * 2  # 44 CSS px on a photo drawn at 0.5 x


def test_a_tap_just_outside_a_small_tile_reaches_it():
    above = (110, 114 - 40)  # 20 CSS px above the centre, 26 photo px above the tile's top edge
    assert box_at(ROW, *above) is None  # one box size is not enough for a thumb
    assert box_at(ROW, *above, reach=REACH) == 0


def test_the_nearest_tile_wins_and_far_taps_reach_none():
    assert box_at(ROW, 119, 74, reach=REACH) == 0  # above both: the closer centre
    assert box_at(ROW, 123, 74, reach=REACH) == 1
    assert box_at(ROW, 110, 114 + 46, reach=REACH) is None  # 23 CSS px below the centre: past 22
    assert box_at(ROW, 125, 114) == 1  # a tap on a tile is that tile, reach or not
