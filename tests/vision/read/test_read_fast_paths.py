"""The reader's shortcuts read what the long way reads: a reduced JPEG decode, faces cut from the
full-size decode when tiles are small, aspect views skipped on a well-read photo, the classifier's
four-view average only for crops in doubt."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
import torch
from PIL import Image

from vision.read import detect as reader
from vision.read import photo_pixels
from vision.read.imageio import ImageLoadError, load_image, load_image_reduced
from vision.read.tilenet import TileNet, classify_crops
from vision.train.evaluate import iou_matrix

FIXTURES = Path(__file__).parents[2] / "fixtures" / "vision"


def _photo(path: Path, size: tuple[int, int], orientation: int = 1, fmt: str = "JPEG") -> np.ndarray:
    """The grid fixture scaled to `size` (w, h) and saved as a phone would (EXIF orientation)."""
    img = np.asarray(Image.open(FIXTURES / "tiles_grid.jpg").convert("RGB"))
    big = cv2.resize(img, size, interpolation=cv2.INTER_CUBIC)
    im = Image.fromarray(big)
    exif = im.getexif()
    if orientation != 1:
        exif[0x0112] = orientation
    im.save(path, fmt, **({"quality": 92, "exif": exif} if fmt == "JPEG" else {}))
    return big


def test_a_big_jpeg_is_decoded_reduced_and_looks_like_the_full_decode(tmp_path):
    _photo(tmp_path / "p.jpg", (4000, 3000))
    full = load_image(tmp_path / "p.jpg")
    small, scale = load_image_reduced(tmp_path / "p.jpg", 1536)
    assert small.shape == (1500, 2000, 3) and scale == 2.0
    area = cv2.resize(full, (2000, 1500), interpolation=cv2.INTER_AREA)
    assert np.abs(area.astype(int) - small).mean() < 2.0
    _photo(tmp_path / "r.jpg", (4000, 3000), orientation=6)  # stored sideways: upright and reduced
    upright, scale = load_image_reduced(tmp_path / "r.jpg", 1536)
    assert upright.shape == (2000, 1500, 3) and scale == 2.0
    assert load_image_reduced(tmp_path / "p.jpg", 2500)[0].shape == (3000, 4000, 3)  # 1/2 is too small
    assert load_image_reduced(tmp_path / "p.jpg", 100)[1] == 8.0  # libjpeg's smallest reduction


def test_other_formats_and_bad_files_decode_as_before(tmp_path):
    big = _photo(tmp_path / "p.png", (2400, 1800), fmt="PNG")
    pixels, scale = load_image_reduced(tmp_path / "p.png", 600)
    assert scale == 1.0 and np.array_equal(pixels, big)
    (tmp_path / "bad.jpg").write_bytes(b"%!PS-Adobe-3.0 EPSF\n{ } loop")
    with pytest.raises(ImageLoadError):
        load_image_reduced(tmp_path / "bad.jpg", 600)


needs_model = pytest.mark.skipif(not reader.DEFAULT_MODEL.is_file(), reason="no shipped model in models/")


def _same_reading(a: list[reader.Detection], b: list[reader.Detection]) -> float:
    """Share of the detections of `a` that `b` has too (IoU >= 0.8, same face)."""
    if not a or not b:
        return float(not a and not b)
    ious = iou_matrix(np.array([d.xyxy for d in a]), np.array([d.xyxy for d in b]))
    return sum(ious[i].max() >= 0.8 and b[int(ious[i].argmax())].cls == d.cls for i, d in enumerate(a)) / len(
        a
    )


@needs_model
def test_a_12_mp_file_reads_like_its_full_size_array(tmp_path):
    big = _photo(tmp_path / "p.jpg", (4000, 3000))
    from_file = reader.detect(tmp_path / "p.jpg")
    assert len(from_file) >= 12
    assert (
        max(max(d.xyxy[2] for d in from_file), max(d.xyxy[3] for d in from_file)) > 2000
    )  # full-size pixels
    assert _same_reading(from_file, reader.detect(load_image(tmp_path / "p.jpg"))) >= 0.95
    assert big.shape == (3000, 4000, 3)


@needs_model
def test_small_tiles_are_cut_from_the_full_size_decode(tmp_path, monkeypatch):
    """Tiles narrower than the classifier's crop in the reduced decode (here: a crop made wider than
    any tile): the faces come from the full-size decode, made once, and read as the array's do."""
    _photo(tmp_path / "p.jpg", (4000, 3000))
    decodes: list[Path] = []
    real = photo_pixels.load_image
    monkeypatch.setattr(photo_pixels, "load_image", lambda p: decodes.append(p) or real(p))
    quick = reader.detect(tmp_path / "p.jpg")
    assert decodes == []  # tiles of a hand filling a 12 MP photo: the reduced decode is enough
    monkeypatch.setattr(photo_pixels, "CROP_W", 10_000)
    careful = reader.detect(tmp_path / "p.jpg")
    assert decodes == [tmp_path / "p.jpg"]
    assert _same_reading(careful, reader.detect(real(tmp_path / "p.jpg"))) >= 0.95
    assert _same_reading(careful, quick) >= 0.95


