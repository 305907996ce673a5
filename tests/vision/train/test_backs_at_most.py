"""--cls-backs-at-most: the classifier's training crops hold at most that many face-down `back` crops."""

from __future__ import annotations

import numpy as np

from vision.classes import BACK_ID
from vision.train.crops import CropSet, at_most_of_class


def _crops(counts: dict[int, int]) -> CropSet:
    y = np.concatenate([np.full(n, c) for c, n in counts.items()])
    x = np.arange(len(y), dtype=np.uint8).reshape(-1, 1, 1, 1).repeat(2, axis=1)
    return CropSet(x, y)


def test_the_backs_are_sampled_down_and_every_other_crop_kept():
    crops = _crops({0: 30, BACK_ID: 150, 5: 40})  # under 256 crops: each x its own index
    capped = at_most_of_class(crops, BACK_ID, 50, seed=0)
    assert int((capped.y == BACK_ID).sum()) == 50
    assert int((capped.y == 0).sum()) == 30 and int((capped.y == 5).sum()) == 40
    kept = {int(v) for v in capped.x[:, 0, 0, 0]}  # each crop kept whole, with its own label
    assert all(int(crops.y[i]) == int(c) for i, c in zip(sorted(kept), capped.y, strict=True))
    assert at_most_of_class(crops, BACK_ID, 50, seed=0).x.tobytes() == capped.x.tobytes()  # seeded


def test_zero_or_a_cap_above_the_count_keeps_everything():
    crops = _crops({0: 3, BACK_ID: 7})
    for most in (0, 7, 100):
        same = at_most_of_class(crops, BACK_ID, most, seed=1)
        assert np.array_equal(same.x, crops.x) and np.array_equal(same.y, crops.y)
