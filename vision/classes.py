"""The detector's class list: fixed order, defined once, used by data, training, detection and the app.

The order matches `../shared/datasets/chinese-mahjong-v4/data.yaml`, so real labels need no remapping.
Face codes are the scoring engine's canonical tile codes (see `rules`), plus `back` for a face-down tile.
"""

from __future__ import annotations

from rules.names import BACK_ZH, TILE_ZH
from rules.tiles import CODES, DRAGONS, WINDS

SUITS = ("m", "p", "s")
HONOURS = WINDS + DRAGONS

#: The one vocabulary: the scoring engine's 34 tile codes in its own order, then `back`.
CLASS_NAMES: tuple[str, ...] = (*CODES, "back")
NUM_CLASSES = len(CLASS_NAMES)
BACK = "back"
BACK_ID = CLASS_NAMES.index(BACK)
CLASS_ID: dict[str, int] = {name: i for i, name in enumerate(CLASS_NAMES)}
FACE_NAMES: tuple[str, ...] = CLASS_NAMES[:-1]
#: The crop classifier's one extra output, never a detection class: a box that holds none of the 35
#: (a flower/season tile, unused in Liaoning rules, or something that is not a tile). Its probability
#: lowers every real class's confidence, so such boxes fall under the operating point.
OTHER = "other"
OTHER_ID = NUM_CLASSES
#: The classifier's optional second extra output: a flower or season tile. It is a tile, so unlike
#: `other` it does not lower the tile confidence of the faces it is not (an unseen print's tiles
#: would pay for it); a box read as a flower more than as any face is not returned, because
#: Liaoning rules play without flowers (SPEC: 120 tiles). models/MODEL_CARD.md, Stop 35.
FLOWER = "flower"
FLOWER_ID = NUM_CLASSES + 1
#: The classifier's outputs after the 35 classes, in order, as a model.json may name them.
EXTRA_OUTPUTS: tuple[tuple[str, ...], ...] = ((), (OTHER,), (OTHER, FLOWER))
#: Every name a classifier output may have, by output index.
OUTPUT_NAMES: tuple[str, ...] = (*CLASS_NAMES, OTHER, FLOWER)


def display_name(name: str) -> str:
    """Readable Chinese name of a class: `5m` -> 五万, `C` -> 中, `back` -> 背面 (the engine's one table)."""
    if name == BACK:
        return BACK_ZH
    if name not in TILE_ZH:
        raise ValueError(f"unknown tile class {name!r}")
    return TILE_ZH[name]


assert NUM_CLASSES == 35
