"""A photo as the reader reads it (PhotoPixels): decoded once at reduced size for the detector and
the page, its faces cut from a sharper decode only where the tiles need it; and the canvas a
close-up is read on (on_canvas / off_canvas).

Why its own module: the page decodes an upload with it before any model is chosen (page.photo_state),
the reader (vision.read.detect) and the report (benchmarks/reader_report.py) read the same pixels and
map canvas boxes back the same way, and none of that is about which tiles a photo holds.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from vision.read import manifest
from vision.read.imageio import decode_reduced, load_image
from vision.read.tilenet import CROP_W, crop_tiles

#: Photo files are decoded at the largest JPEG reduction (1/2, 1/4, 1/8) that keeps this many times
#: the detector's input size on the long side: every view (plain or squeezed) is still an area
#: average of at least two decoded pixels per detector pixel, and the tiles of a phone photo of a
#: hand are still wider than the classifier's crop there (else faces come from the full decode).
DECODE_FACTOR = 2
#: The detector input size of a model.json that does not say (the shipped models' 384).
DEFAULT_DET_IMGSZ: int = manifest.ModelManifest.det_imgsz


def on_canvas(rgb: np.ndarray, factor: float) -> tuple[np.ndarray, tuple[int, int]]:
    """`rgb` centred on a canvas `factor` times as wide and high, filled with the median colour of
    its border, and where its top-left corner lies on the canvas. Why: a close-up shows tiles
    larger in the frame than the detector reads well (models/MODEL_CARD.md, stop 53); on the canvas
    they have a size it knows, with the photo's own surroundings' colour around them."""
    h, w = rgb.shape[:2]
    ch, cw = round(h * factor), round(w * factor)
    border = np.concatenate([rgb[0], rgb[-1], rgb[:, 0], rgb[:, -1]])
    canvas = np.empty((ch, cw, 3), np.uint8)
    canvas[:] = np.median(border, axis=0).astype(np.uint8)
    top, left = (ch - h) // 2, (cw - w) // 2
    canvas[top : top + h, left : left + w] = rgb
    return canvas, (left, top)


def off_canvas(
    boxes: np.ndarray, offset: tuple[float, float], scale: float, size: tuple[float, float]
) -> np.ndarray:
    """Boxes (xyxy) read on a canvas made by on_canvas, in the photo's own pixels: the photo's
    `offset` on the canvas taken off, times `scale` (canvas pixels to the photo's), clipped to its
    `size` (w, h). One mapping for the reader's zoomed view, the page and the report."""
    b = (np.asarray(boxes, dtype=np.float64).reshape(-1, 4) - [*offset, *offset]) * scale
    b[:, [0, 2]] = b[:, [0, 2]].clip(0, size[0])
    b[:, [1, 3]] = b[:, [1, 3]].clip(0, size[1])
    return b


class PhotoPixels:
    """A photo as the reader reads it: decoded once at reduced size (what the detector reads and what
    a page can show), plus where the classifier's crops are cut: from it, or from the full-size
    decode of the same file or bytes when the tiles there are smaller than the classifier's crop
    (decoded at most once, only then, and kept for a caller that needs the full-size pixels)."""

    def __init__(
        self,
        rgb: np.ndarray,
        scale: float = 1.0,
        source: Path | bytes | None = None,
        size: tuple[int, int] | None = None,
        min_side: int = 0,
    ) -> None:
        self.rgb = rgb
        self.scale = scale  # from `rgb` pixels to the photo's full-size pixels
        self.source = source
        #: (width, height) of the full-size upright photo, the pixels every box is reported in.
        self.size = size or (round(rgb.shape[1] * scale), round(rgb.shape[0] * scale))
        self.min_side = min_side  # the long side the reduced decode was asked to keep
        self._full: np.ndarray | None = rgb if scale == 1.0 else None
        #: The sharpest decode made for faces so far, and its scale to full-size pixels.
        self._sharp: tuple[np.ndarray, float] | None = None

    @classmethod
    def decode(
        cls, source: str | Path | bytes, det_imgsz: int = DEFAULT_DET_IMGSZ, name: str | None = None
    ) -> PhotoPixels:
        """Decode a photo file or its uploaded bytes at the reduction that keeps DECODE_FACTOR x the
        detector's input on the long side (raises vision.read.imageio.ImageLoadError). A caller
        that does not know the model yet (the page) decodes for the default input size; `detect`
        decodes again only for a model whose detector input is larger."""
        src = source if isinstance(source, bytes) else Path(source)
        min_side = DECODE_FACTOR * det_imgsz
        reduced = decode_reduced(src, min_side, name=name)
        return cls(reduced.rgb, reduced.scale, src, reduced.size, min_side)

    def full(self) -> np.ndarray:
        """The full-size upright photo, decoded once (the reduced pixels when they are full size)."""
        if self._full is None:
            if self.source is None:
                raise ValueError("no full-size source for these pixels")
            self._full = load_image(self.source)
        return self._full

    def crops(self, boxes: np.ndarray, turned: bool = False) -> np.ndarray:
        """Crops of `boxes` (in `rgb` pixels) at the classifier's input size (`turned`: see
        crop_tiles)."""
        if self.scale > 1 and self.source is not None and len(boxes):
            short = float(np.median(np.minimum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])))
            if short < CROP_W:
                sharp, scale = self.sharp_enough(self.scale * short)
                return crop_tiles(sharp, boxes * (self.scale / scale), turned=turned)
        return crop_tiles(self.rgb, boxes, turned=turned)

    def zoomed_out(self, factor: float) -> tuple[PhotoPixels, tuple[int, int]]:
        """These pixels centred on a canvas `factor` times as wide and high (on_canvas), read as a
        photo of its own (scale 1), and where their top-left corner lies on it: a box read on the
        canvas is `(x - left, y - top) * self.scale` in this photo's full-size pixels. Faces are
        cut from the canvas: a close-up's tiles are large enough there (page.photo_state.read_photo's
        `zoom_out`, for a loser's melds)."""
        canvas, offset = on_canvas(self.rgb, factor)
        return PhotoPixels(canvas), offset

    def sharp_enough(self, full_short: float) -> tuple[np.ndarray, float]:
        """Pixels in which a tile whose short side is `full_short` full-size pixels is at least
        CROP_W wide, and their scale to full size: the least-reduced decode that does it.

        Why not always the full-size photo: the tiles of a phone photo are often a little under
        CROP_W in the reduced decode (a 12 MP photo of a hand on the table: 30-45 px at 1/4), and
        the full-size decode is four times the pixels of the 1/2 decode that already gives crops
        at the classifier's size. JPEGs are decoded at 1/2 or 1/4 from the DCT; other formats
        decode at full size anyway. A decode at full size is kept as `full()`."""
        if self._full is not None:
            return self._full, 1.0
        if self.source is None:
            raise ValueError("no full-size source for these pixels")
        widest = full_short / CROP_W  # the largest reduction at which the tile still fills a crop
        if self._sharp is not None and self._sharp[1] <= widest:
            return self._sharp
        if widest < 2:
            return self.full(), 1.0
        reduced = decode_reduced(self.source, -(-max(self.size) // int(widest)))
        if reduced.scale == 1.0:
            self._full = reduced.rgb
        self._sharp = (reduced.rgb, reduced.scale)
        return self._sharp
