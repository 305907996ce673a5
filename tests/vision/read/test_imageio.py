"""Image loading: upright orientation, HEIC, and one typed error for every kind of bad file."""

from __future__ import annotations

import io
import struct
import zlib
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from vision.read.imageio import ACCEPTED_WORDS, MAX_PIXELS, ImageLoadError, image_size, load_image, open_image


def _marked(width: int = 40, height: int = 20) -> Image.Image:
    """A black image with a white block in the top-left corner, to check orientation."""
    a = np.zeros((height, width, 3), np.uint8)
    a[:5, :10] = 255
    return Image.fromarray(a)


def _png_header_only(path: Path, width: int, height: int) -> None:
    """A PNG that declares width x height but holds no pixel data (a decompression-bomb header)."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    chunk = b"IHDR" + ihdr
    data = b"\x89PNG\r\n\x1a\n" + struct.pack(">I", len(ihdr)) + chunk + struct.pack(">I", zlib.crc32(chunk))
    for name, body in ((b"IDAT", zlib.compress(b"\x00" * 64)), (b"IEND", b"")):
        data += struct.pack(">I", len(body)) + name + body + struct.pack(">I", zlib.crc32(name + body))
    path.write_bytes(data)


def test_jpeg_and_png_load_as_rgb(tmp_path):
    im = _marked()
    for name in ("a.jpg", "a.png"):
        im.save(tmp_path / name)
        arr = load_image(tmp_path / name)
        assert arr.shape == (20, 40, 3) and arr.dtype == np.uint8
        assert arr[1, 1].min() > 200 and arr[15, 35].max() < 50
    bgr = load_image(tmp_path / "a.png", bgr=True)
    assert bgr.flags["C_CONTIGUOUS"]


def test_exif_orientation_is_applied(tmp_path):
    exif = Image.Exif()
    exif[0x0112] = 6  # stored sideways: viewers rotate 90 degrees clockwise
    _marked().save(tmp_path / "rot.jpg", exif=exif.tobytes())
    arr = load_image(tmp_path / "rot.jpg")
    assert arr.shape[:2] == (40, 20)
    assert arr[1, 17].min() > 200  # the top-left block is now top-right
    assert image_size(tmp_path / "rot.jpg") == (20, 40)


def test_heic(tmp_path):
    pillow_heif = pytest.importorskip("pillow_heif")
    pillow_heif.register_heif_opener()
    path = tmp_path / "a.heic"
    try:
        Image.fromarray(np.full((64, 96, 3), 128, np.uint8)).save(path)
    except Exception as exc:  # encoder not built into this libheif
        pytest.skip(f"cannot encode HEIC here: {exc}")
    arr = load_image(path)
    assert arr.shape == (64, 96, 3)
    assert abs(int(arr.mean()) - 128) < 10


@pytest.mark.parametrize(
    "make, reason",
    [
        (lambda p: p.write_bytes(b""), "empty"),
        (lambda p: p.write_text("this is not an image\n" * 10), "not an image"),
        (lambda p: p.write_bytes(b"\xff\xd8\xff\xe0" + b"\x00" * 10), ""),
    ],
)
def test_bad_files_raise_typed_error(tmp_path, make, reason):
    path = tmp_path / "bad.jpg"
    make(path)
    with pytest.raises(ImageLoadError) as err:
        load_image(path)
    assert str(path) in str(err.value) and reason in str(err.value)
    assert "\n" not in str(err.value)


def test_truncated_jpeg(tmp_path):
    rng = np.random.default_rng(0)
    Image.fromarray(rng.integers(0, 255, (200, 300, 3), dtype=np.uint8)).save(
        tmp_path / "full.jpg", quality=90
    )
    data = (tmp_path / "full.jpg").read_bytes()
    (tmp_path / "cut.jpg").write_bytes(data[: len(data) // 2])
    with pytest.raises(ImageLoadError, match="truncated"):
        load_image(tmp_path / "cut.jpg")


def test_huge_header_refused_before_decoding(tmp_path):
    path = tmp_path / "bomb.png"
    _png_header_only(path, 10_000, 6_000)  # 60 MP
    assert path.stat().st_size < 100
    with pytest.raises(ImageLoadError, match="too large"):
        load_image(path)
    with pytest.raises(ImageLoadError, match="too large"):
        image_size(path)
    assert MAX_PIXELS < 10_000 * 6_000


def test_giant_header_beyond_pillow_limit(tmp_path):
    path = tmp_path / "giant.png"
    _png_header_only(path, 60_000, 60_000)  # 3.6 GP: Pillow's own bomb guard fires first
    with pytest.raises(ImageLoadError, match="too large"):
        load_image(path)


def test_missing_and_directory(tmp_path):
    with pytest.raises(ImageLoadError, match="no such file"):
        load_image(tmp_path / "nope.jpg")
    with pytest.raises(ImageLoadError, match="directory"):
        load_image(tmp_path)


def test_not_an_image_after_ultralytics_patched_pillow(tmp_path, capsys):
    """ultralytics monkey-patches Image.open to pip-install a HEIF plugin on unknown files; our
    loader must still give the typed error, offline, and print nothing."""
    import importlib

    importlib.import_module("vision._env")  # first: a first ultralytics import elsewhere prints its settings
    importlib.import_module("ultralytics")

    path = tmp_path / "junk.heic"
    path.write_bytes(b"\x00\x01garbage" * 20)
    with pytest.raises(ImageLoadError, match="not an image"):
        load_image(path)
    assert capsys.readouterr().out == ""


# ------------------------------------------------------------------ every colour mode

FIXTURE = Path(__file__).parents[2] / "fixtures" / "vision" / "hand_rack.jpg"


@pytest.fixture(scope="module")
def rack() -> np.ndarray:
    """The real tile photo, as 8-bit RGB: every mode below is made from it."""
    with Image.open(FIXTURE) as im:
        return np.asarray(im.convert("RGB"))


def _grey_of(rgb: np.ndarray) -> np.ndarray:
    return np.asarray(Image.fromarray(rgb).convert("L")).astype(float)


def _diff(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.abs(a.astype(float) - b.astype(float)).mean())


def _assert_grey_photo(arr: np.ndarray, rack: np.ndarray) -> None:
    assert arr.shape == rack.shape and arr.dtype == np.uint8
    assert (arr.min(axis=2) > 250).mean() < 0.2  # not "99.97 % white"
    assert _diff(arr.mean(axis=2), _grey_of(rack)) < 1.0


def test_16_bit_grey_png(tmp_path, rack):
    path = tmp_path / "grey16.png"
    Image.fromarray(_grey_of(rack).astype(np.uint16) * 257).save(path)
    with Image.open(path) as im:
        assert im.mode.startswith("I")  # I;16 (or I on older Pillow)
    _assert_grey_photo(load_image(path), rack)


def test_32_bit_integer_grey_tiff(tmp_path, rack):
    path = tmp_path / "grey32.tif"
    Image.fromarray(_grey_of(rack).astype(np.int32) * 257).save(path)
    with Image.open(path) as im:
        assert im.mode == "I"
    _assert_grey_photo(load_image(path), rack)


def test_float_grey_tiff_in_0_to_1(tmp_path, rack):
    path = tmp_path / "float.tif"
    Image.fromarray((_grey_of(rack) / 255.0).astype(np.float32)).save(path)
    with Image.open(path) as im:
        assert im.mode == "F"
    _assert_grey_photo(load_image(path), rack)


def test_16_bit_rgb_and_rgba_png(tmp_path, rack):
    import cv2

    wide = rack[:, :, ::-1].astype(np.uint16) * 257  # OpenCV writes BGR
    cv2.imwrite(str(tmp_path / "rgb16.png"), wide)
    assert _diff(load_image(tmp_path / "rgb16.png"), rack) < 0.5
    alpha = np.full(rack.shape[:2], 65535, np.uint16)
    alpha[:, :100] = 0  # a transparent strip on the left
    cv2.imwrite(str(tmp_path / "rgba16.png"), np.dstack([wide, alpha]))
    arr = load_image(tmp_path / "rgba16.png")
    assert _diff(arr[:, 100:], rack[:, 100:]) < 0.5 and arr[:, :100].min() == 255


def test_cmyk_jpeg_and_tiff(tmp_path, rack):
    cmyk = Image.fromarray(rack).convert("CMYK")
    cmyk.save(tmp_path / "cmyk.jpg", quality=95)
    cmyk.save(tmp_path / "cmyk.tif")
    with Image.open(tmp_path / "cmyk.jpg") as im:
        assert im.mode == "CMYK"
    assert _diff(load_image(tmp_path / "cmyk.jpg"), rack) < 2.0
    assert _diff(load_image(tmp_path / "cmyk.tif"), rack) < 0.5


def test_palette_png_with_and_without_a_transparent_colour(tmp_path, rack):
    pal = Image.fromarray(rack).quantize(255)
    pal.save(tmp_path / "p.png")
    assert _diff(load_image(tmp_path / "p.png"), rack) < 4.0
    indexed = np.asarray(pal).copy()
    indexed[:50] = 255  # a band in a 256th colour (black), made transparent
    pal2 = Image.fromarray(indexed, "P")
    pal2.putpalette(pal.getpalette()[: 255 * 3] + [0, 0, 0])
    pal2.save(tmp_path / "pt.png", transparency=255)
    with Image.open(tmp_path / "pt.png") as im:
        assert im.mode == "P" and "transparency" in im.info
    arr = load_image(tmp_path / "pt.png")
    assert arr[:50].min() == 255 and _diff(arr[50:], rack[50:]) < 4.0


def test_grey_and_colour_with_alpha_are_composited_on_white(tmp_path, rack):
    rgba = np.dstack([rack, np.full(rack.shape[:2], 255, np.uint8)])
    rgba[-80:, :, :3] = 0  # hidden pixels hold black ...
    rgba[-80:, :, 3] = 0  # ... under full transparency
    rgba[:40, :, 3] = 128  # and a half-transparent band on top
    Image.fromarray(rgba, "RGBA").save(tmp_path / "rgba.png")
    arr = load_image(tmp_path / "rgba.png")
    assert arr[-80:].min() == 255
    assert _diff(arr[40:-80], rack[40:-80]) == 0.0
    assert _diff(arr[:40], (rack[:40].astype(float) + 255) / 2) < 1.0
    la = Image.fromarray(rgba, "RGBA").convert("LA")
    la.save(tmp_path / "la.png")
    with Image.open(tmp_path / "la.png") as im:
        assert im.mode == "LA"
    arr = load_image(tmp_path / "la.png")
    assert arr[-80:].min() == 255
    assert _diff(arr[40:-80].mean(axis=2), _grey_of(rack)[40:-80]) < 1.0


def test_lab_and_ycbcr_tiff(tmp_path, rack):
    Image.fromarray(rack).convert("LAB").save(tmp_path / "lab.tif")
    Image.fromarray(rack).convert("YCbCr").save(tmp_path / "ycc.tif")
    assert _diff(load_image(tmp_path / "lab.tif"), rack) < 3.0
    assert _diff(load_image(tmp_path / "ycc.tif"), rack) < 3.0


# ------------------------------------------------------------------ only our formats are decoded

#: A real EPS file whose PostScript loops forever: Pillow's EPS plugin hands it to Ghostscript.
EPS_LOOP = b"%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 8 8\n{ } loop\nshowpage\n%%EOF\n"


def test_eps_payload_named_jpg_never_reaches_ghostscript(tmp_path, monkeypatch):
    """Even where Ghostscript is installed, an EPS named .jpg is refused from its header, unparsed."""
    import subprocess
    import time

    from PIL import EpsImagePlugin

    from page.photo_state import read_photo

    with Image.open(io.BytesIO(EPS_LOOP)) as im:  # what Pillow would make of it, left unrestricted
        assert im.format == "EPS"
    launched: list = []

    def no_process(*args, **kwargs):
        launched.append(args)
        raise AssertionError("a subprocess was started")

    monkeypatch.setattr(EpsImagePlugin, "gs_binary", "gs")  # as on a machine with Ghostscript
    monkeypatch.setattr(subprocess, "check_call", no_process)
    monkeypatch.setattr(subprocess, "Popen", no_process)
    path = tmp_path / "photo.jpg"
    path.write_bytes(EPS_LOOP)
    t0 = time.perf_counter()
    for call in (load_image, image_size):
        with pytest.raises(ImageLoadError) as err:
            call(path)
        assert str(err.value) == f"{path}: format PostScript/EPS is not accepted (only {ACCEPTED_WORDS})"
    with pytest.raises(ImageLoadError, match="EPS is not accepted"):
        open_image(EPS_LOOP)
    photo = read_photo(EPS_LOOP, "photo.jpg", None)
    assert photo.rgb is None and "EPS is not accepted" in photo.error.en
    assert time.perf_counter() - t0 < 5.0
    assert launched == []


def test_plain_pillow_in_this_process_never_starts_ghostscript(monkeypatch):
    """Code that opens images without our opener (ultralytics' dataset checks) is covered too."""
    import subprocess

    import vision.read.imageio  # noqa: F401

    launched: list = []
    monkeypatch.setattr(subprocess, "check_call", lambda *a, **k: launched.append(a))
    monkeypatch.setattr(subprocess, "Popen", lambda *a, **k: launched.append(a))
    with Image.open(io.BytesIO(EPS_LOOP)) as im:
        assert im.format == "EPS"
        with pytest.raises(OSError, match="Ghostscript"):
            im.load()
    assert launched == []


@pytest.mark.parametrize("fmt, words", [("GIF", "GIF"), ("PDF", "PDF"), ("PPM", "netpbm"), ("ICO", "ICO")])
def test_other_pillow_formats_are_refused_by_name(tmp_path, fmt, words):
    path = tmp_path / "photo.jpg"
    _marked(64, 64).save(path, format=fmt)
    with pytest.raises(ImageLoadError, match=f"{words}.* is not accepted"):
        load_image(path)


@pytest.mark.parametrize("fmt", ["JPEG", "PNG", "WEBP", "BMP", "TIFF", "MPO"])
def test_accepted_formats_decode(tmp_path, fmt):
    path = tmp_path / f"a.{fmt.lower()}"
    _marked().save(path, format=fmt, **({"save_all": True} if fmt == "MPO" else {}))
    arr = load_image(path)
    assert arr.shape == (20, 40, 3) and arr[1, 1].min() > 200 and arr[15, 35].max() < 50


def test_every_exif_orientation_matches_pillow(tmp_path, rack):
    from PIL import ImageOps

    small = Image.fromarray(rack[:60, :90])
    for orientation in range(1, 9):
        exif = Image.Exif()
        exif[0x0112] = orientation
        path = tmp_path / f"o{orientation}.png"
        small.save(path, exif=exif.tobytes())
        with Image.open(path) as im:
            expected = np.asarray(ImageOps.exif_transpose(im).convert("RGB"))
        assert np.array_equal(load_image(path), expected), orientation
        assert np.array_equal(load_image(path, bgr=True), expected[:, :, ::-1]), orientation
        assert image_size(path) == (expected.shape[1], expected.shape[0])


# ------------------------------------------------------------------ memory on big photos

_PEAK = """
import resource, sys
from pathlib import Path
sys.path.insert(0, {root!r})
from page.photo_state import read_photo
data = Path({path!r}).read_bytes()
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
photo = read_photo(data, "big.png", None)
assert photo.error is None, photo.error
print(photo.rgb.shape, (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) // 1024)
"""


@pytest.mark.slow
def test_50_mp_16_bit_photo_memory(tmp_path):
    """A 50 MP 16-bit grey PNG (a small file) read by the page costs at most 400 MB over the
    process's size before: the output (150 MB) plus its decoded pixels, not float copies."""
    import subprocess
    import sys

    side = 7070  # 49.98 MP, just under MAX_PIXELS
    wide = np.zeros((side, side), np.uint16)
    wide[:, : side // 2] = 40000
    path = tmp_path / "big16.png"
    Image.fromarray(wide).save(path, compress_level=1)
    del wide
    root = str(Path(__file__).resolve().parents[3])
    out = subprocess.run(
        [sys.executable, "-c", _PEAK.format(root=root, path=str(path))],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    ).stdout.split()
    assert out[:3] == [f"({side},", f"{side},", "3)"]
    assert int(out[3]) <= 400, f"peak {out[3]} MB over baseline"


def test_bomb_through_the_page_gives_the_clear_message(tmp_path):
    from page.photo_state import read_photo

    path = tmp_path / "bomb.png"
    _png_header_only(path, 10_000, 6_000)
    photo = read_photo(path.read_bytes(), "bomb.png", None)
    assert photo.rgb is None and "image too large: 10000x6000 = 60.0 MP, limit 50 MP" in photo.error.en