@needs_model
def test_aspect_views_are_skipped_when_the_plain_view_reads_the_hand(monkeypatch):
    img = np.asarray(Image.open(FIXTURES / "tiles_grid.jpg").convert("RGB"))
    views: list[tuple[int, int]] = []
    real = reader._read_view
    monkeypatch.setattr(
        reader,
        "_read_view",
        lambda tm, m, s, size, sq, f, **kw: views.append(sq) or real(tm, m, s, size, sq, f, **kw),
    )
    reader.detect(img[80:560])  # 640 x 480: a camera's 4:3, never a stretched export
    assert set(views) == {(1, 1)}
    views.clear()
    reader.detect(img)  # a square: with square_pair the 2x pair is read too, never a heavy view
    op = reader.load_model().op
    pair = [sq for sq in reader.aspect_views_of(op) if reader.is_mild_view(op, sq)]
    assert views[0] == (1, 1) and set(views[1:]) == set(pair)
    views.clear()
    reader.detect(np.full((640, 640, 3), 200, np.uint8))  # nothing read: the squeezed views are tried
    assert views[0] == (1, 1) and len(views) == 1 + len(reader.aspect_views_of(reader.load_model().op))
    assert set(reader.ASPECT_VIEWS) <= set(views[1:])


def test_the_four_view_average_is_kept_for_crops_in_doubt():
    torch.manual_seed(0)
    net = TileNet(num_classes=36, width=8).eval()
    crops = np.random.default_rng(0).integers(0, 255, (6, 64, 48, 3), dtype=np.uint8)
    every = classify_crops(net, crops, tta_below=1.1)
    single = classify_crops(net, crops, tta_below=0.0)
    assert not np.allclose(every, single)
    x = torch.from_numpy(crops).permute(0, 3, 1, 2).float() / 255  # each view read on its own
    with torch.no_grad():
        views = [x, torch.flip(x, [2, 3]), torch.flip(x, [3]), torch.flip(x, [2])]
        one_by_one = torch.stack([torch.softmax(net(v), 1) for v in views]).mean(0).numpy()
    assert np.allclose(every, one_by_one, atol=1e-6)  # the three other views read in one batch
    top = single.max(1)
    cut = float(np.median(top))
    mixed = classify_crops(net, crops, tta_below=cut)
    doubt = top < cut
    assert doubt.any() and (~doubt).any()
    assert np.allclose(mixed[doubt], every[doubt], atol=1e-6)
    assert np.allclose(mixed[~doubt], single[~doubt], atol=1e-6)
    assert np.allclose(mixed.sum(1), 1.0, atol=1e-5)


