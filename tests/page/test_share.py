"""A scored hand shared as Chinese text and as a PNG picture."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

import rules
from page import share
from page.share import ShareError
from vision.fonts import SHIPPED_CJK_FONT, missing_chars

EXAMPLES = Path(__file__).parents[1] / "examples"
NAMES = {"E": "老王", "S": "小李"}


def _scored(name: str) -> tuple[dict, dict]:
    hand = json.loads((EXAMPLES / f"{name}.json").read_text(encoding="utf-8"))["hand"]
    return hand, rules.score(rules.parse_hand(hand)).to_dict()


def _valid_examples() -> list[str]:
    out = []
    for p in sorted(EXAMPLES.glob("*.json")):
        if json.loads(p.read_text(encoding="utf-8")).get("expect", {}).get("valid"):
            out.append(p.stem)
    return out


def test_text_says_who_won_how_the_hun_the_fan_and_who_pays():
    hand, result = _scored("LY-1")  # S wins on W's discard; E deals; 混 3m; 鸡枪 1
    text = share.result_text(result, hand, names=NAMES, number=3)
    lines = text.splitlines()
    assert lines[0] == "辽阳麻将 · 第3局"
    assert lines[1] == "南家 小李 胡（西家 点炮）"
    assert lines[2] == "混：三万"
    assert lines[3].startswith("牌：[碰 七饼 七饼 七饼]") and "四饼*" in lines[3] and "三万(混)" in lines[3]
    assert lines[4] == "番：鸡枪 1（共 1 番）"
    assert "东家 老王：庄 1 → 付 4" in lines and "北家：— → 付 2" in lines
    assert lines[-1] == "结算：东家 老王 付 4 · 南家 小李 收 10 · 西家 付 4 · 北家 付 2"
    assert "_" not in text  # no code keys on the player's side


def test_text_says_who_pays_for_whom_under_baosanjia():
    hand, result = _scored("LO-1")  # 包三家: N pays the three shares, each loser his own 宝
    text = share.result_text(result, hand)
    assert "东家：庄 1 → 付 52（32 由北家代付，含宝 20）" in text
    assert "北家：点炮 1 → 付 52（含宝 20）" in text
    assert text.endswith("东家 付 20 · 南家 收 156 · 西家 付 20 · 北家 付 116")


def test_a_hand_that_cannot_win_is_not_shared():
    bad = {"version": 1, "valid": False, "preset": "anshan", "winner": "S", "reason": "NO_YAOJIU"}
    with pytest.raises(ShareError, match="只能分享能胡的牌"):
        share.result_text(bad)
    with pytest.raises(ShareError):
        share.result_png(bad)


def test_settlement_line_without_names_and_in_ascii():
    _, result = _scored("LY-1")
    assert share.settlement_line(result) == "东家 付 4 · 南家 收 10 · 西家 付 4 · 北家 付 2"
    assert share.settlement_line(result, cjk=False) == "E -4 · S +10 · W -4 · N -2"


@pytest.mark.parametrize("name", _valid_examples())
def test_groups_mark_one_winning_tile_and_every_hun(name):
    hand, result = _scored(name)
    groups = share.groups_of(result, hand)
    marks = [t for g in groups for t in g.tiles]
    assert sum(t.winning for t in marks) == 1
    assert [t.code for t in marks if t.winning] == [
        rules.tiles.code(rules.tiles.parse_code(hand["win"]["tile"]))
    ]
    stand_ins = sorted(c for g in result["decomposition"] for c in g.get("hun_as", []))
    assert sorted(t.hun_as for t in marks if t.hun_as) == stand_ins
    text = share.result_text(result, hand)
    assert text.count("*") == 2  # the winning tile and the legend


def _png(data: bytes) -> np.ndarray:
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    return np.asarray(Image.open(io.BytesIO(data)).convert("RGB"))


def _red_frame_pixels(rgb: np.ndarray) -> int:
    r, g, b = (rgb[..., i].astype(int) for i in range(3))
    return int(((r > 180) & (g < 60) & (b < 60)).sum())


def test_picture_draws_tiles_fan_and_payments_in_chinese():
    hand, result = _scored("LY-1")
    rgb = _png(share.result_png(result, hand, names=NAMES, number=3))
    h, w, _ = rgb.shape
    assert w == share.WIDTH and 300 < h < 900  # phone width; one screen tall
    ivory = np.all(rgb == share.IVORY, axis=-1).sum()
    gold = np.all(rgb == share.GOLD, axis=-1).sum()
    assert ivory > 13 * 1000 and gold > 1000  # 14 tile faces, one of them a gold 混
    assert _red_frame_pixels(rgb) > 200  # the winning tile's frame and the losers' amounts
    assert share._font(20)[1] is True


def test_the_shipped_font_is_used_without_a_system_one(monkeypatch):
    """A fresh machine draws Chinese: the shipped font comes first, before any system font."""
    monkeypatch.delenv(share.FONT_ENV, raising=False)
    share._font_path.cache_clear()
    try:
        assert share._font_path() == str(SHIPPED_CJK_FONT) == share.FONT_CANDIDATES[0]
        assert share._font(20)[1] is True
    finally:
        share._font_path.cache_clear()


def test_a_name_the_font_cannot_draw_shows_a_box_and_does_not_fail():
    hand, result = _scored("LY-2")
    plain = _png(share.result_png(result, hand, names={"E": "老王"}))
    odd = _png(share.result_png(result, hand, names={"E": "老王😀𠀀"}))
    assert plain.shape == odd.shape and (plain != odd).any()  # drawn, as missing-glyph boxes
    assert missing_chars(SHIPPED_CJK_FONT, "老王😀𠀀") == ["😀", "𠀀"]


def test_the_same_picture_is_drawn_once():
    hand, result = _scored("LY-2")
    first = share.result_png(result, hand, names=NAMES)
    hits = share._png.cache_info().hits
    assert share.result_png(json.loads(json.dumps(result)), hand, names=dict(NAMES)) == first
    assert share._png.cache_info().hits == hits + 1
    assert share.result_png(result, hand, names={"E": "别人"}) != first  # another name, another picture


def test_picture_falls_back_to_a_readable_font_without_cjk(monkeypatch, tmp_path):
    monkeypatch.setattr(share, "FONT_CANDIDATES", (str(tmp_path / "missing.ttc"),))
    monkeypatch.delenv(share.FONT_ENV, raising=False)
    share._font_path.cache_clear()
    try:
        assert share._font(20)[1] is False
        hand, result = _scored("AS-3")
        rgb = _png(share.result_png(result, hand, names={"E": "Wang", "S": "老李"}))
        assert rgb.shape[1] == share.WIDTH
        w = share.PictureText(False)
        assert w.seat("E", {"E": "Wang"}) == "E Wang" and w.seat("S", {"S": "老李"}) == "S"
        assert w.tile("5m") == "5m" and w.fan({"key": "dealer", "name": "庄"}) == "dealer"
        lines = share._loser_lines(result, None, w) + [share._fan_line(result["winner_fan"], 5, w)]
        assert all(line.isascii() for line in lines), lines  # nothing the fallback font cannot draw
    finally:
        share._font_path.cache_clear()


def test_the_font_can_be_chosen_by_env(monkeypatch, tmp_path):
    monkeypatch.setenv(share.FONT_ENV, str(tmp_path / "not-there.ttf"))
    share._font_path.cache_clear()
    try:  # a missing file is skipped, the usual fonts are still tried
        assert share._font_path() == next((p for p in share.FONT_CANDIDATES if Path(p).is_file()), None)
        monkeypatch.setenv(share.FONT_ENV, str(SHIPPED_CJK_FONT.parent / "OFL.txt"))
        share._font_path.cache_clear()
        assert share._font_path() == str(SHIPPED_CJK_FONT.parent / "OFL.txt")  # a file: taken as given
    finally:
        share._font_path.cache_clear()


@pytest.mark.parametrize("name", _valid_examples())
def test_every_valid_example_can_be_shared(name):
    hand, result = _scored(name)
    assert share.result_text(result, hand).startswith(rules.PRESETS[result["preset"]].title)
    rgb = _png(share.result_png(result, hand))
    assert rgb.shape[1] == share.WIDTH


def test_the_picture_shows_the_whole_fan_line():
    """A long 番 line is wrapped onto more lines, never cut with …"""
    from PIL import Image, ImageDraw

    from page.share import _font, _wrap

    font, _ = _font(22)
    d = ImageDraw.Draw(Image.new("RGB", (1, 1)))
    line = "番：" + "、".join(f"大哥大{i} 1" for i in range(30)) + "（共 30 番）"
    parts = _wrap(d, line, font, 400)
    assert len(parts) > 1 and "".join(parts) == line  # nothing lost
    assert all(d.textlength(p, font=font) <= 400 for p in parts)


def test_a_right_to_left_override_in_a_name_does_not_turn_the_line_around():
    from page.share import PictureText

    assert PictureText(cjk=True).seat("W", {"W": "小\u202e王"}) == "西家 小王"
