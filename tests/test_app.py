"""The page (app.py) driven headless with Streamlit's AppTest.

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
    dets[-1] = FakeDetection("9s", 0.55, dets[-1].xyxy, [("8s", 0.4), ("7s", 0.02)])  # one misread tile
    return dets


@pytest.fixture
def app(monkeypatch, tmp_path):
    """A fresh page with the fake detector and a temporary training-data folder."""
    monkeypatch.setenv("MAHJONG_DETECTOR", "tests.test_app:fake_detect")
    monkeypatch.setenv("MAHJONG_LABELLED_DIR", str(tmp_path / "labelled"))
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
    return "\n".join(str(e.value) for e in getattr(at, kind))


def _no_traceback(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


def _upload(at: AppTest, name: str, data: bytes, mime: str = "image/png") -> str:
    at.file_uploader(key="upload").set_value((name, data, mime)).run()
    _no_traceback(at)
    return hashlib.sha256(data).hexdigest()[:10]


def _payments(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def test_first_load_shows_the_sample_read_and_scored(monkeypatch):
    monkeypatch.delenv("MAHJONG_DETECTOR", raising=False)
    monkeypatch.setenv("MAHJONG_MODEL", str(ROOT / "models" / "definitely-missing.json"))
    st.cache_resource.clear()
    at = AppTest.from_file(APP, default_timeout=60).run()
    _no_traceback(at)
    assert "No tile-reading model is installed" in _texts(at, "info")
    assert "Count check: 14 tiles" in _texts(at, "success")
    pays = _payments(at)
    assert pays == {
        "payment 东家": "-250",
        "payment 南家": "+750",
        "payment 西家": "-250",
        "payment 北家": "-250",
    }
    fan = at.table[0].value
    assert "飘胡" in set(fan["番 item"]) and "大哥大" in set(fan["番 item"])
    st.cache_resource.clear()


@pytest.mark.skipif(not MODEL.is_file(), reason="no shipped model in models/ (model.json)")
def test_first_load_with_the_shipped_model(monkeypatch):
    monkeypatch.delenv("MAHJONG_DETECTOR", raising=False)
    monkeypatch.delenv("MAHJONG_MODEL", raising=False)
    st.cache_resource.clear()
    at = AppTest.from_file(APP, default_timeout=120).run()
    _no_traceback(at)
    assert "Sample photo:" in _texts(at, "info")
    assert _payments(at)["payment 南家"] == "+750"  # read or corrected, the sample always scores
    st.cache_resource.clear()


def test_upload_fix_a_tile_and_score(app):
    at = app.run()
    pk = _upload(at, "hand.png", _sample_png())
    assert "Check the orange tiles: #14 九条" in _texts(at, "warning")
    # the misread hand cannot win, and the page says why in words
    assert "This hand cannot win" in _texts(at, "error")
    assert not at.metric
    # the picker offers the model's next guess first
    picker = at.selectbox(key=f"face_{pk}_13")
    assert picker.options[:2] == ["九条 · 9s", "八条 · 8s"]
    calls = len(CALLS)
    picker.set_value("8s").run()
    _no_traceback(at)
    assert _payments(at)["payment 南家"] == "+750"
    # rescoring only: change the situation; the photo is never detected again
    at.radio(key="sit_win_by").set_value("discard").run()
    _no_traceback(at)
    assert "闭门不能点炮胡" in _texts(at, "error")
    assert len(CALLS) == calls


def test_fix_grouping_and_delete_a_false_box(app):
    at = app.run()
    pk = _upload(at, "hand.png", _sample_png())
    at.selectbox(key=f"face_{pk}_13").set_value("8s").run()
    # say tile 3-5 (白白白) are a 碰 on the table: still 14 tiles, still a winning hand
    for i in (2, 3, 4):
        at.selectbox(key=f"role_{pk}_{i}").set_value("meld1")
    at.run()
    _no_traceback(at)
    assert at.radio(key=f"kind_{pk}_meld1").value == "pong"
    assert "Count check: 14 tiles" in _texts(at, "success")
    assert "payment 南家" in _payments(at)
    # a "false box": deleting a tile leaves 13 and the page asks for it
    at.selectbox(key=f"role_{pk}_0").set_value("delete").run()
    _no_traceback(at)
    assert "13 tiles read: one missing" in _texts(at, "warning")


def test_add_a_missed_tile(app):
    at = app.run()
    pk = _upload(at, "hand.png", _sample_png())
    at.selectbox(key=f"role_{pk}_13").set_value("delete").run()
    assert "13 tiles read: one missing — add the tile" in _texts(at, "warning")
    at.selectbox(key="add_face").set_value("8s")
    at.checkbox(key="add_won").check()
    at.button[[b.label for b in at.button].index("Add tile")].click().run()
    _no_traceback(at)
    assert _payments(at)["payment 南家"] == "+750"


def test_save_for_training_writes_a_dataset_and_never_overwrites(app, tmp_path):
    from vision import data as vdata

    at = app.run()
    pk = _upload(at, "../../evil name.png", _sample_png())
    at.selectbox(key=f"face_{pk}_13").set_value("8s").run()
    at.button(key=f"save_{pk}").click().run()
    _no_traceback(at)
    assert "Saved to" in _texts(at, "success")
    root = tmp_path / "labelled"
    manifest = [json.loads(x) for x in (root / "manifest.jsonl").read_text().splitlines()]
    assert len(manifest) == 1 and manifest[0]["changed"] == 1 and manifest[0]["boxes"] == 14
    images = vdata.split_images(root, manifest[0]["split"])
    assert len(images) == 1 and images[0].resolve().is_relative_to(root.resolve())
    labels = vdata.read_labels(vdata.label_path_for(images[0]))
    assert sum(b.cls == 25 for b in labels) == 3  # three 8s (class 25) after the fix
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    at.button(key=f"save_{pk}").click().run()
    assert "already saved" in _texts(at, "info")
    assert {p: p.read_bytes() for p in root.rglob("*") if p.is_file()} == before
    assert not list(tmp_path.glob("evil*"))


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def _png_header(width: int, height: int) -> bytes:
    """A PNG whose header claims a huge image, with a token of pixel data: a '60 MP photo' in ~60 bytes."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", ihdr) + _chunk(b"IDAT", zlib.compress(b"\0" * 64))


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        ("notes.jpg", b"this is not an image at all", "cannot be used as a photo"),
        ("huge.png", _png_header(10_000, 6_000), "too large"),
        ("empty.png", b"", "cannot be used as a photo"),
    ],
    ids=["not-an-image", "60MP", "empty"],
)
def test_bad_files_get_a_plain_message(app, name, data, message):
    at = app.run()
    at.file_uploader(key="upload").set_value((name, data, "image/png")).run()
    _no_traceback(at)
    assert message in _texts(at, "error")
    # the page stays usable: typing the hand still scores it
    at.text_input(key="type_concealed").set_value("22m 白白白 777p 333p 888s")
    at.text_input(key="type_winning").set_value("8s")
    at.button(key="type_go").click().run()
    _no_traceback(at)
    assert "payment 南家" in _payments(at)


