"""The page (app.py) driven headless with Streamlit's AppTest: phone-first flows in Chinese (and English).

A tiny fake detector (`fake_detect`, plugged in through MAHJONG_DETECTOR) stands in for the model so
these flows run without `models/`: it "reads" the bundled sample photo with one tile wrong, finds
nothing on a blank photo and 40 tiles on a wide one. One test uses the shipped model when present.
"""

from __future__ import annotations

import hashlib
import io
import json
import struct
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest
import streamlit as st
from PIL import Image
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "app.py")
SAMPLE = ROOT / "datasets" / "samples"
MODEL = ROOT / "models" / "model.json"


@dataclass
class FakeDetection:
    cls: str
    conf: float
    xyxy: tuple[float, float, float, float]
    alternatives: list[tuple[str, float]] = field(default_factory=list)
    unsure: bool = False  # the reader's own flag (vision.detect.Detection.unsure)


CALLS: list[tuple[int, int]] = []  # image sizes the fake detector was called with


def fake_detect(rgb: np.ndarray) -> list[FakeDetection]:
    """Deterministic stand-in for vision.detect.detect (see module docstring)."""
    h, w = rgb.shape[:2]
    CALLS.append((h, w))
    if rgb.std() < 2:
        return []
    if w == 1600:
        return [FakeDetection("1m", 0.9, (40.0 * i, 10.0, 40.0 * i + 36, 60.0)) for i in range(40)]
    doc = json.loads((SAMPLE / "sample.json").read_text(encoding="utf-8"))
    sx, sy = w / 640, h / 300
    dets = []
    for t in doc["tiles"]:
        x1, y1, x2, y2 = t["xyxy"]
        dets.append(FakeDetection(t["cls"], 0.93, (x1 * sx, y1 * sy, x2 * sx, y2 * sy), [("5m", 0.01)]))
    dets[-1] = FakeDetection("9s", 0.55, dets[-1].xyxy, [("8s", 0.4), ("7s", 0.02)], unsure=True)  # misread
    return dets


@pytest.fixture
def app(monkeypatch, tmp_path):
    """A fresh page with the fake detector and temporary training-data, scorebook and personal folders."""
    monkeypatch.setenv("MAHJONG_DETECTOR", "tests.test_app:fake_detect")
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


def _uploader(at: AppTest):
    return next(u for u in at.file_uploader if str(u.key).startswith("upload_"))


def _upload(at: AppTest, name: str, data: bytes, mime: str = "image/png") -> str:
    _uploader(at).set_value((name, data, mime)).run()
    _no_traceback(at)
    return hashlib.sha256(data).hexdigest()[:10]


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


def _tap_tile(at: AppTest, pk: str, i: int) -> None:
    _button(at, "pick", f"_{pk}_{i}").click().run()
    _no_traceback(at)


SAMPLE_PAYS = ["南家 收 750", "东家（庄） 付 250", "西家 付 250", "北家 付 250"]


def test_first_load_shows_the_sample_read_and_scored_in_chinese(monkeypatch, tmp_path):
    monkeypatch.delenv("MAHJONG_DETECTOR", raising=False)
    monkeypatch.setenv("MAHJONG_MODEL", str(ROOT / "models" / "definitely-missing.json"))
    monkeypatch.setenv("MAHJONG_SCOREBOOK", str(tmp_path / "sb.sqlite"))
    st.cache_resource.clear()
    at = AppTest.from_file(APP, default_timeout=60).run()
    _no_traceback(at)
    assert "没有安装认牌模型" in _texts(at, "info")
    assert _payments(at) == SAMPLE_PAYS  # each seat once, in words
    body = _texts(at, "markdown")
    assert "飘胡 2 番" in body and "大哥大" in body
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


