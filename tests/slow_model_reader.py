"""The shipped reader (models/model.json) taking SLOW_READ_S seconds longer to read each photo.

Why: on a loaded machine (CI, an old laptop) reading a photo takes longer than the page's 2 s poll,
and a poll queued meanwhile brought the browser's old, empty melds field back after the photo had
filled it: the melds read from the photo were wiped (page.hand_sync.bound_key). Plugged in as
MAHJONG_DETECTOR=tests.slow_model_reader:detect, a browser test meets that every time, not on a
slow day only."""

from __future__ import annotations

import functools
import os
import time

import numpy as np

from vision.read import detect as vdetect

SHIPPED = vdetect.MODELS_DIR / "model.json"


@functools.cache
def _model() -> vdetect.TileModel:
    return vdetect.load_model(str(SHIPPED))


def detect(rgb: np.ndarray) -> list:
    """The shipped reader's tiles, after a wait of SLOW_READ_S seconds (6 unless told)."""
    time.sleep(float(os.environ.get("SLOW_READ_S", "6")))
    return vdetect.detect(rgb, model=_model())
