"""One tile on the page: what it shows, where it is on the photo, where it belongs, and who said so.

Why a dataclass: the page keeps every box of the current photo in session state and edits it as
the player corrects tiles; typed fields (instead of string-keyed dicts) make a misspelt key an
error at once, and give one place for the two questions the page asks of every box: does the
player need to look at it (`needs_check`) and which faces to offer first (`options`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from vision.classes import CLASS_NAMES

#: A tile is "unsure" (highlighted, and asked about first) below this confidence …
UNSURE_CONF = 0.6
#: … or when the model's next guess is at least this close to its first.
UNSURE_RATIO = 0.5

#: Where a box came from: read by the model, the sample's checked tiles, added or typed by the player,
#: or doubted by the model and offered as "maybe missed" (page.photo_state.Photo.maybe).
ORIGINS = ("model", "sample", "added", "typed", "maybe")


@dataclass
class Box:
    """A tile on the page. `role` is where it belongs (see `page.roles.ROLES`)."""

    cls: str
    origin: str = "model"
    xyxy: list[float] | None = None
    model_cls: str | None = None
    conf: float = 1.0
    alternatives: list[tuple[str, float]] = field(default_factory=list)
    role: str = "other"
    fixed: bool = False
    unsure: bool = False

    @property
    def options(self) -> list[str]:
        """Faces in the order the keyboard offers them: the model's reading, its next guesses, the rest."""
        return picker_options(self.model_cls or self.cls, self.alternatives)

    @property
    def needs_check(self) -> bool:
        """An unsure model reading the player has not touched yet: drawn orange, asked about first."""
        return self.origin == "model" and not self.fixed and self.unsure

    @property
    def in_play(self) -> bool:
        """Counts for the hand (not set aside as 不在手里 or 删除)."""
        return self.role not in ("other", "delete")

    def set_face(self, cls: str) -> None:
        """The player's fix: the face changes and the box is no longer in doubt."""
        self.cls = cls
        self.fixed = True


def detection_box(det: Any, origin: str = "model") -> Box:
    """A box from a detection (vision.read.detect.Detection, or any object with cls/conf/xyxy).

    `unsure` is the detection's own flag when it has one (the reader decides: a sure tile whose face
    is doubtful); detectors without it (plugins, older models) get the page's rule on conf and the
    runner-up guess, so a doubtful reading is still shown orange."""
    alts = [(str(c), float(p)) for c, p in getattr(det, "alternatives", []) or []]
    cls = str(det.cls) if str(det.cls) in CLASS_NAMES else "back"
    flag = getattr(det, "unsure", None)
    unsure = bool(flag) if flag is not None else is_unsure(float(det.conf), alts)
    return Box(
        cls=cls,
        origin=origin,
        xyxy=[float(v) for v in det.xyxy],
        model_cls=cls if origin in ("model", "maybe") else None,
        conf=float(det.conf),
        alternatives=alts,
        unsure=unsure and origin == "model",
    )


def player_box(cls: str, role: str, origin: str, xyxy: list[float] | None = None) -> Box:
    """A box the player made (`added` on the photo or `typed`): sure, already fixed, no model class."""
    return Box(cls=cls, origin=origin, xyxy=xyxy, role=role, fixed=True)


def is_unsure(conf: float, alternatives: Sequence[tuple[str, float]] = ()) -> bool:
    """Low confidence, or a runner-up close behind: worth the player's glance."""
    if conf < UNSURE_CONF:
        return True
    return bool(alternatives) and alternatives[0][1] >= UNSURE_RATIO * conf


def picker_options(current: str, alternatives: Sequence[tuple[str, float]] = ()) -> list[str]:
    """All 35 classes for a tile's picker: the current reading, the model's next guesses, then the rest
    in the fixed order (万 饼 条 东南西北 中发白, 背面 last)."""
    out: list[str] = []
    for c in [current, *(a for a, _ in alternatives), *CLASS_NAMES]:
        if c in CLASS_NAMES and c not in out:
            out.append(c)
    return out