def test_upload_starts_a_new_hand_and_a_tap_fixes_the_unsure_tile(app):
    at = app.run()
    assert at.selectbox(key="sit_indicator").value == "9m"  # the sample's situation
    calls = len(CALLS)
    pk = _upload(at, "hand.png", _sample_png())
    assert len(CALLS) == calls + 1
    # a new photo is a new hand: the sample's 混 indicator, 宝 and winner do not carry over
    assert "新的一局" in _texts(at, "info")
    assert at.selectbox(key="sit_indicator").value is None and at.selectbox(key="sit_bao_tile").value is None
    assert at.segmented_control(key="sit_winner").value == "E"
    assert "橙色的请看一眼：14 九条" in _texts(at, "caption")
    assert _button(at, "pickq_", f"_{pk}_13")  # drawn orange
    at.selectbox(key="sit_indicator").set_value("9m").run()
    assert "不能胡" in _texts(at, "error")  # the misread hand cannot win, said in words
    _tap_tile(at, pk, 13)
    sug = _button(at, "sug_8s_")  # the model's next guess, one tap away
    assert sug.label == "八条"
    sug.click().run()
    _no_traceback(at)
    assert _payments(at)[0].startswith("东家（庄） 收 ") and at.session_state.photo.boxes[13].cls == "8s"
    assert at.session_state.photo.picked is None  # nothing left in doubt: the keyboard closes
    # rescoring only: change the situation; the photo is never detected again
    at.segmented_control(key="sit_win_by").set_value("discard").run()
    _no_traceback(at)
    assert "闭门不能点炮胡" in _texts(at, "error")
    assert len(CALLS) == calls + 1


def test_the_overlay_shows_the_current_boxes(app):
    """A fix or a deletion is drawn at once (the marks come from the boxes after the callback)."""
    from page.annotate import marks_for

    at = app.run()
    pk = _upload(at, "hand.png", _sample_png())
    _tap_tile(at, pk, 13)
    at.pills(key=f"role_{pk}_13").set_value("delete").run()
    _no_traceback(at)
    photo = at.session_state.photo
    styles = {m.number: m.style for m in marks_for(photo.boxes, photo.winning, photo.picked)}
    assert styles[14] == "ignored" and photo.winning != 13
    assert "认出 13 张：少一张" in _texts(at, "warning")
    at.selectbox(key="sit_indicator").set_value("9m").run()
    assert "听 " in _texts(at, "warning")  # one tile short: what the hand waits on, and what each pays


def test_full_keyboard_and_grouping(app):
    at = app.run()
    pk = _upload(at, "hand.png", _sample_png())
    _tap_tile(at, pk, 13)
    keys = [b for b in at.button if str(b.key).startswith("kb_")]
    assert len(keys) == 35 and keys[0].label == "一万" and keys[-1].label == "背面"
    _button(at, "kb_8s").click().run()
    # say tiles 3-5 (白白白) are a 碰 on the table: still 14 tiles, still a winning hand
    for i in (2, 3, 4):
        _tap_tile(at, pk, i)
        at.pills(key=f"role_{pk}_{i}").set_value("meld1").run()
    _no_traceback(at)
    assert at.radio(key=f"kind_{pk}_meld1").value == "pong"
    at.selectbox(key="sit_indicator").set_value("9m").run()
    assert _payments(at)
    # a meld's kind counts at once (the score above the radio is drawn after the change)
    at.radio(key=f"kind_{pk}_meld1").set_value("concealed_kong").run()
    _no_traceback(at)
    assert at.session_state.photo.meld_kinds["meld1"] == "concealed_kong"
    assert "暗杠是 4 张牌" in _texts(at, "warning")


def test_add_a_missed_tile(app):
    at = app.run()
    pk = _upload(at, "hand.png", _sample_png())
    _tap_tile(at, pk, 13)
    at.pills(key=f"role_{pk}_13").set_value("delete").run()
    assert "少一张" in _texts(at, "warning")
    at.selectbox(key="add_face").set_value("8s")
    at.checkbox(key="add_won").check()
    next(b for b in at.button if b.label == "加上这张").click().run()
    _no_traceback(at)
    at.selectbox(key="sit_indicator").set_value("9m").run()
    assert _payments(at)[0].startswith("东家（庄） 收 ")


def _label_rows(root: Path) -> list[str]:
    from vision import data as vdata

    manifest = [json.loads(x) for x in (root / "manifest.jsonl").read_text().splitlines()]
    images = vdata.split_images(root, manifest[-1]["split"])
    return sorted(vdata.label_path_for(images[0]).read_text().split())


