"""Drawn book spines as `other` crops (vision.train.spines): print on a strip, cut like a tile."""

import numpy as np

from vision.classes import OTHER_ID
from vision.train import spines
from vision.train.crops import SRC_H, SRC_MARGIN, SRC_W


def test_crops_are_other_of_the_training_size_and_seeded():
    x, y = spines.spine_crops(20, 3, SRC_MARGIN, (SRC_W, SRC_H))
    assert x.shape == (20, SRC_H, SRC_W, 3) and x.dtype == np.uint8
    assert (y == OTHER_ID).all()
    again, _ = spines.spine_crops(20, 3, SRC_MARGIN, (SRC_W, SRC_H))
    other, _ = spines.spine_crops(20, 4, SRC_MARGIN, (SRC_W, SRC_H))
    assert np.array_equal(x, again) and not np.array_equal(x, other)


def test_every_crop_is_cut_on_print_never_on_bare_cover():
    # the box's middle third (the crop's centre, inside the wide margin) always holds ink: its
    # pixels spread, where a bare cover (a blank face, like 白) would be one flat colour
    x, _ = spines.spine_crops(200, 0, SRC_MARGIN, (SRC_W, SRC_H))
    mid = x[:, SRC_H // 3 : 2 * SRC_H // 3, SRC_W // 3 : 2 * SRC_W // 3].astype(float).mean(-1)
    spread = mid.reshape(len(x), -1).std(1)
    assert np.percentile(spread, 5) > 8, np.sort(spread)[:10]


def test_title_characters_are_drawable_hanzi_and_kana():
    chars = spines.title_chars()
    assert len(chars) > 500
    assert any("\u3040" <= c <= "\u30ff" for c in chars) and any("\u4e00" <= c <= "\u9fff" for c in chars)


def test_shelf_spines_stand_side_by_side_with_a_title_inside_each():
    img, found = spines.shelf(np.random.default_rng(0))
    assert img.ndim == 3 and len(found) >= 8
    for left, right, top, bottom in found:
        assert spines.SPINE_W[0] <= right - left <= spines.SPINE_W[1] and 0 <= top <= bottom <= img.shape[0]
