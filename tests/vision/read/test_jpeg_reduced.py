"""The reduced JPEG decode through OpenCV (imageio._jpeg_reduced) gives Pillow's pixels, or is not taken.

Why: the page's upload path decodes every photo at 1/2-1/8 size; OpenCV's decode is the faster of
two libjpeg-turbo callers, and it may only be taken where the reader then sees exactly the pixels
it saw before, and where a cut file is still refused."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from vision.read import imageio
from vision.read.imageio import ImageLoadError, decode_reduced


def _photo(subsampling: int, progressive: bool = False, orientation: int = 1) -> bytes:
    """A 1200x900 JPEG with texture and colour edges (chroma subsampling shows there)."""
    rng = np.random.default_rng(subsampling)
    a = (rng.integers(0, 255, (90, 120, 3), dtype=np.uint8)).repeat(10, 0).repeat(10, 1)
    a[100:300, 200:500] = (200, 30, 40)
    im = Image.fromarray(a)
    exif = Image.Exif()
    if orientation != 1:
        exif[0x0112] = orientation
    buf = io.BytesIO()
    im.save(buf, "JPEG", quality=90, subsampling=subsampling, progressive=progressive, exif=exif.tobytes())
    return buf.getvalue()


def _by_pillow(monkeypatch, data: bytes, min_side: int) -> imageio.ReducedImage:
    with monkeypatch.context() as m:
        m.setattr(imageio, "_jpeg_reduced", lambda *a: None)
        return decode_reduced(data, min_side)


@pytest.mark.parametrize(
    "subsampling, progressive, orientation",
    [(2, False, 1), (0, False, 1), (1, False, 1), (2, True, 1), (2, False, 6), (2, False, 3)],
    ids=["4:2:0", "4:4:4", "4:2:2", "progressive", "turned-6", "turned-3"],
)
@pytest.mark.parametrize("min_side", [500, 250, 100])
def test_opencv_gives_pillows_pixels(monkeypatch, tmp_path, subsampling, progressive, orientation, min_side):
    data = _photo(subsampling, progressive, orientation)
    taken = []
    real = imageio._jpeg_reduced
    monkeypatch.setattr(imageio, "_jpeg_reduced", lambda *a: taken.append(1) or real(*a))
    path = tmp_path / "p.jpg"
    path.write_bytes(data)
    fast_bytes, fast_path = decode_reduced(data, min_side), decode_reduced(path, min_side)
    assert taken == [1, 1]
    slow = _by_pillow(monkeypatch, data, min_side)
    assert fast_bytes.scale == slow.scale > 1 and fast_bytes.size == slow.size
    np.testing.assert_array_equal(fast_bytes.rgb, slow.rgb)
    np.testing.assert_array_equal(fast_path.rgb, slow.rgb)


def test_a_cut_jpeg_is_still_refused_at_reduced_size():
    data = _photo(2)
    with pytest.raises(ImageLoadError, match="truncated"):
        decode_reduced(data[: len(data) * 2 // 3], 100)


def test_full_size_and_grey_jpegs_stay_with_pillow(monkeypatch):
    calls = []
    real = imageio._jpeg_reduced
    monkeypatch.setattr(imageio, "_jpeg_reduced", lambda *a: calls.append(real(*a)) or calls[-1])
    whole = decode_reduced(_photo(2), 2000)  # no reduction possible: OpenCV declines
    assert calls == [None] and whole.scale == 1.0
    buf = io.BytesIO()
    Image.fromarray(np.full((400, 600), 90, np.uint8)).save(buf, "JPEG")
    grey = decode_reduced(buf.getvalue(), 100)
    assert calls == [None, None] and grey.rgb.shape == (100, 150, 3)  # 1/4, by Pillow