def test_save_after_a_fix_says_what_is_on_disk(app, tmp_path):
    at = app.run()
    pk = _upload(at, "../../evil name.png", _sample_png())
    at.button(key=f"save_{pk}").click().run()
    _no_traceback(at)
    assert "已保存" in _texts(at, "success")
    root = tmp_path / "labelled"
    first = _label_rows(root)
    assert first.count("26") == 1  # class 26 = 9s: the unfixed reading was saved
    assert not list(tmp_path.glob("evil*"))
    # fix after saving: the page offers to save the corrected version
    _tap_tile(at, pk, 13)
    _button(at, "sug_8s_").click().run()
    assert "保存后你又改了牌" in _texts(at, "info")
    at.button(key=f"save_{pk}").click().run()
    _no_traceback(at)
    rows = _label_rows(root)  # the newest version (last manifest line) is what training reads
    assert rows.count("26") == 0 and rows.count("25") == 3  # 9s fixed to 8s on disk
    assert "第 2 版" in _texts(at, "success") and "和现在的牌一致" in _texts(at, "success")
    at.run()
    assert "保存修改" not in [b.label for b in at.button]  # nothing left to save


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
        ("huge.png", _png_header(10_000, 6_000), "too large"),
        ("empty.png", b"", "这个文件不能当照片用"),
    ],
    ids=["not-an-image", "60MP", "empty"],
)
def test_bad_files_get_a_plain_message(app, name, data, message):
    at = app.run()
    _uploader(at).set_value((name, data, "image/png")).run()
    _no_traceback(at)
    assert message in _texts(at, "error")
    # the page stays usable: typing the hand still scores it
    at.text_input(key="type_concealed").set_value("22m 白白白 777p 333p 888s")
    at.text_input(key="type_winning").set_value("8s")
    at.button(key="type_go").click().run()
    _no_traceback(at)
    at.selectbox(key="sit_indicator").set_value("9m").run()
    assert _payments(at)


def test_60mp_sparse_file_is_refused_by_the_loader(tmp_path):
    """The same limit on a real 60 MP-sized file on disk (sparse: no disk space used)."""
    from vision.imageio import ImageLoadError, load_image

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
    assert "type_concealed" in [t.key for t in at.text_input]
    rgb = np.random.default_rng(1).integers(0, 255, (200, 1600, 3), dtype=np.uint8)
    _upload(at, "forty.png", _png(rgb))
    assert "认出 40 张，胡牌应有 14 张：多 26 张" in _texts(at, "warning")
    assert not _payments(at)


def test_user_text_is_never_markup(app):
    """A file name or a typed meld with Markdown in it is shown as text (issue 12)."""
    at = app.run()
    _upload(at, "![i](http://127.0.0.1:1/x.png).png", _sample_png())
    caption = next(c.value for c in at.caption if "640×300" in c.value)
    assert caption.startswith("\\!\\[i\\]\\(http")
    at.text_input(key="sit_melds_S").set_value("碰 [x](javascript:alert(1))").run()
    _no_traceback(at)
    warned = [w.value for w in at.warning if "看不懂" in w.value]
    assert warned and "\\[x\\]" in warned[0]


def test_contradiction_is_explained_where_it_occurs(app):
    at = app.run()
    at.segmented_control(key="sit_win_by").set_value("discard").run()
    at.checkbox(key="sit_kong_replacement").check().run()
    _no_traceback(at)
    assert "杠上开是摸自己的杠后补牌胡的，不能是点炮" in _texts(at, "warning")


def test_hand_json_can_be_copied(app):
    at = app.run()
    _no_traceback(at)
    # the (fake) detector misreads one sample tile: the page says so and shows its reading apart
    assert "其中 1 张和核对过的不一样" in _texts(at, "info")
    code = [c.value for c in at.code if c.language == "json"]
    assert code, "the hand JSON is shown for copying"
    import rules

    assert rules.score(json.loads(code[0])).payments["S"] == 750


