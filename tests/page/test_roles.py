"""page.roles: where each photo box belongs, the winning tile, and the winner's tiles the roles make."""

from __future__ import annotations

import rules
from page.box import Box
from page.roles import (
    changed_count,
    default_winning,
    meld_kind,
    roles_from_layout,
    winner_tiles_from_boxes,
)
from page.situation import Situation, build_hand, count_check


def _box(
    cls: str, role: str = "hand", x: float = 0.0, origin: str = "model", model_cls: str | None = None
) -> Box:
    return Box(cls=cls, role=role, xyxy=[x, 0, x + 10, 14], origin=origin, model_cls=model_cls or cls)


def test_roles_from_a_real_layout_object():
    from vision.read.layout import Layout, MeldGuess

    layout = Layout(
        standing=[0, 1, 2],
        melds=[MeldGuess([3, 4, 5], "pong", 0.9, 0.9)],
        winning=6,
        indicator=7,
    )
    roles, winning, kinds = roles_from_layout(layout, 9)
    assert roles == ["hand"] * 3 + ["meld1"] * 3 + ["hand", "indicator", "other"]
    assert winning == 6 and kinds == {"meld1": "pong"}


def test_winner_tiles_from_boxes_with_melds_and_a_face_down_kong():
    boxes = [
        _box(c, x=10 * i) for i, c in enumerate(["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "5s"])
    ]
    boxes += [_box("back", "meld1"), _box("C", "meld1"), _box("C", "meld1"), _box("back", "meld1")]
    boxes.append(_box("5s", x=500))
    boxes.append(_box("6s", "delete"))
    assert default_winning(boxes) == 14
    tiles = winner_tiles_from_boxes(boxes, 14, {"meld1": "concealed_kong"})
    assert tiles.melds == [("concealed_kong", ["C"] * 4)] and tiles.winning == "5s"
    assert count_check(tiles).ok
    hand = build_hand(tiles, Situation(indicator="9m", winner="E"))
    assert rules.score(hand).valid
    # all four face down: the player names the tile
    for b in boxes[11:13]:
        b.cls = "back"
    tiles = winner_tiles_from_boxes(boxes, 14, {"meld1": "concealed_kong"}, {"meld1": "F"})
    assert tiles.melds == [("concealed_kong", ["F"] * 4)]
    # a winning index that is not a standing tile is no winning tile
    assert winner_tiles_from_boxes(boxes, 15, {}).winning is None


def test_changed_count():
    boxes = [
        _box("1m"),
        _box("2m", model_cls="3m"),  # fixed face
        _box("4m", "delete"),  # false box deleted
        _box("5m", origin="added", model_cls=None),  # missed tile added
        _box("6m", "delete", origin="added", model_cls=None),  # added then deleted: no change
    ]
    assert changed_count(boxes) == 3


def test_meld_kind_prefers_what_the_player_confirmed():
    assert meld_kind(["3m", "5m", "4m"], "pong") == "pong"
    assert meld_kind(["3m", "5m", "4m"]) == "chi"
    assert meld_kind(["1m", "5m", "4m"]) == "pong"
    assert meld_kind(["1m", "5m", "4m", "2m"]) == "kong"