def test_60mp_sparse_file_is_refused_by_the_loader(tmp_path):
    """The same limit on a real 60 MP-sized file on disk (sparse: no disk space used)."""
    from vision.imageio import ImageLoadError, load_image

    path = tmp_path / "huge.png"
    with open(path, "wb") as f:
        f.write(_png_header(10_000, 6_000))
        f.truncate(180_000_000)
    with pytest.raises(ImageLoadError, match="too large"):
        load_image(path)


def test_photo_of_no_tiles(app):
    at = app.run()
    _upload(at, "table.png", _png(np.full((300, 400, 3), 90, np.uint8)))
    assert "No tiles were found" in _texts(at, "info")
    assert "type_concealed" in [t.key for t in at.text_input]


def test_photo_of_forty_tiles(app):
    at = app.run()
    rgb = np.random.default_rng(1).integers(0, 255, (200, 1600, 3), dtype=np.uint8)
    _upload(at, "forty.png", _png(rgb))
    assert "40 tiles read, a winning hand has 14: 26 too many" in _texts(at, "warning")
    assert not at.metric


def test_impossible_hand_is_explained(app):
    at = app.run()
    pk = _upload(at, "hand.png", _sample_png())
    for i in (2, 3, 4):  # 白白白 → 三饼: now six 三饼
        at.selectbox(key=f"face_{pk}_{i}").set_value("3p")
    at.run()
    _no_traceback(at)
    assert "there are only 4 of each tile" in _texts(at, "warning")
    assert not at.metric


def test_contradiction_is_explained_where_it_occurs(app):
    at = app.run()
    at.radio(key="sit_win_by").set_value("discard").run()
    at.checkbox(key="sit_kong_replacement").check().run()
    _no_traceback(at)
    assert "杠上开 is a win on your own replacement tile" in _texts(at, "warning")