def test_preset_options_room_multiplier_and_english(app):
    at = app.run()
    at.selectbox(key="sit_preset").set_value("anshan").run()
    _no_traceback(at)
    assert "没有顺子" in _texts(at, "error")  # 鞍山 forbids an all-triplet hand
    assert "sit_gun_tile" in [s.key for s in at.selectbox] and "sit_bao_tile" not in [
        s.key for s in at.selectbox
    ]
    at.selectbox(key="sit_preset").set_value("liaoyang-online").run()
    _no_traceback(at)
    one = int(_payments(at)[0].split()[-1])
    at.number_input(key="sit_room_multiplier").set_value(3).run()
    _no_traceback(at)
    assert int(_payments(at)[0].split()[-1]) == 3 * one
    at.selectbox(key="opt_liaoyang-online_include_winds").set_value(False).run()
    _no_traceback(at)
    hand = json.loads(next(c.value for c in at.code if c.language == "json"))
    assert hand["options"] == {"include_winds": False} and hand["room_multiplier"] == 3
    labels = [s.label for s in at.selectbox if str(s.key).startswith("opt_")]
    assert labels and not any("_" in label for label in labels)  # words, never code keys
    at.toggle(key="lang_en").set_value(True).run()
    _no_traceback(at)
    assert _payments(at) == [] and any("receives" in m.value for m in at.markdown)
    assert at.segmented_control(key="sit_win_by").label == "Won by"


def test_heic_upload_and_camera(app):
    """An iPhone HEIC photo is read like any other; the camera input feeds the same path."""
    import pillow_heif

    pillow_heif.register_heif_opener()
    buf = io.BytesIO()
    Image.open(SAMPLE / "winning-hand.jpg").save(buf, format="HEIF", quality=90)
    at = app.run()
    _upload(at, "IMG_0001.HEIC", buf.getvalue(), "image/heic")
    assert "14 九条" in _texts(at, "caption")
    _uploader(at).set_value(None)
    at.toggle(key="use_camera").set_value(True).run()
    _no_traceback(at)
    jpeg = io.BytesIO()
    Image.open(SAMPLE / "winning-hand.jpg").convert("RGB").save(jpeg, format="JPEG", quality=90)
    at.camera_input(key="camera_0").set_value(("camera.jpg", jpeg.getvalue(), "image/jpeg")).run()
    _no_traceback(at)
    assert "camera.jpg" in at.session_state.photo.name
    assert "14 九条" in _texts(at, "caption")


def test_typed_hand_shows_what_the_hun_stood_for(app):
    at = app.run()  # sample situation: indicator 九万, so 一万 is the 混
    at.text_input(key="type_concealed").set_value("1m 45m 456p 789s 中中中 9p9p")
    at.text_input(key="type_winning").set_value("9p")
    at.button(key="type_go").click().run()
    _no_traceback(at)
    hun = [m.value for m in at.markdown if "（混）当" in m.value]
    assert hun and ("三万" in hun[0] or "六万" in hun[0])
    assert _payments(at)


def test_new_hand_button_clears_the_photo_and_the_situation(app):
    at = app.run()
    assert _payments(at)
    at.button(key="new_hand").click().run()
    _no_traceback(at)
    assert at.session_state.photo.boxes == [] and at.selectbox(key="sit_indicator").value is None
    assert "新的一局" in _texts(at, "info") and not _payments(at)


