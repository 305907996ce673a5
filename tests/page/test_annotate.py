"""page.annotate: drawn boxes land where the tiles are, unsure tiles stand out, picker order."""

from __future__ import annotations

import numpy as np

from page.annotate import (
    COLOURS,
    Mark,
    annotate,
    face_label,
    marks_for,
    tile_crop,
)
from page.box import Box, is_unsure, picker_options
from vision.classes import CLASS_NAMES


def test_boxes_are_drawn_scaled_in_the_right_place():
    rgb = np.zeros((2000, 4000, 3), np.uint8)
    out = annotate(rgb, [Mark(1, (1000, 1000, 1400, 1600), "5m", "unsure")], max_side=1000)
    assert out.shape == (500, 1000, 3)
    colour = np.array(COLOURS["unsure"])
    # the left edge of the box, scaled by 1/4, is drawn in the unsure colour
    assert (np.abs(out[300, 250:254].astype(int) - colour).sum(1) < 30).any()
    # the inside of the box is untouched
    assert out[320, 300].sum() == 0
    assert rgb.sum() == 0  # the photo itself is not drawn on


def test_small_photo_is_not_enlarged():
    rgb = np.full((100, 80, 3), 255, np.uint8)
    assert annotate(rgb, [], max_side=1000).shape == (100, 80, 3)


def test_unsure_rule():
    assert is_unsure(0.3)
    assert not is_unsure(0.95, [("6m", 0.02)])
    assert is_unsure(0.8, [("6m", 0.5)])


def test_picker_puts_the_models_guesses_first_and_lists_every_face_once():
    opts = picker_options("5m", [("6m", 0.2), ("5p", 0.1), ("bogus", 0.1)])
    assert opts[:3] == ["5m", "6m", "5p"]
    assert sorted(opts) == sorted(CLASS_NAMES) and len(opts) == 35
    assert picker_options("back")[0] == "back"


def test_names():
    assert face_label("5m") == "五万 · 5m"
    assert face_label("P") == "白 · P"
    assert face_label("back") == "背面 · back"


def test_tile_crop_height_and_degenerate_box():
    rgb = np.random.default_rng(0).integers(0, 255, (300, 400, 3), dtype=np.uint8)
    crop = tile_crop(rgb, (100, 100, 130, 140), height=64)
    assert crop.shape[0] == 64 and crop.shape[1] in range(40, 60)
    assert tile_crop(rgb, (5, 5, 5, 5)).shape[0] == 72


def test_marks_for_styles_follow_the_current_boxes():
    boxes = [
        Box("5m", "model", [0, 0, 1, 1], "5m", 0.95),
        Box("5m", "model", [0, 0, 1, 1], "5m", 0.2, unsure=True),
        Box("5m", "model", [0, 0, 1, 1], "5m", 0.2, unsure=True, fixed=True),
        Box("C", "added", [0, 0, 1, 1], role="hand"),
        Box("back", "model", [0, 0, 1, 1], "back", role="other"),
        Box("C", "added", None),
        Box("1m", "model", [0, 0, 1, 1], "1m", role="delete"),
        Box("2m", "model", [0, 0, 1, 1], "2m", role="hand"),
    ]
    for b in boxes[:3]:
        b.role = "hand"
    marks = marks_for(boxes, winning=0, picked=7)
    assert [m.style for m in marks] == ["selected", "unsure", "sure", "added", "ignored", "ignored", "picked"]
    assert [m.number for m in marks] == [1, 2, 3, 4, 5, 7, 8]
    assert [m.label for m in marks[:5]] == ["五万", "五万", "五万", "中", "背面"]  # names, not codes
    assert [m.label for m in marks_for(boxes, lang="en")[3:5]] == ["C", "back"]
    # a winning tile set aside is grey, not red: the overlay shows what the hand is now
    boxes[0].role = "delete"
    assert marks_for(boxes, winning=0)[0].style == "ignored"
