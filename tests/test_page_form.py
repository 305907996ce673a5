"""page.situation_form, page.preset_view, page.keyboard, page.words, page.learn: the page's tables and
decisions, without Streamlit."""

from __future__ import annotations

import json
import sys

import pytest

import rules
from page import keyboard as kb
from page import learn
from page import situation_form as form
from page.box import Box
from page.preset_view import extra_inputs, option_label, preset_label, value_label, win_flags
from page.situation import build_hand
from page.words import Words, plain
from rules.presets import PRESETS


def test_plain_shows_user_text_literally():
    evil = "![i](http://x/y.png) <b>x</b> $x$ :red[a] **b** `c`"
    out = plain(evil)
    for mark in "![]()<>$*`:":
        assert f"\\{mark}" in out  # every mark escaped
    assert plain("老王") == "老王" and plain("a\nb") == "a b"
    assert Words("甲", "a") + Words("乙", "b") == Words("甲乙", "ab")
    assert Words("甲", "a").pick("en") == "a" and Words("甲", "a").pick("zh") == "甲"


def test_every_preset_has_its_fields_in_words_and_no_code_keys():
    for name in PRESETS:
        assert preset_label(name).zh and preset_label(name).en
        assert win_flags(name), name
        assert extra_inputs(name), name  # 宝, or 枪, plus room/长毛 online
        for option, opt in PRESETS[name].options.items():
            label = option_label(name, option)
            assert option not in label.zh, f"{name}.{option} shown by its code key"
            for v in opt.values:
                assert value_label(name, option, v).zh
    assert value_label("liaoyang", "qidui_requires_suits_yaojiu", True).zh == "是"
    keys = {x.key for x in extra_inputs("anshan")}
    assert "gun_tile" in keys and "bao_tile" not in keys


def test_new_hand_resets_the_situation_but_keeps_the_rules():
    state: dict = {}
    form.apply_sample(state, {"preset": "liaoyang", "indicator": "9m", "winner": "S", "bao_tile": "2m",
                              "loser_melds": {"E": "碰7p"}})  # fmt: skip
    state[form.option_key("liaoyang", "bao_mode")] = "fan"
    state[form.PREFIX + "kong_replacement"] = True
    form.new_hand(state, dealer="W")
    sit, problems = form.situation_from_state(state)
    assert not problems
    assert (sit.winner, sit.dealer, sit.win_by, sit.indicator) == ("E", "W", "self_draw", None)
    assert (
        sit.bao_tile is None and not sit.kong_replacement and sit.loser_melds == {"S": [], "W": [], "N": []}
    )
    assert sit.options == {"bao_mode": "fan"} and sit.preset == "liaoyang"


def test_situation_from_state_reads_the_table_back_into_a_scorable_hand():
    state: dict = {}
    form.new_hand(state)
    state.update({"sit_preset": "liaoyang-online", "sit_winner": "S", "sit_win_by": "discard",
                  "sit_discarder": "S", "sit_indicator": "1m", "sit_melds_E": "碰9s", "sit_melds_W": "xx"})  # fmt: skip
    form.fill_defaults(state, "liaoyang-online")
    state["sit_room_multiplier"] = 3
    sit, problems = form.situation_from_state(state)
    assert sit.discarder == "E"  # never the winner
    assert sit.room_multiplier == 3 and sit.loser_melds["E"] == [("pong", ["9s"] * 3)]
    assert [p.seat for p in problems] == ["W"] and problems[0].text.zh.startswith("西家：")
    from page.situation import WinnerTiles

    tiles = WinnerTiles(
        ["2m", "3m", "4m", "4p", "5p", "6p", "7s", "8s", "9s", "C", "C", "1p", "1p", "1p"], [], "1p"
    )
    hand = build_hand(tiles, sit)
    assert hand["room_multiplier"] == 3 and hand["win"]["from"] == "E"
    assert rules.score(hand) is not None