@needs_model
def test_the_models_own_tta_threshold_decides_which_crops_get_the_other_views(monkeypatch):
    """`tta_below` is the model's (model.json), not a constant: a reader at 0 reads every crop once,
    one at 1.0 reads every crop in four views."""
    from dataclasses import replace

    from vision.read.tilenet import TTA_BELOW

    img = np.asarray(Image.open(FIXTURES / "tiles_grid.jpg").convert("RGB"))
    tm = reader.load_model(None)
    seen: list[tuple[float, int]] = []
    real = reader.read_crops

    def spy(net, crops, tta_below=TTA_BELOW, trunk_to=0):
        seen.append((tta_below, len(crops)))
        return real(net, crops, tta_below, trunk_to)

    monkeypatch.setattr(reader, "read_crops", spy)
    plain = replace(tm.op, square_pair=0.0)  # the square grid's faces read in the plain view only
    reader.detect(img, model=replace(tm, op=replace(plain, tta_below=0.0)))
    reader.detect(img, model=replace(tm, op=replace(plain, tta_below=1.0)))
    assert [t for t, _ in seen] == [0.0, 1.0]
    assert seen[0][1] == seen[1][1] > 0  # the same boxes' crops, read once or in four views
    assert TTA_BELOW == 0.9  # a model.json without the field reads as every model before it did


def test_the_classifier_read_with_batch_norms_folded_in_reads_the_same():
    """for_reading folds each batch norm into its convolution (what load_model keeps): the same
    probabilities to float rounding, on a net whose norms are far from identity."""
    from vision.read.tilenet import for_reading

    torch.manual_seed(0)
    net = TileNet(num_classes=36)
    for m in net.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            m.running_mean.uniform_(-0.5, 0.5)
            m.running_var.uniform_(0.5, 2.0)
            m.weight.data.uniform_(0.5, 1.5)
            m.bias.data.uniform_(-0.2, 0.2)
    net.eval()
    crops = np.random.default_rng(1).integers(0, 255, (6, 64, 48, 3), dtype=np.uint8)
    fused = for_reading(net)
    assert not any(isinstance(m, torch.nn.BatchNorm2d) for m in fused.modules())
    assert np.abs(classify_crops(net, crops, 1.0) - classify_crops(fused, crops, 1.0)).max() < 1e-5
    assert any(isinstance(m, torch.nn.BatchNorm2d) for m in net.modules())  # the original is untouched


@pytest.mark.parametrize("turned", [False, True])
def test_crops_are_cut_as_the_copied_way_cut_them(turned):
    """crop_tiles resizes row-strided slices as they are and turns landscape boxes with OpenCV; the
    crops are the same pixels as copying each slice (numpy's rot90 for landscape) and resizing.
    `turned` (a box read in an aspect view, OperatingPoint.turn_below): portrait boxes turn instead."""
    from vision.read.tilenet import CROP_H, CROP_MARGIN, CROP_W, crop_tiles

    rng = np.random.default_rng(3)
    image = cv2.GaussianBlur(rng.integers(0, 256, (480, 640, 3), dtype=np.uint8), (5, 5), 2)
    boxes = np.array([[10, 20, 60, 90], [100, 100, 220, 160], [600, 400, 640, 480], [0, 0, 300, 40.5]])
    got = crop_tiles(image, boxes, turned=turned)
    assert not np.array_equal(got, crop_tiles(image, boxes, turned=not turned))
    for box, crop in zip(boxes, got, strict=True):
        x1, y1, x2, y2 = box
        bw, bh = x2 - x1, y2 - y1
        xa, xb = int(max(0, np.floor(x1 - CROP_MARGIN * bw))), int(min(640, np.ceil(x2 + CROP_MARGIN * bw)))
        ya, yb = int(max(0, np.floor(y1 - CROP_MARGIN * bh))), int(min(480, np.ceil(y2 + CROP_MARGIN * bh)))
        part = image[ya:yb, xa:xb]
        part = np.rot90(part) if (bw > bh) != turned else part
        want = cv2.resize(np.ascontiguousarray(part), (CROP_W, CROP_H), interpolation=cv2.INTER_AREA)
        assert np.array_equal(crop, want)
