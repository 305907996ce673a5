"""A loser's melds from a photo: the same reader reads them, and they are proposed as his melds.

Why this module exists: typing each loser's melds ("碰7p 吃345m" in a field per seat) was the
slowest and most error-prone step at the table, and the melds change payments (鸡枪, 杠, 大哥大,
三叉, 闭门). The player photographs a loser's laid-down melds; the tile reader finds the tiles,
`vision.read.melds` groups them into 吃/碰/明杠/暗杠, and the page proposes them as that seat's
melds — written as the same text the typed entry uses, so there is one truth per seat (the text)
and the typed field stays as the fallback and the place to check. Streamlit-free.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from page.detector_loader import Detector
from page.names import kind_words, tile_words
from page.photo_state import read_photo
from page.quick_entry import format_melds, parse_melds
from page.words import Words
from vision.read.melds import read_melds

#: A meld photo is read on a canvas this many times its width and height (PhotoPixels.zoomed_out).
#: Why: a loser's melds are photographed close, their tiles 40-60 % of the frame's height, larger
#: than in any photo the shipped detector (round 7) learnt from; read as they are, the real meld
#: photos of benchmarks/loser_melds_report.py were right on a third, against half with round 5
#: (models/MODEL_CARD.md, stop 53).
MELD_ZOOM_OUT = 2.0


@dataclass(frozen=True)
class MeldProposal:
    """What one photo of a loser's melds proposes (text None when it proposes nothing)."""

    text: str | None
    melds: list[tuple[str, list[str]]] = field(default_factory=list)
    tiles: int = 0  # tiles the reader found
    left_out: int = 0  # tiles no meld explains
    sure: float = 0.0  # the least sure decision
    words: Words = Words("", "")  # what the page says about it


def melds_from_photo(data: bytes, name: str, detector: Detector | None) -> MeldProposal:
    """Read a photo of one player's laid-down melds and propose them (never raises)."""
    if detector is None:
        return MeldProposal(
            None, words=Words("没有认牌模型：请直接输入副露。", "No tile reader: type the melds instead.")
        )
    # boxes only (no full-size decode), read zoomed out: a close-up's tiles at a size the detector knows
    photo = read_photo(data, name, detector, full=False, zoom_out=MELD_ZOOM_OUT)
    if photo.error is not None and not photo.boxes:
        return MeldProposal(None, words=photo.error)
    boxes = [b for b in photo.boxes if b.xyxy is not None]
    reading = read_melds(boxes)
    codes = reading.codes(boxes)
    melds = [m for m in (_as_typed(kind, tiles) for kind, tiles in codes if "back" not in tiles) if m]
    hidden = sum("back" in tiles for _, tiles in codes)  # a 暗杠 lying all face down: tile unseen
    unread = len(codes) - hidden - len(melds)  # faces that make no meld: the player says what it is
    if not melds:
        return MeldProposal(
            None,
            tiles=len(boxes),
            left_out=len(reading.ignored),
            words=Words(
                f"照片上认出 {len(boxes)} 张牌，但没看出副露：请直接输入。",
                f"{len(boxes)} tiles found on the photo, but no meld: type them instead.",
            ),
        )
    text = format_melds(melds)
    parse_melds(text)  # the proposal is text the typed entry reads back as the same melds
    left = len(reading.ignored) + 3 * unread
    shown = melds_words(melds)
    said = Words(f"从照片读出：{shown.zh}", f"Read from the photo: {shown.en}")
    if hidden:
        said = said + Words(
            f"；{hidden} 个扣着的暗杠看不见是哪张，请在下面补上",
            f"; {hidden} face-down kong(s): type which tile below",
        )
    if left:
        said = said + Words(
            f"（有 {left} 张牌没归进副露，请核对）", f" ({left} tiles fit no meld: please check)"
        )
    else:
        said = said + Words("（请核对，点一张牌可以改）", " (please check; tap a tile to fix it)")
    return MeldProposal(text, melds, len(boxes), left, reading.confidence, said)


def melds_words(melds: list[tuple[str, list[str]]]) -> Words:
    """碰白 吃三四五万 / pong White, chow 3 4 5 wan: the melds in the page's words, not codes."""
    zh, en = [], []
    for kind, tiles in melds:
        k = kind_words(kind)
        faces = tiles if kind == "chi" else tiles[:1]
        zh.append(k.zh + "".join(tile_words(t).zh for t in faces))
        en.append(f"{k.en} " + " ".join(tile_words(t).en for t in faces))
    return Words(" ".join(zh), ", ".join(en))


def _as_typed(kind: str, tiles: list[str]) -> tuple[str, list[str]] | None:
    """A meld as the typed entry reads it back (a 吃 in rank order), or None when its faces make
    no meld of its kind (a misread face the reader could not resolve)."""
    if kind == "chi":
        tiles = sorted(tiles, key=lambda c: (c[-1], c))
    try:
        back = parse_melds(format_melds([(kind, tiles)]))
    except (ValueError, IndexError):  # an honour in a 吃 cannot even be written as one
        return None
    return back[0] if back and back[0][1] == tiles else None
