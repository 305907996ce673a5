"""The page's tile reader: a `Detector` loaded from a model file or a plugged-in function, with a version.

Why this module exists: the page needs one callable `run(rgb) -> detections` and a version string that
says which model read a photo (it goes into the training manifest of every saved example). Loading a
model file, hashing it with its weights, and taming ultralytics' side effects on PIL are not layout,
so they live here; app.py only caches the loaders per model file (st.cache_resource).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

import numpy as np


class Detector:
    """A loaded detector: `run(rgb)` → detections; `read(rgb)` → detections and the doubted boxes the
    page offers as "maybe missed"; `version` goes into the training manifest.

    `takes_pixels`: `run` also takes a vision.read.photo_pixels.PhotoPixels (the upload decoded once at
    reduced size, boxes still in full-photo pixels), so the page need not decode the whole photo
    for it; a plugged-in function gets the full-size upright array, as it always did."""

    def __init__(
        self,
        run: Callable[[np.ndarray], list],
        version: str,
        takes_pixels: bool = False,
        read: Callable[[np.ndarray], tuple[list, list]] | None = None,
    ) -> None:
        self.run = run
        self.version = version
        self.takes_pixels = takes_pixels
        self._read = read

    def read(self, image: np.ndarray) -> tuple[list, list]:
        """(the tiles, the tiles it may have missed: vision.read.maybe_missed) in one reading; a
        detector that cannot say what it doubted suggests nothing."""
        if self._read is None:
            return self.run(image), []
        return self._read(image)


def plugin_detector(plug: str) -> Detector:
    """A detector from "module:function" (the function takes an RGB array and returns detections).
    When the module also has "function_maybe", it gives the boxes the detector doubted (the page
    offers them as "maybe missed"), from the same array."""
    module, _, name = plug.partition(":")
    found = importlib.import_module(module)
    run = getattr(found, name)
    maybe = getattr(found, f"{name}_maybe", None)
    read = None if maybe is None else (lambda rgb: (run(rgb), maybe(rgb)))
    return Detector(run, f"plugin:{plug}", read=read)


def model_detector(path: str) -> Detector:
    """Load a model file (model.json or .pt) with `vision.read.detect`; raises whatever loading raises."""
    from vision.read import detect as vdetect
    from vision.read import manifest

    model = vdetect.load_model(path)
    return Detector(
        lambda rgb: vdetect.detect(rgb, model=model),
        manifest.version_of(path),
        takes_pixels=True,
        read=lambda rgb: vdetect.detect_with_maybe(rgb, model=model),
    )
