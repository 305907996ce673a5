""" "Maybe missed": the boxes the reader doubted are offered, one tap takes one, and nothing of them
counts until taken — on one phone, across a reload and with two phones of one table."""

from __future__ import annotations

import json

from page import hand_sync
from page.box import Box
from page.detector_loader import Detector, plugin_detector
from page.hand_session import HandSession
from page.photo_state import boxes_signature, decode_photo, read_photo, sample_photo
from page.roles import role_beside
from tests.fake_reader import HANDS, MISSED, fake_detect, marked_photo
from tests.page.test_hand_sync import _two_phones


def _short_hand() -> HandSession:
    """HANDS[0] read with its 14th tile missed, and offered with a box on the clutter."""
    data = marked_photo(MISSED)
    h = HandSession()
    h.start_photo(read_photo(data, "hand.png", plugin_detector("tests.fake_reader:fake_detect")), data)
    return h


def test_the_doubted_boxes_are_offered_and_count_for_nothing_until_taken():
    h = _short_hand()
    assert len(h.photo.boxes) == 13 and [b.cls for b in h.photo.maybe] == [HANDS[0][13], "W"]
    assert all(b.origin == "maybe" and not b.in_play for b in h.photo.maybe)
    assert h.photo.open_maybe() == [0, 1]
    before = boxes_signature(h.photo.boxes)
    assert len(h.tiles().concealed) == 13  # a tile short: no score yet, and the page says where to look
    assert "可能漏认的牌" in h.evaluate().problems[0].zh
    h.take_maybe(0)
    assert len(h.photo.boxes) == 14 and h.photo.open_maybe() == [1]
    taken = h.photo.boxes[-1]
    assert (taken.cls, taken.role, taken.origin, taken.xyxy) == (
        HANDS[0][13],
        "hand",
        "added",
        h.photo.maybe[0].xyxy,
    )
    assert taken.model_cls == HANDS[0][13]  # the reader's own box and face: not an estimated place
    assert boxes_signature(h.photo.boxes) != before  # saving for training now labels it
    assert sorted(h.tiles().concealed) == sorted(HANDS[0])


def test_a_suggestion_is_taken_once_and_none_of_the_rest_puts_them_all_away():
    h = _short_hand()
    h.take_maybe(0)
    h.take_maybe(0)  # a double tap, or the other phone's tap on the same card
    assert len(h.photo.boxes) == 14
    h.drop_maybe(None)
    assert h.photo.open_maybe() == [] and len(h.photo.boxes) == 14


def test_a_reader_without_doubts_offers_nothing():
    data = marked_photo(MISSED)
    photo = read_photo(data, "hand.png", Detector(fake_detect, "fake"))
    assert len(photo.boxes) == 13 and photo.maybe == []
    assert sample_photo(plugin_detector("tests.fake_reader:fake_detect")).maybe == []


def test_a_tile_missed_in_a_meld_joins_the_meld_and_one_far_from_every_tile_the_hand():
    row = [Box("1m", xyxy=[32.0 * i, 0, 32.0 * i + 30, 40], role="hand") for i in range(3)]
    meld = [Box("7p", xyxy=[200.0 + 32 * i, 0, 230.0 + 32 * i, 40], role="meld1") for i in range(2)]
    aside = Box("C", xyxy=[300.0, 0, 330, 40], role="other")
    boxes = [*row, *meld, aside]
    assert role_beside(boxes, [264.0, 0, 294, 40]) == "meld1"
    assert role_beside(boxes, [96.0, 0, 126, 40]) == "hand"
    assert role_beside(boxes, [332.0, 0, 362, 40]) == "hand"  # beside a tile set aside only
    assert role_beside(boxes, [900.0, 500, 930, 540]) == "hand"


def test_the_suggestions_and_their_answers_survive_a_reload(tmp_path):
    h = _short_hand()
    h.drop_maybe(1)
    again = HandSession.from_state(json.loads(json.dumps(h.to_state())), None)  # as the store keeps it
    assert [(b.cls, b.fixed) for b in again.photo.maybe] == [(HANDS[0][13], False), ("W", True)]
    assert again.photo.open_maybe() == [0]


def test_two_phones_take_the_same_suggestion_and_the_tile_is_added_once(tmp_path):
    store, a, b = _two_phones(tmp_path, _short_hand)
    assert hand_sync.apply(a, store, hand_sync.ticket(a), "take_maybe", 0)
    assert hand_sync.apply(b, store, hand_sync.ticket(b), "take_maybe", 0)  # drawn before A's tap
    for tab in (a, b):
        shown = hand_sync.current_hand(tab, store, _short_hand, decode_photo)
        assert len(shown.photo.boxes) == 14 and shown.photo.open_maybe() == [1]


def test_a_suggestion_tapped_after_the_tiles_were_retyped_is_refused(tmp_path):
    store, a, b = _two_phones(tmp_path, _short_hand)
    assert hand_sync.apply(a, store, hand_sync.ticket(a), "type_hand", "123m456p789sEEE22p", "2p", "")
    assert not hand_sync.apply(b, store, hand_sync.ticket(b), "take_maybe", 0)
    assert b[hand_sync.MESSAGE] == hand_sync.STALE_WORDS
    shown = hand_sync.current_hand(b, store, _short_hand, decode_photo)
    assert shown.photo.maybe == [] and len(shown.photo.boxes) == 14


def test_open_suggestions_are_drawn_dashed_unnumbered_and_answered_ones_not_at_all():
    import numpy as np

    from page.annotate import draw_marks, marks_for

    h = _short_hand()
    h.drop_maybe(1)
    marks = marks_for(h.photo.boxes, maybe=h.photo.maybe)
    tiles, offered = [m for m in marks if m.is_tile], [m for m in marks if not m.is_tile]
    assert len(tiles) == 13 and [(m.label, m.style) for m in offered] == [("+八条?", "maybe")]
    display = np.zeros((300, 640, 3), np.uint8)
    drawn = draw_marks(display, offered, 1.0)
    x1, y1, x2, y2 = (round(v) for v in offered[0].xyxy)
    edge = drawn[y2 - 1 : y2 + 1, x1:x2].max(2).max(0)  # the bottom edge: dashes, not a solid line
    assert 0.2 < (edge > 0).mean() < 0.8


def test_a_tap_on_the_photo_picks_a_tile_first_and_takes_a_suggestion_only_where_it_is():
    from page.keyboard import tap_target

    h = _short_hand()
    boxes, maybe = h.photo.boxes, h.photo.maybe
    x1, y1, x2, y2 = maybe[0].xyxy
    assert tap_target(boxes, maybe, (x1 + x2) / 2, (y1 + y2) / 2) == ("maybe", 0)
    t1, u1, t2, u2 = boxes[12].xyxy  # the 13th tile, left of the suggestion
    assert tap_target(boxes, maybe, (t1 + t2) / 2, (u1 + u2) / 2) == ("tile", 12)
    gap = (t2 + x1) / 2  # between the two, within reach of both: the tile
    assert tap_target(boxes, maybe, gap, (y1 + y2) / 2, reach=40) == ("tile", 12)
    h.take_maybe(0)
    assert tap_target(boxes, maybe, (x1 + x2) / 2, (y1 + y2) / 2) == ("tile", 13)  # taken: a tile now
    assert tap_target(boxes, maybe, 5, 5) is None