def test_a_model_file_is_loaded_and_used(monkeypatch, tmp_path):
    """The real loading path (MAHJONG_MODEL → vision.detect.load_model → detect) with an untrained
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
    assert at.session_state.photo.model_version.startswith("tiny.pt@")
    # with ultralytics imported (it patches PIL.Image.open), a non-image still gets a plain message
    _uploader(at).set_value(("notes.jpg", b"not an image", "image/jpeg")).run()
    _no_traceback(at)
    assert "这个文件不能当照片用" in _texts(at, "error")
    st.cache_resource.clear()


def test_discarded_hun_means_no_win(app):
    at = app.run()
    assert _payments(at)
    at.checkbox(key="sit_discarded_hun").check().run()
    _no_traceback(at)
    assert "打过混" in _texts(at, "error")
    assert not _payments(at)
    at.selectbox(key="sit_preset").set_value("anshan").run()
    _no_traceback(at)
    assert "sit_discarded_hun" not in [c.key for c in at.checkbox]  # 鞍山 has no such rule


def test_scorebook_records_a_hand_and_survives_a_restart(app, monkeypatch, tmp_path):
    at = app.run()
    at.button(key="record").click().run()
    _no_traceback(at)
    assert "已记入第 1 局" in _texts(at, "caption")
    assert any("南家 +750" in e.label.replace("\\", "") for e in at.expander)
    # a new server process: same file, same totals
    st.cache_resource.clear()
    again = AppTest.from_file(APP, default_timeout=60).run()
    _no_traceback(again)
    labels = [e.label.replace("\\", "") for e in again.expander]
    assert any("南家 +750" in label and "东家 -250" in label for label in labels)
    assert "已记入第 1 局" in _texts(again, "caption")  # the sample is known as recorded


def test_the_next_hand_is_dealt_as_the_scorebook_says(app):
    """南家 wins against the dealer 东家: the deal passes, and the next photo's hand starts with 南家 as 庄."""
    at = app.run()
    at.button(key="record").click().run()
    _upload(at, "next.png", _sample_png())
    assert at.segmented_control(key="sit_dealer").value == "S"
    assert "庄家 南家" in _texts(at, "info")
    at.button(key="draw").click().run()  # 黄庄: recorded, the dealer stays
    _no_traceback(at)
    assert any("第 2 局 · 黄庄" in c.value for c in at.caption)
    assert at.segmented_control(key="sit_dealer").value == "S"
    at.button(key="undo").click().run()
    _no_traceback(at)
    assert not any("第 2 局" in c.value for c in at.caption)


def test_learn_my_tiles_offers_the_personal_model_when_a_run_is_done(app, tmp_path):
    """A finished adapt run (progress done + model.json) is offered; choosing it says so; switch back."""
    run = tmp_path / "personal" / "20260101T000000Z"
    run.mkdir(parents=True)
    (run / "progress.json").write_text(json.dumps({"stage": "done", "fraction": 1.0, "done": True, "error": None,
                                                    "message_zh": "好了", "message_en": "done"}))  # fmt: skip
    (run / "model.json").write_text("{}")
    at = app.run()
    if "learn_go" not in [b.key for b in at.button] and not any(e.label == "学习我的牌" for e in at.expander):
        pytest.skip("vision.adapt is not installed: the page does not offer 学习我的牌")
    at.session_state["learn_run"] = str(run)
    (run / "model.json").unlink()
    (run / "progress.json").write_text(json.dumps({"stage": "train", "fraction": 0.5, "done": False, "error": None,
                                                    "message_zh": "正在学习", "message_en": "learning"}))  # fmt: skip
    at.run()
    assert at.progress and at.progress[0].value == 50  # still learning: the bar, and no switch yet
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


def test_the_lan_page_shows_nothing_before_the_pin(app, monkeypatch):
    """`make app-lan` sets MAHJONG_PIN: the page asks for it before the photo, the scores, the scorebook."""
    monkeypatch.setenv("MAHJONG_PIN", "246810")
    at = app.run()
    _no_traceback(at)
    assert not _payments(at) and not at.file_uploader and "photo" not in at.session_state
    at.text_input(key="pin_entry").set_value("246810")
    at.button[0].click().run()
    _no_traceback(at)
    assert _payments(at) == SAMPLE_PAYS


def test_a_drawn_hand_carries_changmao_into_the_next_online_hand(app):
    """辽阳在线: after a 黄庄 the next hand starts with 长毛 1 (the scorebook counts the draws)."""
    at = app.run()
    at.selectbox(key="sit_preset").set_value("liaoyang-online").run()
    at.button(key="record").click().run()
    at.button(key="draw").click().run()
    _no_traceback(at)
    assert at.number_input(key="sit_changmao").value == 1
    _upload(at, "next.png", _sample_png())
    assert (
        at.number_input(key="sit_changmao").value == 1 and at.segmented_control(key="sit_dealer").value == "S"
    )
