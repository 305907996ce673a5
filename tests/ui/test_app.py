"""The page (app.py) driven headless with Streamlit's AppTest: phone-first flows in Chinese (and English).

A fake reader (`tests.fake_reader.fake_detect`, plugged in through MAHJONG_DETECTOR) stands in for the
model so these flows run without `models/`: it "reads" the bundled sample photo with one tile wrong,
finds nothing on a blank photo, 40 tiles on a wide one, and a marked photo as a known hand. One test
uses the shipped model when present. Widget keys belong to one hand (`page.hand_sync.widget_key`),
so widgets are found by the end of their key. AppTest is not the browser: what the frontend keeps
(a text field of the last hand) is checked in tests/ui/test_browser.py.
"""

from __future__ import annotations

import io
import json
import struct
import zlib
from pathlib import Path

import numpy as np
import pytest
import streamlit as st
from PIL import Image
from streamlit.testing.v1 import AppTest

from tests.fake_reader import CALLS, FakeDetection, fake_detect, marked_photo  # noqa: F401 - plug-in path

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
SAMPLE = ROOT / "datasets" / "samples"
MODEL = ROOT / "models" / "model.json"
SAMPLE_PAYS = ["南家 收 750", "东家（庄） 付 250", "西家 付 250", "北家 付 250"]


@pytest.fixture
def app(monkeypatch, tmp_path):
    """A fresh page with the fake reader and temporary training-data, scorebook and personal folders."""
    monkeypatch.setenv("MAHJONG_DETECTOR", "tests.fake_reader:fake_detect")
    monkeypatch.setenv("MAHJONG_LABELLED_DIR", str(tmp_path / "labelled"))
    monkeypatch.setenv("MAHJONG_SCOREBOOK", str(tmp_path / "scorebook.sqlite"))
    monkeypatch.setenv("MAHJONG_PERSONAL_DIR", str(tmp_path / "personal"))
    st.cache_resource.clear()
    at = AppTest.from_file(APP, default_timeout=60)
    yield at
    st.cache_resource.clear()


def _png(rgb: np.ndarray) -> bytes:
    buf = io.BytesIO()
    Image.fromarray(rgb).save(buf, format="PNG")
    return buf.getvalue()


def _sample_png() -> bytes:
    """The sample photo re-encoded: same pixels, new file (a new upload for the page)."""
    return _png(np.asarray(Image.open(SAMPLE / "winning-hand.jpg").convert("RGB")))


def _texts(at: AppTest, kind: str) -> str:
    return "\n".join(str(e.value).replace("\\", "") for e in getattr(at, kind))