def test_hand_json_can_be_copied(app):
    at = app.run()
    _no_traceback(at)
    # the (fake) detector misreads one sample tile: the page says so and shows its reading apart
    assert "1 of the 14 differently" in _texts(at, "info")
    assert any(e.label == "The detector's own reading of the sample" for e in at.expander)
    code = [c.value for c in at.code if c.language == "json"]
    assert code, "the hand JSON is shown for copying"
    hand = json.loads(code[0])
    import rules

    assert rules.score(hand).payments["S"] == 750


def test_preset_options_and_room_multiplier(app):
    at = app.run()
    at.selectbox(key="sit_preset").set_value("anshan").run()
    _no_traceback(at)
    assert "没有顺子" in _texts(at, "error")  # 鞍山 forbids an all-triplet hand
    at.selectbox(key="sit_preset").set_value("liaoyang-online").run()
    _no_traceback(at)
    one = int(_payments(at)["payment 南家"])
    at.number_input(key="sit_room").set_value(3).run()
    _no_traceback(at)
    assert int(_payments(at)["payment 南家"]) == 3 * one
    # an option changes the JSON that is scored
    at.selectbox(key="opt_liaoyang-online_include_winds").set_value(False).run()
    _no_traceback(at)
    hand = json.loads(next(c.value for c in at.code if c.language == "json"))
    assert hand["options"] == {"include_winds": False} and hand["room_multiplier"] == 3


def test_heic_upload_and_camera(app):
    """An iPhone HEIC photo is read like any other; the camera input feeds the same path."""
    import pillow_heif

    pillow_heif.register_heif_opener()
    buf = io.BytesIO()
    Image.open(SAMPLE / "winning-hand.jpg").save(buf, format="HEIF", quality=90)
    at = app.run()
    _upload(at, "IMG_0001.HEIC", buf.getvalue(), "image/heic")
    assert "Check the orange tiles: #14" in _texts(at, "warning")
    at.file_uploader(key="upload").set_value(None)
    at.toggle(key="use_camera").set_value(True).run()
    _no_traceback(at)
    jpeg = io.BytesIO()
    Image.open(SAMPLE / "winning-hand.jpg").convert("RGB").save(jpeg, format="JPEG", quality=90)
    at.camera_input(key="camera").set_value(("camera.jpg", jpeg.getvalue(), "image/jpeg")).run()
    _no_traceback(at)
    assert "camera.jpg" in at.session_state["photo"]["name"]
    assert "Check the orange tiles: #14" in _texts(at, "warning")


def test_typed_hand_shows_what_the_hun_stood_for(app):
    at = app.run()  # sample situation: indicator 九万, so 一万 is the 混
    at.text_input(key="type_concealed").set_value("1m 45m 456p 789s 中中中 9p9p")
    at.text_input(key="type_winning").set_value("9p")
    at.button(key="type_go").click().run()
    _no_traceback(at)
    hun = [m.value for m in at.markdown if "(混) →" in m.value]
    assert hun and ("三万" in hun[0] or "六万" in hun[0])
    assert "payment 南家" in _payments(at)


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
    st.cache_resource.clear()
    at = AppTest.from_file(APP, default_timeout=120).run()
    _no_traceback(at)
    assert "the detector found no tiles in it" in _texts(at, "info")
    assert _payments(at)["payment 南家"] == "+750"
    _upload(at, "hand.png", _sample_png())
    assert "No tiles were found" in _texts(at, "info")
    assert at.session_state["photo"]["model_version"].startswith("tiny.pt@")
    # with ultralytics imported (it patches PIL.Image.open), a non-image still gets a plain message
    at.file_uploader(key="upload").set_value(("notes.jpg", b"not an image", "image/jpeg")).run()
    _no_traceback(at)
    assert "cannot be used as a photo" in _texts(at, "error")
    st.cache_resource.clear()


def test_discarded_hun_means_no_win(app):
    at = app.run()
    assert _payments(at)["payment 南家"] == "+750"
    at.checkbox(key="sit_discarded_hun").check().run()
    _no_traceback(at)
    assert "打过混" in _texts(at, "error")
    assert not at.metric
    at.selectbox(key="sit_preset").set_value("anshan").run()
    _no_traceback(at)
    assert at.checkbox(key="sit_discarded_hun").disabled
