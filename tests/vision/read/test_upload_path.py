"""The page's upload path and the CLI read a photo exactly as `detect(path)` does: one reduced
decode, boxes in full-photo pixels; the full-size pixels decoded only when the faces or a save need
them, and then once."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image

from vision.read import detect as reader
from vision.read import photo_pixels
from vision.read.imageio import decode_reduced, load_image

FIXTURES = Path(__file__).parents[2] / "fixtures" / "vision"
needs_model = pytest.mark.skipif(not reader.DEFAULT_MODEL.is_file(), reason="no shipped model in models/")


def _phone_jpeg(size: tuple[int, int], orientation: int) -> bytes:
    """The grid fixture scaled to `size` (w, h, as stored) and saved as a phone does: JPEG with an
    EXIF orientation, so the upright photo is the stored one turned."""
    img = np.asarray(Image.open(FIXTURES / "tiles_grid.jpg").convert("RGB"))
    im = Image.fromarray(cv2.resize(img, size, interpolation=cv2.INTER_CUBIC))
    exif = im.getexif()
    exif[0x0112] = orientation
    buf = io.BytesIO()
    im.save(buf, "JPEG", quality=92, exif=exif)
    return buf.getvalue()


def _reading(dets) -> list[tuple[str, tuple[float, ...]]]:
    """What the page and the CLI must agree on: each tile's face and box."""
    return [(d.cls, tuple(round(v, 3) for v in d.xyxy)) for d in dets]


def test_bytes_decode_reduced_as_the_file_does_with_the_full_upright_size(tmp_path):
    data = _phone_jpeg((4000, 3000), orientation=6)  # stored sideways: upright 3000 x 4000
    (tmp_path / "p.jpg").write_bytes(data)
    from_bytes = decode_reduced(data, 768)
    from_file = decode_reduced(tmp_path / "p.jpg", 768)
    assert from_bytes.size == from_file.size == (3000, 4000)
    assert from_bytes.scale == 4.0 and from_bytes.rgb.shape == (1000, 750, 3)
    assert np.array_equal(from_bytes.rgb, from_file.rgb)
    assert np.array_equal(load_image(data), load_image(tmp_path / "p.jpg"))


@needs_model
def test_the_page_reads_an_upload_as_detect_reads_its_file(tmp_path, monkeypatch):
    from page.detector_loader import model_detector
    from page.photo_state import read_photo, tile_thumbnail

    data = _phone_jpeg((4000, 3000), orientation=6)
    (tmp_path / "p.jpg").write_bytes(data)
    want = _reading(reader.detect(tmp_path / "p.jpg"))
    assert len(want) >= 12
    full_decodes: list[object] = []
    real = photo_pixels.load_image
    monkeypatch.setattr(photo_pixels, "load_image", lambda src: full_decodes.append(src) or real(src))
    photo = read_photo(data, "p.jpg", model_detector(str(reader.DEFAULT_MODEL)))
    assert photo.error is None
    assert [(b.cls, tuple(round(v, 3) for v in b.xyxy)) for b in photo.boxes] == want
    assert full_decodes == []  # the upload path stops at the boxes: no full-size decode
    assert photo.size == (3000, 4000) and max(b.xyxy[3] for b in photo.boxes) > 2000
    # the phone's picture and the strip's thumbnails come from the reduced decode
    assert photo.display.shape == (1000, 750, 3) and photo.display_scale == 0.25
    thumb = tile_thumbnail(photo, photo.boxes[0].xyxy, 56)
    assert thumb is not None and thumb.shape[0] == 56 and full_decodes == []
    # saving for training asks for the full-size pixels: decoded then, once, upright
    assert photo.rgb.shape == (4000, 3000, 3) and photo.rgb is photo.rgb
    assert len(full_decodes) == 1


@needs_model
def test_the_page_cuts_small_faces_from_the_one_full_size_decode(monkeypatch):
    from page.detector_loader import model_detector
    from page.photo_state import read_photo

    data = _phone_jpeg((4000, 3000), orientation=1)
    full_decodes: list[object] = []
    real = photo_pixels.load_image
    monkeypatch.setattr(photo_pixels, "load_image", lambda src: full_decodes.append(src) or real(src))
    monkeypatch.setattr(photo_pixels, "CROP_W", 10_000)  # every tile "too small" in the reduced decode
    photo = read_photo(data, "p.jpg", model_detector(str(reader.DEFAULT_MODEL)))
    assert len(photo.boxes) >= 12
    assert len(full_decodes) == 1  # the faces needed it; Photo.rgb keeps that one decode
    assert photo.rgb.shape == (3000, 4000, 3) and len(full_decodes) == 1


