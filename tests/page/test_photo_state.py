"""page.photo_state: a photo read into the page's state dict (boxes with roles, notes), the sample photo,
and the boxes a player adds or types. No Streamlit and no model: a fake detector stands in."""

from __future__ import annotations

import io
import json
from types import SimpleNamespace

import numpy as np
import pytest
from PIL import Image

from page import photo_state as ps
from page.box import Box, detection_box, player_box
from page.detector_loader import Detector
from page.photo_state import Photo, box_right_of, boxes_signature, iou, read_photo, sample_photo, typed_hand

SAMPLE = json.loads(ps.SAMPLE_JSON.read_text(encoding="utf-8"))


def _det(cls: str, conf: float, xyxy: tuple, alternatives: list | None = None) -> SimpleNamespace:
    """A detection as `vision.read.detect` returns it (only the attributes the page reads)."""
    return SimpleNamespace(cls=cls, conf=conf, xyxy=xyxy, alternatives=alternatives or [])


def _sample_dets(wrong_last: bool = False) -> list[SimpleNamespace]:
    dets = [_det(t["cls"], 0.93, tuple(t["xyxy"])) for t in SAMPLE["tiles"]]
    if wrong_last:
        dets[-1] = _det("9s" if dets[-1].cls != "9s" else "8s", 0.55, dets[-1].xyxy, [("8s", 0.4)])
    return dets


def _png(rgb: np.ndarray) -> bytes:
    buf = io.BytesIO()
    Image.fromarray(rgb).save(buf, format="PNG")
    return buf.getvalue()


def test_detection_box_is_a_typed_record_and_unknown_classes_are_backs():
    b = detection_box(_det("5m", 0.8, (1, 2, 3, 4), [("6m", 0.1)]))
    assert b.cls == b.model_cls == "5m" and b.role == "other" and not b.fixed
    assert b.xyxy == [1.0, 2.0, 3.0, 4.0] and b.alternatives == [("6m", 0.1)]
    assert b.options[:2] == ["5m", "6m"] and b.origin == "model" and not b.unsure
    odd = detection_box(_det("joker", 0.5, (0, 0, 1, 1)), origin="sample")
    assert odd.cls == "back" and odd.model_cls is None and not odd.needs_check


def test_unsure_comes_from_the_detection_when_it_says_so():
    """Detection.unsure (the reader's own flag) wins; without it the page's rule on conf decides."""
    sure_face_doubt = SimpleNamespace(
        cls="3s", conf=0.9, xyxy=(0, 0, 1, 1), alternatives=[("2s", 0.3)], unsure=True
    )
    assert detection_box(sure_face_doubt).needs_check
    told_sure = SimpleNamespace(cls="3s", conf=0.3, xyxy=(0, 0, 1, 1), alternatives=[], unsure=False)
    assert not detection_box(told_sure).needs_check
    assert detection_box(_det("3s", 0.3, (0, 0, 1, 1))).needs_check  # no flag: low conf is unsure
    b = detection_box(sure_face_doubt)
    b.set_face("2s")
    assert not b.needs_check and b.fixed and b.options[:2] == ["3s", "2s"]


def test_player_box_is_sure_and_fixed():
    b = player_box("C", "meld1", "typed")
    assert b == Box(cls="C", origin="typed", xyxy=None, role="meld1", fixed=True)
    assert b.options[0] == "C" and b.model_cls is None and not b.needs_check


def test_boxes_signature_changes_with_a_fix_and_ignores_deleted_boxes():
    boxes = [
        player_box("1m", "hand", "added", [0, 0, 10, 10]),
        player_box("2m", "hand", "added", [10, 0, 20, 10]),
    ]
    sig = boxes_signature(boxes)
    boxes[1].set_face("3m")
    assert boxes_signature(boxes) != sig
    boxes.append(player_box("9s", "delete", "added", [20, 0, 30, 10]))
    same = boxes_signature(boxes)
    boxes[2].set_face("1s")
    assert boxes_signature(boxes) == same