def test_keyboard_offers_the_models_guesses_first_and_moves_on():
    assert [c for row in kb.ROWS for c in row][-1] == "back" and len(kb.ROWS[0]) == 9
    b = Box("9s", "model", [0, 0, 1, 1], "9s", 0.55, [("8s", 0.4), ("7s", 0.02)], role="hand", unsure=True)
    assert kb.suggestions(b) == ["8s", "7s"]
    b.set_face("8s")
    assert kb.suggestions(b) == ["9s", "7s"]  # the model's own reading comes back as a choice
    boxes = [
        Box("1m", role="hand", unsure=True),
        Box("2m", role="other", unsure=True),
        Box("3m", role="hand", unsure=True),
    ]
    assert kb.next_to_check(boxes, 0) == 2 and kb.next_to_check(boxes, 2) == 0
    boxes[0].fixed = boxes[2].fixed = True
    assert kb.next_to_check(boxes, 0) is None
    assert kb.colour("5m") != kb.colour("5p") != kb.colour("5s")


def test_strip_order_reads_like_the_table():
    boxes = [Box("1m", xyxy=[50, 0, 60, 10], role="hand"), Box("C", xyxy=[0, 0, 10, 10], role="meld1"),
             Box("2m", xyxy=[10, 0, 20, 10], role="hand"), Box("9s", xyxy=[5, 0, 9, 9], role="delete")]  # fmt: skip
    assert kb.strip_order(boxes) == [2, 0, 1, 3]


def test_learn_finds_photos_and_models(tmp_path, monkeypatch):
    import numpy as np

    from vision.labelstore import LabelBox, save_example

    labelled = tmp_path / "labelled"
    assert learn.saved_photos(labelled) == 0
    for i in range(3):
        rgb = np.full((60, 80, 3), 40 * i, np.uint8)
        save_example(rgb, [LabelBox("5m", (10, 10, 30, 40))], labelled, source_name=f"p{i}.jpg")
    save_example(rgb, [LabelBox("6m", (10, 10, 30, 40))], labelled, source_name="p2.jpg")  # a fix: same photo
    assert learn.saved_photos(labelled) == 3
    root = tmp_path / "personal"
    assert learn.latest_model(root) is None
    (root / "20260101T000000Z").mkdir(parents=True)
    (root / "20260102T000000Z").mkdir()
    (root / "20260101T000000Z" / "model.json").write_text(json.dumps({}))
    assert learn.latest_model(root) == root / "20260101T000000Z" / "model.json"
    monkeypatch.setenv(learn.ENV_DIR, str(root))
    assert learn.personal_root() == root
    assert learn.min_photos() >= 1


def test_learn_start_runs_the_adapt_command_in_the_background(tmp_path, monkeypatch):
    """The page starts `python -m vision adapt DATA --out DIR` and returns at once."""
    seen = {}

    class FakePopen:
        def __init__(self, cmd, **kw):
            seen["cmd"], seen["kw"] = cmd, kw

    monkeypatch.setattr(learn.subprocess, "Popen", FakePopen)
    run = learn.start(tmp_path / "labelled", tmp_path / "personal")
    assert run.parent == tmp_path / "personal" and run.is_dir()
    assert seen["cmd"] == [
        sys.executable,
        "-m",
        "vision",
        "adapt",
        str(tmp_path / "labelled"),
        "--out",
        str(run),
    ]
    assert seen["kw"]["start_new_session"] is True
    with pytest.raises(FileExistsError):
        run.mkdir()


def test_a_tap_on_the_photo_finds_the_tile_under_the_finger():
    boxes = [Box("1m", xyxy=[0, 0, 10, 20]), Box("2m", xyxy=[10, 0, 20, 20]), Box("C", xyxy=None),
             Box("3m", xyxy=[2, 2, 8, 8])]  # fmt: skip
    assert kb.box_at(boxes, 15, 10) == 1
    assert kb.box_at(boxes, 5, 5) == 3  # the smaller of two overlapping boxes
    assert kb.box_at(boxes, 21, 10) == 1  # just beside a tile: the nearest one
    assert kb.box_at(boxes, 60, 60) is None