def _no_traceback(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


def _w(at: AppTest, kind: str, name: str):
    """The widget of this hand named `name` (its key ends in _name)."""
    found = [e for e in getattr(at, kind) if str(e.key or "").endswith("_" + name)]
    assert found, f"no {kind} {name}: {[e.key for e in getattr(at, kind)]}"
    return found[-1]


def _has(at: AppTest, kind: str, name: str) -> bool:
    return any(str(e.key or "").endswith("_" + name) for e in getattr(at, kind))


def _uploader(at: AppTest):
    return next(u for u in at.file_uploader if str(u.key).startswith("upload_"))


def _upload(at: AppTest, name: str, data: bytes, mime: str = "image/png") -> str:
    _uploader(at).set_value((name, data, mime)).run()
    _no_traceback(at)
    return _prefix(at)


def _prefix(at: AppTest) -> str:
    """The widget prefix of the current tile list (photo hash + hand id)."""
    h = at.session_state["hand"]
    return h.photo.widget_prefix + h.id[:6]


def _payments(at: AppTest) -> list[str]:
    """The score card's lines (南家 收 750, 东家（庄） 付 250 …)."""
    return [
        str(m.value).replace("\\", "").strip("*")
        for m in at.markdown
        if " 付 " in m.value or " 收 " in m.value
    ]


def _button(at: AppTest, prefix: str, suffix: str = ""):
    found = [b for b in at.button if str(b.key).startswith(prefix) and str(b.key).endswith(suffix)]
    assert found, f"no button {prefix}…{suffix}"
    return found[0]


def _tap_tile(at: AppTest, i: int) -> None:
    _button(at, "pick", f"_{_prefix(at)}_{i}").click().run()
    _no_traceback(at)


def _pick_tile(at: AppTest, name: str, code: str) -> None:
    """A tile input (混 indicator, 宝, 枪): open its keyboard, tap the tile."""
    _button(at, f"tilein_{name}_").click().run()
    _button(at, f"kb_{code}_{name}").click().run()
    _no_traceback(at)


def _choose(at: AppTest, winner: str = "E", how: str = "self_draw", indicator: str | None = "9m") -> None:
    _w(at, "segmented_control", "winner").set_value(winner).run()
    _w(at, "segmented_control", "win_by").set_value(how).run()
    if indicator:
        _pick_tile(at, "indicator", indicator)
    _no_traceback(at)


def typed_win(at: AppTest) -> None:
    """新的一局, then South wins a typed hand (1m 45m 456p 789s 中中中 9p9p, on 9p) by self-draw,
    混 indicator 九万: a scored hand without a photo."""
    at.button(key="new_hand").click().run()
    _choose(at, "S", "self_draw", "9m")
    form = [t for t in at.text_input if not t.key]
    form[0].set_value("1m 45m 456p 789s 中中中 9p9p")
    form[1].set_value("9p")
    next(b for b in at.button if b.label == "用这些牌").click().run()
    _no_traceback(at)
    assert _payments(at)


def _hand(at: AppTest):
    return at.session_state["hand"]


# ---------------------------------------------------------------------- first load, the sample


def test_first_load_shows_the_sample_read_and_scored_in_chinese(monkeypatch, tmp_path):
    monkeypatch.delenv("MAHJONG_DETECTOR", raising=False)
    monkeypatch.setenv("MAHJONG_MODEL", str(ROOT / "models" / "definitely-missing.json"))
    monkeypatch.setenv("MAHJONG_SCOREBOOK", str(tmp_path / "sb.sqlite"))
    st.cache_resource.clear()
    at = AppTest.from_file(APP, default_timeout=60).run()
    _no_traceback(at)
    assert "没有安装认牌模型" in _texts(at, "info")
    assert _payments(at) == SAMPLE_PAYS  # each seat once, in words
    assert "飘胡 2" in _texts(at, "caption")  # the whole 番 line under the score
    assert "大哥大" in _texts(at, "markdown")
    assert not at.metric and not at.table  # no payment tables, no always-empty columns
    st.cache_resource.clear()


@pytest.mark.skipif(not MODEL.is_file(), reason="no shipped model in models/ (model.json)")
def test_first_load_with_the_shipped_model(monkeypatch, tmp_path):
    monkeypatch.delenv("MAHJONG_DETECTOR", raising=False)
    monkeypatch.delenv("MAHJONG_MODEL", raising=False)
    monkeypatch.setenv("MAHJONG_SCOREBOOK", str(tmp_path / "sb.sqlite"))
    st.cache_resource.clear()
    at = AppTest.from_file(APP, default_timeout=120).run()
    _no_traceback(at)
    assert "示例照片" in _texts(at, "info")
    assert _payments(at)[0] == "南家 收 750"  # read or corrected, the sample always scores
    st.cache_resource.clear()


def test_the_sample_is_never_recordable(app):
    at = app.run()
    assert _payments(at) == SAMPLE_PAYS
    assert "record" not in [b.key for b in at.button]
    assert "示例牌局不能记分" in _texts(at, "caption")


# ---------------------------------------------------------------------- a hand from a photo


def test_upload_starts_a_new_hand_with_nothing_guessed(app):
    at = app.run()
    calls = len(CALLS)
    _upload(at, "hand.png", _sample_png())
    assert len(CALLS) == calls + 1
    h = _hand(at)
    # a new photo is a new hand: the sample's winner, 混 indicator, 宝 and losers' melds are gone
    assert (h.inputs.winner, h.inputs.win_by, h.inputs.indicator) == (None, None, None)
    assert h.inputs.extras == {} and h.inputs.loser_melds == {}
    # nothing is scored until the players say who won and how: the missing inputs are listed together
    assert "还不能算：请选谁胡了、怎么胡的（自摸还是点炮）、混指示牌" in _texts(at, "info")
    assert not _payments(at)
    assert "橙色的请看一眼：14 九条" in _texts(at, "caption")
    assert _button(at, "pickq_", f"_{_prefix(at)}_13")  # drawn orange


def test_a_tap_fixes_the_unsure_tile_and_the_hand_scores(app):
    at = app.run()
    _upload(at, "hand.png", _sample_png())
    _choose(at, "E", "self_draw", "9m")
    assert "不能胡" in _texts(at, "error")  # the misread hand cannot win, said in words
    calls = len(CALLS)
    _tap_tile(at, 13)
    sug = _button(at, "sug_8s_")  # the model's next guess, one tap away
    assert sug.label == "八条"
    sug.click().run()
    _no_traceback(at)
    assert _payments(at)[0].startswith("东家（庄） 收 ") and _hand(at).photo.boxes[13].cls == "8s"
    assert _hand(at).photo.picked is None  # nothing left in doubt: the keyboard closes
    # rescoring only: a closed hand cannot win on a discard; the photo is never read again
    _w(at, "segmented_control", "win_by").set_value("discard").run()
    assert "谁点的炮" in _texts(at, "info")  # and from whom is asked before anything is scored
    _w(at, "segmented_control", "discarder").set_value("S").run()
    _no_traceback(at)
    assert "闭门不能点炮胡" in _texts(at, "error")
    assert len(CALLS) == calls


def test_the_overlay_shows_the_current_boxes_and_a_short_hand_its_waits(app):
    """A deletion is drawn at once; a hand one tile short shows no 胡 tile but what it waits on."""
    from page.annotate import marks_for

    at = app.run()
    _upload(at, "hand.png", _sample_png())
    _choose(at)
    _tap_tile(at, 13)
    _w(at, "pills", "role_13").set_value("delete").run()
    _no_traceback(at)
    photo = _hand(at).photo
    styles = {m.number: m.style for m in marks_for(photo.boxes, photo.winning, photo.picked)}
    assert styles[14] == "ignored" and photo.winning != 13
    assert "认出 13 张：少一张" in _texts(at, "warning")
    assert "听 " in _texts(at, "info")  # what the hand waits on, and what each pays
    line = next(m.value for m in at.markdown if m.value.startswith("手牌"))
    assert "胡 " not in line  # no 胡 tile for a 13-tile hand


def test_not_waiting_says_why(app):
    at = app.run()
    at.button(key="new_hand").click().run()
    _choose(at, "S", "self_draw", "9m")
    form = [t for t in at.text_input if not t.key]
    form[0].set_value("1m 3m 5m 7m 9m 2p 4p 6p 8p 1s 3s 5s")  # 12 + the tile typed as won on: 13
    form[1].set_value("7s")
    next(b for b in at.button if b.label == "用这些牌").click().run()
    _no_traceback(at)
    assert "没听牌：" in _texts(at, "info")
    assert "差不止一张" in _texts(at, "info")


def test_building_a_meld_steps_on_and_guesses_its_kind(app):
    at = app.run()
    _upload(at, "hand.png", _sample_png())
    _tap_tile(at, 13)
    keys = [b for b in at.button if str(b.key).startswith("kb_") and str(b.key).endswith("_face")]
    assert len(keys) == 35 and keys[0].label == "一万" and keys[-1].label == "背面"
    _button(at, "kb_8s_face").click().run()
    # tiles 3-5 (白白白) are a 碰 on the table: a tap on 副露1 moves the keyboard to the next tile
    _tap_tile(at, 2)
    _w(at, "pills", "role_2").set_value("meld1").run()
    assert _hand(at).photo.picked == 3
    _w(at, "pills", "role_3").set_value("meld1").run()
    _w(at, "pills", "role_4").set_value("meld1").run()
    _no_traceback(at)
    assert _w(at, "segmented_control", "kind_meld1").value == "pong"  # guessed from its tiles
    _choose(at)
    assert _payments(at)
    # a meld's kind counts at once (the score is drawn from the hand after the change)
    _w(at, "segmented_control", "kind_meld1").set_value("concealed_kong").run()
    _no_traceback(at)
    assert _hand(at).photo.meld_kinds["meld1"] == "concealed_kong"
    assert "暗杠是 4 张牌" in _texts(at, "warning")


def _keyed(widgets, prefix: str):
    """The one widget whose key starts with `prefix` (the add-tile form's keys carry the hand's id)."""
    (w,) = [x for x in widgets if str(x.key).startswith(prefix)]
    return w


def test_add_a_missed_tile(app):
    at = app.run()
    _upload(at, "hand.png", _sample_png())
    _tap_tile(at, 13)
    _w(at, "pills", "role_13").set_value("delete").run()
    assert "少一张" in _texts(at, "warning")
    _keyed(at.selectbox, "add_face_").set_value("8s")
    _keyed(at.checkbox, "add_won_").check()
    next(b for b in at.button if b.label == "加上这张").click().run()
    _no_traceback(at)
    _choose(at)
    assert _payments(at)[0].startswith("东家（庄） 收 ")


def _label_rows(root: Path) -> list[str]:
    from vision.train import data as vdata

    manifest = [json.loads(x) for x in (root / "manifest.jsonl").read_text().splitlines()]
    images = vdata.split_images(root, manifest[-1]["split"])
    return sorted(vdata.label_path_for(images[0]).read_text().split())


def test_save_after_a_fix_says_what_is_on_disk(app, tmp_path):
    at = app.run()
    _upload(at, "../../evil name.png", _sample_png())
    pk = _hand(at).photo.widget_prefix
    at.button(key=f"save_{pk}").click().run()
    _no_traceback(at)
    assert "已保存" in _texts(at, "success")
    root = tmp_path / "labelled"
    first = _label_rows(root)
    assert first.count("26") == 1  # class 26 = 9s: the unfixed reading was saved
    assert not list(tmp_path.glob("evil*"))
    _tap_tile(at, 13)
    _button(at, "sug_8s_").click().run()
    assert "保存后你又改了牌" in _texts(at, "info")
    at.button(key=f"save_{pk}").click().run()
    _no_traceback(at)
    rows = _label_rows(root)  # the newest version (last manifest line) is what training reads
    assert rows.count("26") == 0 and rows.count("25") == 3  # 9s fixed to 8s on disk
    assert "第 2 版" in _texts(at, "success") and "和现在的牌一致" in _texts(at, "success")


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def _png_header(width: int, height: int) -> bytes:
    """A PNG whose header claims a huge image, with a token of pixel data: a '60 MP photo' in ~60 bytes."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", ihdr) + _chunk(b"IDAT", zlib.compress(b"\0" * 64))


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        ("notes.jpg", b"this is not an image at all", "这个文件不能当照片用"),
        ("huge.png", _png_header(10_000, 6_000), "图片太大"),
        ("empty.png", b"", "这个文件不能当照片用"),
    ],
    ids=["not-an-image", "60MP", "empty"],
)
def test_a_bad_file_keeps_the_current_hand(app, name, data, message):
    at = app.run()
    _upload(at, "hand.png", _sample_png())
    _choose(at, "S")
    before = _hand(at).id
    _uploader(at).set_value((name, data, "image/png")).run()
    _no_traceback(at)
    assert message in _texts(at, "error") and "当前这一局没动" in _texts(at, "error")
    h = _hand(at)
    assert h.id == before and h.inputs.winner == "S" and len(h.photo.boxes) == 14


def test_60mp_sparse_file_is_refused_by_the_loader(tmp_path):
    """The same limit on a real 60 MP-sized file on disk (sparse: no disk space used)."""
    from vision.read.imageio import ImageLoadError, load_image

    path = tmp_path / "huge.png"
    with open(path, "wb") as f:
        f.write(_png_header(10_000, 6_000))
        f.truncate(180_000_000)
    with pytest.raises(ImageLoadError, match="too large"):
        load_image(path)


def test_photo_of_no_tiles_and_of_forty(app):
    at = app.run()
    _upload(at, "table.png", _png(np.full((300, 400, 3), 90, np.uint8)))
    assert "照片里没找到牌" in _texts(at, "info")
    assert any(e.label == "直接输入牌" for e in at.expander)
    rgb = np.random.default_rng(1).integers(0, 255, (200, 1600, 3), dtype=np.uint8)
    _upload(at, "forty.png", _png(rgb))
    assert "认出 40 张，胡牌应有 14 张：多 26 张" in _texts(at, "warning")
    assert not _payments(at)


def test_user_text_is_never_markup(app):
    """A file name or a typed meld with Markdown in it is shown as text."""
    at = app.run()
    _upload(at, "![i](http://127.0.0.1:1/x.png).png", _sample_png())
    caption = next(c.value for c in at.caption if "640×300" in c.value)
    assert caption.startswith("\\!\\[i\\]\\(http")
    _w(at, "text_input", "melds_S").set_value("碰 [x](javascript:alert(1))").run()
    _no_traceback(at)
    warned = [w.value for w in at.warning if "看不懂" in w.value]
    assert warned and "\\[x\\]" in warned[0]


def test_every_problem_is_shown_together(app):
    """The engine is the one judge: a discard win flagged 杠上开 *and* 地胡 lists both problems."""
    at = app.run()
    _w(at, "segmented_control", "win_by").set_value("discard").run()
    _w(at, "segmented_control", "discarder").set_value("E").run()
    _w(at, "checkbox", "flag_kong_replacement").check().run()
    _w(at, "checkbox", "flag_first_draw").check().run()
    _no_traceback(at)
    warnings = [w.value for w in at.warning if "还不能算" in w.value]
    assert len(warnings) >= 2, warnings
    assert not _payments(at)


def test_hand_json_can_be_copied(app):
    at = app.run()
    _no_traceback(at)
    assert "其中 1 张和核对过的不一样" in _texts(at, "info")
    code = [c.value for c in at.code if c.language == "json"]
    assert code, "the hand JSON is shown for copying"
    import rules

    assert rules.score(json.loads(code[0])).payments["S"] == 750


def test_preset_options_room_multiplier_and_english(app):
    at = app.run()
    _w(at, "selectbox", "preset").set_value("anshan").run()
    _no_traceback(at)
    assert "没有顺子" in _texts(at, "error")  # 鞍山 forbids an all-triplet hand
    assert any(str(b.key).startswith("tilein_gun_tile_") for b in at.button)
    assert not any(str(b.key).startswith("tilein_bao_tile_") for b in at.button)
    _w(at, "selectbox", "preset").set_value("liaoyang-online").run()
    _no_traceback(at)
    one = int(_payments(at)[0].split()[-1])
    _w(at, "number_input", "extra_room_multiplier").set_value(3).run()
    _no_traceback(at)
    assert int(_payments(at)[0].split()[-1]) == 3 * one
    _w(at, "selectbox", "opt_liaoyang-online_include_winds").set_value(False).run()
    _no_traceback(at)
    hand = json.loads(next(c.value for c in at.code if c.language == "json"))
    assert hand["options"] == {"include_winds": False} and hand["room_multiplier"] == 3
    labels = [s.label for s in at.selectbox if "_opt_" in str(s.key)]
    assert labels and not any("_" in label for label in labels)  # words, never code keys
    at.toggle(key="lang_en").set_value(True).run()
    _no_traceback(at)
    assert _payments(at) == [] and any("South receives" in m.value for m in at.markdown)
    assert _w(at, "segmented_control", "win_by").label == "Won by"
    body = _texts(at, "markdown") + _texts(at, "caption")
    assert "南家" not in body and "八条" not in body  # seats and tiles in English too
    assert "8 bamboo" in body


def test_heic_upload_and_camera(app):
    """An iPhone HEIC photo is read like any other; the camera input feeds the same path."""
    import pillow_heif

    pillow_heif.register_heif_opener()
    buf = io.BytesIO()
    Image.open(SAMPLE / "winning-hand.jpg").save(buf, format="HEIF", quality=90)
    at = app.run()
    _upload(at, "IMG_0001.HEIC", buf.getvalue(), "image/heic")
    assert "14 九条" in _texts(at, "caption")
    at.toggle(key="use_camera").set_value(True).run()
    _no_traceback(at)
    jpeg = io.BytesIO()
    Image.open(SAMPLE / "winning-hand.jpg").convert("RGB").save(jpeg, format="JPEG", quality=90)
    cam = next(c for c in at.camera_input if str(c.key).startswith("camera_"))
    cam.set_value(("camera.jpg", jpeg.getvalue(), "image/jpeg")).run()
    _no_traceback(at)
    assert "camera.jpg" in _hand(at).photo.name
    assert "14 九条" in _texts(at, "caption")


def test_typed_hand_shows_what_the_hun_stood_for(app):
    at = app.run()
    at.button(key="new_hand").click().run()
    _choose(at, "S", "self_draw", "9m")  # 一万 is the 混
    form = [t for t in at.text_input if not t.key]
    form[0].set_value("1m 45m 456p 789s 中中中 9p9p")
    form[1].set_value("9p")
    next(b for b in at.button if b.label == "用这些牌").click().run()
    _no_traceback(at)
    hun = [m.value for m in at.markdown if "（混）当" in m.value]
    assert hun and ("三万" in hun[0] or "六万" in hun[0])
    assert _payments(at)


def test_new_hand_clears_every_input_of_the_last(app):
    at = app.run()
    _upload(at, "hand.png", _sample_png())
    _choose(at, "S")
    _w(at, "text_input", "melds_W").set_value("碰中").run()
    _w(at, "checkbox", "flag_last_tiles").check().run()
    assert _hand(at).inputs.loser_melds == {"W": "碰中"}
    at.button(key="new_hand").click().run()
    _no_traceback(at)
    h = _hand(at)
    assert h.photo.boxes == [] and h.inputs.winner is None and h.inputs.indicator is None
    assert h.inputs.loser_melds == {} and h.inputs.flags == {}
    assert _w(at, "text_input", "melds_W").value == ""  # a new key: nothing shown of the last hand
    assert not _payments(at)


def test_a_model_file_is_loaded_and_used(monkeypatch, tmp_path):
    """The real loading path (MAHJONG_MODEL → vision.read.detect.load_model → detect) with an untrained
    35-class YOLO built offline from ultralytics' yolov8n.yaml: it finds nothing, and the page says so."""
    import torch

    from vision import _env  # noqa: F401
    from vision.classes import CLASS_NAMES

    nn_tasks = pytest.importorskip("ultralytics.nn.tasks")
    model = nn_tasks.DetectionModel("yolov8n.yaml", nc=len(CLASS_NAMES), verbose=False)
    model.names = dict(enumerate(CLASS_NAMES))
    weights = tmp_path / "tiny.pt"
    torch.save({"model": model.half(), "train_args": {}, "epoch": -1, "date": None}, weights)
    monkeypatch.delenv("MAHJONG_DETECTOR", raising=False)
    monkeypatch.setenv("MAHJONG_MODEL", str(weights))
    monkeypatch.setenv("MAHJONG_SCOREBOOK", str(tmp_path / "sb.sqlite"))
    st.cache_resource.clear()
    at = AppTest.from_file(APP, default_timeout=120).run()
    _no_traceback(at)
    assert "模型没认出牌" in _texts(at, "info")
    assert _payments(at)[0] == "南家 收 750"
    _upload(at, "hand.png", _sample_png())
    assert "照片里没找到牌" in _texts(at, "info")
    assert _hand(at).photo.model_version.startswith("tiny.pt@")
    _uploader(at).set_value(("notes.jpg", b"not an image", "image/jpeg")).run()
    _no_traceback(at)
    assert "这个文件不能当照片用" in _texts(at, "error")
    st.cache_resource.clear()


def test_discarded_hun_means_no_win(app):
    at = app.run()
    assert _payments(at)
    _w(at, "checkbox", "flag_discarded_hun").check().run()
    _no_traceback(at)
    assert "打过混" in _texts(at, "error") + _texts(at, "warning")
    assert not _payments(at)
    _w(at, "selectbox", "preset").set_value("anshan").run()
    _no_traceback(at)
    assert not _has(at, "checkbox", "flag_discarded_hun")  # 鞍山 has no such rule


# ---------------------------------------------------------------------- the evening


def _real_hand(at: AppTest, k: int, winner: str = "S") -> None:
    """Upload marked photo k (read as tests.fake_reader.HANDS[k]) and say who won, self-drawn, 九万."""
    _upload(at, f"hand{k}.png", marked_photo(k))
    _choose(at, winner, "self_draw", "9m")
    assert _payments(at), _texts(at, "warning") + _texts(at, "error")


def test_scorebook_records_a_hand_and_survives_a_restart(app):
    at = app.run()
    _real_hand(at, 0)
    at.button(key="record").click().run()
    _no_traceback(at)
    assert "已记入第 1 局" in _texts(at, "caption") + _texts(at, "success")
    assert any("南+600" in e.label.replace("\\", "") for e in at.expander)
    st.cache_resource.clear()  # a new server process, a new browser: same file, same totals, same hand
    again = AppTest.from_file(APP, default_timeout=60).run()
    _no_traceback(again)
    assert any(
        "南+600" in e.label.replace("\\", "") and "东-200" in e.label.replace("\\", "")
        for e in again.expander
    )
    assert "已记入第 1 局" in _texts(again, "caption")  # the restored hand is known as recorded


def test_a_reload_restores_the_hand_in_progress(app):
    at = app.run()
    _upload(at, "hand.png", _sample_png())
    _choose(at, "W", "self_draw", None)
    _w(at, "text_input", "melds_N").set_value("吃678m").run()
    _tap_tile(at, 13)
    _button(at, "sug_8s_").click().run()
    again = AppTest.from_file(APP, default_timeout=60).run()  # the same server, a new browser session
    _no_traceback(again)
    h = _hand(again)
    assert h.sample is False and h.inputs.winner == "W" and h.inputs.loser_melds == {"N": "吃678m"}
    assert h.photo.boxes[13].cls == "8s" and h.photo.rgb is not None
    assert "还不能算：请选混指示牌" in _texts(again, "info")
    # a change in one tab reaches the other at its next run
    _pick_tile(again, "indicator", "9m")
    at.run()
    _no_traceback(at)
    assert _hand(at).inputs.indicator == "9m" and _payments(at)


def test_recording_the_same_photo_again_replaces_the_hand(app):
    at = app.run()
    _real_hand(at, 0, "S")
    at.button(key="record").click().run()
    _w(at, "segmented_control", "winner").set_value("N").run()
    assert "这张照片已记为第 1 局——改成这样？" in _texts(at, "warning")
    at.button(key="record").click().run()
    _no_traceback(at)
    assert "第 1 局已改好" in _texts(at, "success")
    from page.scorebook import Scorebook

    book = Scorebook(Path(at.session_state["hand"].photo.name).parent / "x" if False else None)
    hist = book.history()
    assert len(hist) == 1 and hist[0].winner == "N"


def test_the_next_hand_is_dealt_as_the_scorebook_says(app):
    """南家 wins against the dealer 东家: the deal passes, and the next photo's hand starts with 南家 as 庄."""
    at = app.run()
    _real_hand(at, 0, "S")
    at.button(key="record").click().run()
    _upload(at, "next.png", marked_photo(1))
    assert _hand(at).inputs.dealer == "S"
    at.button(key="draw").click().run()  # 黄庄 asks first
    assert "记一局黄庄" in _texts(at, "warning")
    at.button(key="confirm_yes").click().run()
    _no_traceback(at)
    assert any("第 2 局 · 黄庄" in c.value for c in at.caption)
    assert _hand(at).inputs.dealer == "S" and _hand(at).photo.boxes == []  # a new hand, same dealer
    at.button(key="undo").click().run()
    at.button(key="confirm_yes").click().run()
    _no_traceback(at)
    assert not any("第 2 局 · 黄庄" in c.value for c in at.caption)
    at.button(key="restore").click().run()  # 撤销 can be taken back
    _no_traceback(at)
    assert any("第 2 局 · 黄庄" in c.value for c in at.caption)


def test_a_new_evening_asks_first_and_the_old_one_can_be_reopened(app):
    at = app.run()
    _real_hand(at, 0, "S")
    at.button(key="record").click().run()
    at.button(key="new_evening").click().run()
    at.button(key="confirm_no").click().run()  # 取消: nothing happened
    assert any("南+600" in e.label.replace("\\", "") for e in at.expander)
    at.button(key="new_evening").click().run()
    at.button(key="confirm_yes").click().run()
    _no_traceback(at)
    assert not any("南+600" in e.label.replace("\\", "") for e in at.expander)
    _button(at, "reopen_").click().run()
    _no_traceback(at)
    assert any("南+600" in e.label.replace("\\", "") for e in at.expander)


def test_the_scorebook_says_why_it_cannot_be_used(app, tmp_path, monkeypatch):
    bad = tmp_path / "broken.sqlite"
    bad.write_bytes(b"this is not a database" * 100)
    monkeypatch.setenv("MAHJONG_SCOREBOOK", str(bad))
    at = app.run()
    _no_traceback(at)
    assert "记分本用不了" in _texts(at, "warning")
    assert _payments(at) == SAMPLE_PAYS  # scoring goes on


def _learn_run(app, tmp_path: Path):
    """A personal-model run folder and the page that offers 学习我的牌 (skipped without vision.train.adapt)."""
    run = tmp_path / "personal" / "20260101T000000Z"
    run.mkdir(parents=True)
    at = app.run()
    if not any(e.label == "学习我的牌" for e in at.expander):
        pytest.skip("vision.train.adapt is not installed: the page does not offer 学习我的牌")
    return run, at


def test_learn_my_tiles_offers_the_personal_model_when_a_run_is_done(app, tmp_path):
    """A finished adapt run is offered; a killed one says so and can be started again."""
    run, at = _learn_run(app, tmp_path)
    (run / "progress.json").write_text(json.dumps({"stage": "train", "fraction": 0.5, "done": False, "error": None,
                                                    "message_zh": "正在学习", "message_en": "learning"}))  # fmt: skip
    (run / "adapt.pid").write_text("999999999")  # no such process: the run was killed
    at.session_state["learn_run"] = str(run)
    at.run()
    _no_traceback(at)
    assert "上次学习中断了" in _texts(at, "warning")
    import os

    (run / "adapt.pid").write_text(str(os.getpid()))  # a live process: still learning
    at.session_state["learn_run"] = str(run)
    at.run()
    assert at.progress and at.progress[0].value == 50
    assert "personal_on" not in [b.key for b in at.button]
    (run / "progress.json").write_text(json.dumps({"stage": "done", "fraction": 1.0, "done": True, "error": None,
                                                    "message_zh": "好了", "message_en": "done"}))  # fmt: skip
    (run / "model.json").write_text("{}")
    at.run()
    at.button(key="personal_on").click().run()
    _no_traceback(at)
    assert at.session_state["personal_model"] == str(run / "model.json")
    assert "正在用你的牌识别" in _texts(at, "caption") + _texts(at, "success")
    at.button(key="personal_off").click().run()
    assert "personal_model" not in at.session_state


def test_a_run_that_learnt_nothing_is_not_offered(app, tmp_path):
    """adapt kept the base reading (adapting did not read the saved photos better): the page says
    so and offers no switch, neither now nor as 用上次学好的模型."""
    run, at = _learn_run(app, tmp_path)
    (run / "progress.json").write_text(json.dumps({"stage": "done", "fraction": 1.0, "done": True, "error": None,
                                                    "message_zh": "好了", "message_en": "done"}))  # fmt: skip
    (run / "model.json").write_text(json.dumps({"adapt": {"kept": "base"}}))
    (run / "adapt.pid").write_text("999999999")
    at.session_state["learn_run"] = str(run)
    at.run()
    _no_traceback(at)
    assert "仍用原来的认法" in _texts(at, "info")
    keys = [b.key for b in at.button]
    assert "personal_on" not in keys and "personal_last" not in keys


def test_the_lan_page_shows_nothing_before_the_pin(app, monkeypatch):
    """`make app-lan` sets MAHJONG_PIN: the page asks for it before the photo, the scores, the scorebook."""
    monkeypatch.setenv("MAHJONG_PIN", "246810")
    at = app.run()
    _no_traceback(at)
    if not at.text_input or at.text_input[0].key != "pin_entry":
        pytest.skip("the PIN is asked by the LAN gate in front of Streamlit (page.serve)")
    assert not _payments(at) and not at.file_uploader and "hand" not in at.session_state
    at.text_input(key="pin_entry").set_value("246810")
    at.button[0].click().run()
    _no_traceback(at)
    assert _payments(at) == SAMPLE_PAYS


def test_a_drawn_hand_carries_changmao_into_the_next_online_hand(app):
    """辽阳在线: after a 黄庄 the next hand starts with 长毛 1 (the scorebook counts the draws)."""
    at = app.run()
    _w(at, "selectbox", "preset").set_value("liaoyang-online").run()
    _real_hand(at, 0, "S")
    at.button(key="record").click().run()
    at.button(key="draw").click().run()
    at.button(key="confirm_yes").click().run()
    _no_traceback(at)
    assert _w(at, "number_input", "extra_changmao").value == 1
    _upload(at, "next.png", marked_photo(1))
    assert _w(at, "number_input", "extra_changmao").value == 1 and _hand(at).inputs.dealer == "S"