def test_box_right_of_is_one_tile_on_and_clipped_to_the_photo():
    assert box_right_of([10, 5, 30, 35], None) == [31.0, 5, 51.0, 35]
    assert box_right_of([10, 5, 30, 35], (45, 40)) == [31.0, 5, 45, 35]
    assert box_right_of([10, 5, 50, 35], (45, 40))[0] == 44  # never off the right edge


def test_typed_hand_adds_the_winning_tile_and_groups_the_melds():
    boxes, winning, kinds = typed_hand("123m 456p 11s", "5s", "碰7p 暗杠中")
    hand = [b.cls for b in boxes if b.role == "hand"]
    assert hand == ["1m", "2m", "3m", "4p", "5p", "6p", "1s", "1s", "5s"] and boxes[winning].cls == "5s"
    assert [b.cls for b in boxes if b.role == "meld2"] == ["C"] * 4
    assert kinds == {"meld1": "pong", "meld2": "concealed_kong"}
    assert all(b.origin == "typed" and b.xyxy is None for b in boxes)
    boxes, winning, _ = typed_hand("1m 1m 2m", "1m", "")
    assert winning == 1 and len(boxes) == 3  # already standing: the last copy is the one won on
    for conc, win, melds in [("1m", "", ""), ("1m", "1m2m", ""), ("x", "1m", ""), ("1m", "1m", "碰")]:
        with pytest.raises(ValueError):
            typed_hand(conc, win, melds)


def test_iou():
    assert iou([0, 0, 10, 10], [0, 0, 10, 10]) == 1.0
    assert iou([0, 0, 10, 10], [20, 20, 30, 30]) == 0.0
    assert iou([0, 0, 10, 10], [5, 0, 15, 10]) == pytest.approx(1 / 3)
    assert iou([0, 0, 0, 0], [0, 0, 0, 0]) == 0.0


def test_new_photo_is_empty():
    p = Photo("abc", "x.jpg")
    assert p.key == "abc" and p.name == "x.jpg" and p.boxes == [] and p.notes == []
    assert p.rgb is None and p.error is None and p.meld_kinds == {} and p.kong_faces == {}
    assert p.picked is None and p.saved is None and p.widget_prefix == "abc"


def test_read_photo_detects_and_proposes_roles_once():
    data = (ps.SAMPLE_DIR / SAMPLE["photo"]).read_bytes()
    calls = []

    def run(rgb):
        calls.append(rgb.shape)
        return _sample_dets()

    photo = read_photo(data, "hand.jpg", Detector(run, "fake-1"))
    assert len(calls) == 1 and photo.error is None and photo.notes == []
    assert photo.model_version == "fake-1" and photo.seconds >= 0
    assert len(photo.boxes) == len(SAMPLE["tiles"])
    assert all(b.role == "hand" for b in photo.boxes)
    assert photo.boxes[photo.winning].role == "hand"
    # no detector: decoded, nothing read
    bare = read_photo(data, "hand.jpg", None)
    assert bare.rgb is not None and bare.boxes == [] and bare.model_version is None
    assert photo.key == bare.key == ps.photo_key(data)


def test_read_photo_keeps_the_key_the_page_already_made(monkeypatch):
    """The page hashes an upload once, to know whether it is new; read_photo does not hash it again."""
    data = (ps.SAMPLE_DIR / SAMPLE["photo"]).read_bytes()
    key = ps.photo_key(data)
    monkeypatch.setattr(ps, "photo_key", lambda b: pytest.fail("hashed twice"))
    assert read_photo(data, "hand.jpg", None, key=key).key == key


def test_read_photo_explains_a_bad_file_a_blank_photo_and_a_failing_reader():
    bad = read_photo(b"not an image at all", "notes.txt", Detector(lambda rgb: [], "x"))
    assert bad.rgb is None and bad.error.en.startswith("This file cannot be used as a photo")
    assert bad.error.zh.startswith("这个文件不能当照片用")
    blank = read_photo(_png(np.full((60, 80, 3), 128, np.uint8)), "blank.png", Detector(lambda rgb: [], "x"))
    assert blank.boxes == [] and "No tiles were found" in blank.notes[0].en

    def broken(rgb):
        raise RuntimeError("boom")

    failed = read_photo(_png(np.full((60, 80, 3), 128, np.uint8)), "b.png", Detector(broken, "x"))
    assert "The tile reader failed on this photo (RuntimeError)" in failed.notes[0].en
    assert failed.model_version is None


