"""The detector's class list: fixed order, defined once, used by data, training, detection and the app.

The order matches `../shared/datasets/chinese-mahjong-v4/data.yaml`, so real labels need no remapping.
Face codes are the scoring engine's canonical tile codes (see `rules`), plus `back` for a face-down tile.
"""

from __future__ import annotations

SUITS = ("m", "p", "s")
HONOURS = ("E", "S", "W", "N", "C", "F", "P")

#: 34 faces in class order, then `back`.
CLASS_NAMES: tuple[str, ...] = tuple(f"{r}{s}" for s in SUITS for r in range(1, 10)) + HONOURS + ("back",)
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

_SUIT_ZH = {"m": "万", "p": "饼", "s": "条"}
_NUM_ZH = "一二三四五六七八九"
_HONOUR_ZH = {"E": "东", "S": "南", "W": "西", "N": "北", "C": "中", "F": "发", "P": "白"}


def display_name(name: str) -> str:
    """Readable Chinese name of a class: `5m` -> 五万, `C` -> 中, `back` -> 背面."""
    if name == BACK:
        return "背面"
    if name in _HONOUR_ZH:
        return _HONOUR_ZH[name]
    if len(name) == 2 and name[0].isdigit() and name[1] in _SUIT_ZH:
        return _NUM_ZH[int(name[0]) - 1] + _SUIT_ZH[name[1]]
    raise ValueError(f"unknown tile class {name!r}")


assert NUM_CLASSES == 35
