"""A stand-in for the crop classifier as the reader calls it, made from a function with
`classify_crops`' signature (net, crops, tta_below) -> probabilities.

Why: vision.read.detect reads every face through `tilenet.read_crops`, which also carries the
activations a flower gate sharing the classifier's blocks reads from. A test that says what each
crop reads as should not have to say how that reading is carried.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from vision.read.tilenet import TTA_BELOW, CropReading


def reading_as(classify: Callable[..., np.ndarray]) -> Callable[..., CropReading]:
    """`read_crops` reading each crop as `classify` says, with no activations kept (a gate then
    reads the crops whole, as beside a classifier it does not share)."""

    def read(net, crops, tta_below: float = TTA_BELOW, trunk_to: int = 0) -> CropReading:  # noqa: ARG001
        return CropReading(np.asarray(classify(net, crops, tta_below)))

    return read