def test_a_layout_that_cannot_be_proposed_puts_every_tile_in_the_hand(monkeypatch):
    import vision.read.layout

    def no_layout(dets):
        raise ValueError("no rows")

    monkeypatch.setattr(vision.read.layout, "read_layout", no_layout)
    data = (ps.SAMPLE_DIR / SAMPLE["photo"]).read_bytes()
    photo = read_photo(data, "hand.jpg", Detector(lambda rgb: _sample_dets(), "x"))
    assert all(b.role == "hand" for b in photo.boxes)
    assert "The hand layout could not be proposed (ValueError)" in photo.notes[0].en


def test_sample_photo_without_a_model_shows_the_checked_tiles():
    photo = sample_photo(None)
    assert photo.sample == SAMPLE and [n.en for n in photo.notes] == [
        "Sample photo: shown with its checked tiles (no model installed to read it)."
    ]
    assert [b.cls for b in photo.boxes] == [t["cls"] for t in SAMPLE["tiles"]]
    assert all(b.origin == "sample" and b.role == "hand" for b in photo.boxes)
    assert photo.winning == SAMPLE.get("winning_index") and photo.model_reading is None


def test_sample_photo_read_right_wrong_or_not_at_all():
    right = sample_photo(Detector(lambda rgb: _sample_dets(), "fake"))
    assert [n.en for n in right.notes] == ["Sample photo: read by the detector, no corrections needed."]
    assert all(b.origin == "model" for b in right.boxes)
    wrong = sample_photo(Detector(lambda rgb: _sample_dets(wrong_last=True), "fake"))
    n = len(SAMPLE["tiles"])
    assert f"the detector read {n} tiles, 1 of the {n} differently" in wrong.notes[0].en
    assert len(wrong.model_reading) == n and all(b.origin == "sample" for b in wrong.boxes)
    assert [b.cls for b in wrong.boxes] == [t["cls"] for t in SAMPLE["tiles"]]
    none = sample_photo(Detector(lambda rgb: [], "fake"))
    assert [n.en for n in none.notes] == [
        "Sample photo: the detector found no tiles in it; the page shows the checked tiles."
    ]


def test_a_photo_read_zoomed_out_keeps_its_own_size_and_its_boxes_land_on_it():
    """A close-up is read on a canvas twice its size (a loser's melds: page.loser_photo); the
    reader sees the canvas, the boxes come back in the photo's own pixels, clipped to it."""
    rgb = np.zeros((60, 100, 3), np.uint8)
    rgb[:, :] = (200, 30, 30)  # a red felt, the border the canvas is filled with
    rgb[20:40, 40:60] = 255  # one white tile
    seen = []

    def read(pixels):
        seen.append(pixels.rgb.copy())
        tile = np.argwhere(pixels.rgb[:, :, 1] == 255)  # where the white tile is on what was read
        (y0, x0), (y1, x1) = tile.min(0), tile.max(0) + 1
        edge = _det("5p", 0.9, (float(x0) - 60, float(y0), float(x1), float(y1)))  # reaches off the photo
        return [_det("1m", 0.9, (float(x0), float(y0), float(x1), float(y1))), edge], []

    detector = Detector(lambda image: read(image)[0], "fake-zoom", takes_pixels=True, read=read)
    photo = read_photo(_png(rgb), "melds.png", detector, full=False, zoom_out=2.0)
    canvas = seen[0]
    assert canvas.shape == (120, 200, 3) and tuple(canvas[0, 0]) == (200, 30, 30)
    assert photo.size == (100, 60) and photo.error is None
    assert photo.boxes[0].xyxy == [40.0, 20.0, 60.0, 40.0]  # the tile where it is on the photo
    assert photo.boxes[1].xyxy[0] == 0.0  # clipped to the photo's left edge
    plain = read_photo(_png(rgb), "melds.png", detector, full=False)
    assert seen[1].shape == (60, 100, 3) and plain.boxes[0].xyxy == [40.0, 20.0, 60.0, 40.0]
