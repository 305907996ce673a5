"""OperatingPoint.zoom_view: a close-up is read again centred on a canvas of its border's colour,
where its tiles have a size the detector reads well, and the two readings are pooled
(vision.read.detect._read_zoomed, looks_close). Measured, not shipped (models/MODEL_CARD.md, stop 53)."""

from __future__ import annotations

from types import SimpleNamespace

import cv2
import numpy as np
import torch

from vision.read import detect as reader
from vision.read.operating_point import OperatingPoint

#: Six white tiles 50 x 70 px on green felt, a close-up 384 x 288 px.
TILES = [(x, 100, x + 50, 170) for x in (20, 80, 140, 200, 260, 320)]


class BlobDetector:
    """A detector that boxes every white blob of the view it is given, sure of a blob under 60 px
    on its long side; of larger ones (a close-up's tiles) sure only of the four leftmost."""

    names = {0: "tile"}

    def predict(self, view, imgsz, conf, iou, verbose, device):  # noqa: ARG002 - ultralytics' signature
        white = (view.min(axis=2) > 200).astype(np.uint8)
        n, _, stats, _ = cv2.connectedComponentsWithStats(white)
        rows = []
        for i, (x, y, w, h, _area) in enumerate(sorted(stats[1:n].tolist())):
            sure = 0.9 if max(w, h) < 60 else (0.6 if i < 4 else 0.3)
            if sure >= conf:
                rows.append((x, y, x + w, y + h, sure))
        t = torch.tensor(rows, dtype=torch.float32).reshape(-1, 5)
        return [SimpleNamespace(boxes=SimpleNamespace(xyxy=t[:, :4], conf=t[:, 4], cls=torch.zeros(len(t))))]


def _photo() -> np.ndarray:
    rgb = np.zeros((288, 384, 3), np.uint8)
    rgb[:] = (20, 110, 40)
    for x0, y0, x1, y1 in TILES:
        rgb[y0:y1, x0:x1] = 255
    return rgb


def _model(zoom_view: float, zoom_view_at: float = 0.125) -> reader.TileModel:
    op = OperatingPoint(conf=0.55, tile_conf=0.55, zoom_view=zoom_view, zoom_view_at=zoom_view_at)
    return reader.TileModel(BlobDetector(), None, op, 384, None, {})  # type: ignore[arg-type]


def test_a_close_up_read_zoomed_out_returns_the_tile_the_plain_reading_missed_where_it_is():
    assert len(reader.detect(_photo(), model=_model(0.0))) == 4  # every model.json before it
    found = sorted(reader.detect(_photo(), model=_model(0.5)), key=lambda d: d.xyxy[0])
    assert len(found) == 6
    for d, tile in zip(found, TILES, strict=True):
        assert np.allclose(d.xyxy, tile, atol=3)  # in the photo's pixels, not the canvas's


def test_only_a_close_up_is_read_again():
    tm = _model(0.5, zoom_view_at=0.5)  # tiles 70 px of 384: not a close-up at half the side
    assert len(reader.detect(_photo(), model=tm)) == 4
    plain = reader._ViewReading(np.array([TILES[0]], float), np.array([0.9]), np.zeros(1), None)
    assert reader.looks_close(_model(0.5), plain, (384, 288))
    assert not reader.looks_close(_model(0.5, zoom_view_at=0.5), plain, (384, 288))
    assert not reader.looks_close(_model(0.0), plain, (384, 288))


def test_the_canvas_is_the_borders_colour_with_the_photo_in_its_middle():
    canvas, (left, top) = reader.on_canvas(_photo(), 2.0)
    assert canvas.shape == (576, 768, 3) and (left, top) == (192, 144)
    assert (
        tuple(canvas[0, 0]) == (20, 110, 40)
        and (canvas[top : top + 288, left : left + 384] == _photo()).all()
    )