@needs_model
def test_faces_a_little_small_in_the_reduced_decode_come_from_a_half_size_decode(monkeypatch):
    """Tiles under CROP_W at 1/4 but over it at 1/2: one 1/2 decode, no full-size decode, the same
    faces as crops cut from the full-size photo, and saving still gets the full-size pixels."""
    from page.detector_loader import model_detector
    from page.photo_state import read_photo

    data = _phone_jpeg((4000, 3000), orientation=1)
    boxes = np.array([d.xyxy for d in reader.detect(reader.PhotoPixels.decode(data))]) / 4
    short = float(np.median(np.minimum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])))
    monkeypatch.setattr(photo_pixels, "CROP_W", 1.5 * short)  # too small at 1/4, big enough at 1/2
    full_decodes: list[object] = []
    reduced: list[float] = []
    real_full, real_reduced = photo_pixels.load_image, photo_pixels.decode_reduced
    monkeypatch.setattr(photo_pixels, "load_image", lambda src: full_decodes.append(src) or real_full(src))

    def counted(src, min_side, **kw):
        out = real_reduced(src, min_side, **kw)
        reduced.append(out.scale)
        return out

    monkeypatch.setattr(photo_pixels, "decode_reduced", counted)
    photo = read_photo(data, "p.jpg", model_detector(str(reader.DEFAULT_MODEL)))
    assert len(photo.boxes) >= 12
    assert reduced == [4.0, 2.0] and full_decodes == []
    half_faces = [b.cls for b in photo.boxes]
    monkeypatch.setattr(reader.PhotoPixels, "sharp_enough", lambda self, short: (self.full(), 1.0))
    from_full = read_photo(data, "p.jpg", model_detector(str(reader.DEFAULT_MODEL)))
    assert [b.cls for b in from_full.boxes] == half_faces
    assert photo.rgb.shape == (3000, 4000, 3)  # saving: the full-size pixels, decoded then


@needs_model
def test_the_cli_reads_a_file_as_detect_does_and_names_its_full_size(tmp_path):
    from vision.__main__ import main

    (tmp_path / "p.jpg").write_bytes(_phone_jpeg((4000, 3000), orientation=6))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["detect", "--json", str(tmp_path / "p.jpg")]) == 0
    record = json.loads(out.getvalue().strip().splitlines()[-1])
    assert (record["width"], record["height"]) == (3000, 4000)
    want = [d.to_json() for d in reader.detect(tmp_path / "p.jpg")]
    assert record["detections"] == want and len(want) >= 12


@needs_model
def test_the_cli_offers_what_the_page_offers_as_maybe_missed(tmp_path):
    """`vision detect --maybe`: the same tiles as without it, and the page's suggestions beside them."""
    from page.detector_loader import model_detector
    from vision.__main__ import main

    data = _phone_jpeg((4000, 3000), orientation=1)
    (tmp_path / "p.jpg").write_bytes(data)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["detect", "--json", "--maybe", str(tmp_path / "p.jpg")]) == 0
    record = json.loads(out.getvalue().strip().splitlines()[-1])
    assert record["detections"] == [d.to_json() for d in reader.detect(tmp_path / "p.jpg")]
    tiles, maybe = model_detector(str(reader.DEFAULT_MODEL)).read(reader.PhotoPixels.decode(data))
    assert record["maybe_missed"] == [d.to_json() for d in maybe]
    assert all(reader.load_model().tile_conf > d["tile_conf"] >= 0.25 for d in record["maybe_missed"])


def test_zoomed_out_centres_the_pixels_on_a_canvas_of_their_border_colour():
    """A close-up read zoomed out (page.loser_photo): the canvas is `factor` times the size, filled
    with the border's median colour, the photo's pixels unchanged at the offset it returns."""
    rgb = np.full((60, 90, 3), (10, 120, 40), np.uint8)  # felt
    rgb[0, :5] = 255  # a little of something else on the border: the median ignores it
    rgb[20:40, 30:60] = 250  # a tile
    pixels = reader.PhotoPixels(rgb, scale=4.0, size=(360, 240))
    canvas, (left, top) = pixels.zoomed_out(2.0)
    assert canvas.rgb.shape == (120, 180, 3) and canvas.scale == 1.0 and canvas.size == (180, 120)
    assert (left, top) == (45, 30)
    assert (canvas.rgb[top : top + 60, left : left + 90] == rgb).all()
    assert tuple(canvas.rgb[0, 0]) == tuple(canvas.rgb[-1, -1]) == (10, 120, 40)
