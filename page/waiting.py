"""What a hand one tile short waits on, and when it waits on nothing, why.

Why this module exists: a photo often shows the 13 tiles before the win (the winning tile was
already pushed into the row or is still in the player's hand). The page then says what the hand
waits on and what each tile would pay (`rules.waits`). "没听牌" alone leaves the player guessing:
was a tile misread, or does the rule set forbid the shape? So when no tile completes the hand, each
candidate tile is scored as a self-drawn win and the most common reason it cannot win is named
("再来一张也不成胡牌" or "差的是：没有幺九").
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import rules
from page.explain import explain_invalid
from page.names import tile_en
from page.situation import Situation, WinnerTiles, build_hand
from page.words import Words
from rules import tiles as T
from rules.errors import HandError
from rules.names import tile_name


def waiting_words(tiles: WinnerTiles, sit: Situation) -> Words | None:
    """听 三万 +250 · 六万 +500, or 没听牌 with the reason; None when it cannot be said."""
    if not tiles.concealed:
        return None
    short = WinnerTiles(list(tiles.concealed), tiles.melds, tiles.concealed[-1], False)
    try:
        found = rules.waits(build_hand(short, sit))
    except (HandError, ValueError):
        return None
    if found.waits:
        zh = "听 " + " · ".join(f"{tile_name(T.code(w.tile))} {w.gain:+d}" for w in found.waits)
        en = "Waiting on " + " · ".join(f"{tile_en(T.code(w.tile))} {w.gain:+d}" for w in found.waits)
    else:
        why = why_not_waiting(tiles, sit)
        zh, en = "没听牌：" + why.zh, "Not waiting on any tile: " + why.en
    if found.hun_wait is not None:
        hun = T.code(found.hun)
        zh += f"（自摸混 {tile_name(hun)} {found.hun_wait.gain:+d}）"
        en += f" (self-drawn 混 {tile_en(hun)} {found.hun_wait.gain:+d})"
    return Words(zh, en)


def why_not_waiting(tiles: WinnerTiles, sit: Situation) -> Words:
    """The commonest reason the 34 possible next tiles cannot win, in player words."""
    reasons: Counter[str] = Counter()
    example: dict[str, rules.ScoreResult] = {}
    self_draw = replace(sit, win_by="self_draw", discarder=None)
    for t in range(T.N_TYPES):
        code = T.code(t)
        cand = WinnerTiles(list(tiles.concealed) + [code], tiles.melds, code, True)
        try:
            result = rules.score(build_hand(cand, self_draw))
        except (HandError, ValueError):
            continue
        if result.valid or not result.reason:
            continue
        reasons[result.reason] += 1
        example.setdefault(result.reason, result)
    shaped = [r for r in reasons if r != "NOT_A_WINNING_SHAPE"]
    if not shaped:
        return Words(
            "再来哪一张都凑不成胡牌——差不止一张，或者有牌认错了",
            "no single tile completes the hand — it is more than one tile away, or a tile is misread",
        )
    top = max(shaped, key=lambda r: reasons[r])
    inv = explain_invalid(example[top], tiles)
    return Words(
        f"凑成了也不能胡——{inv.title.zh}（{inv.missing.zh}）",
        f"even complete it cannot win — {inv.title.en} ({inv.missing.en})",
    )
