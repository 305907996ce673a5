"""A slow, obviously-correct standard-form divider for checking the fast search.

Every 混 is given every possible stand-in type explicitly; the resulting multiset of labelled tiles
(type, is_hun) is split into groups by plain recursion, and each full split is described with the
same facts the engine reads (`Reading`). No memo of summaries, no shortcut for all-混 groups.
"""

from __future__ import annotations

import itertools
from functools import lru_cache

from rules import tiles as T
from rules.decompose import Reading
from rules.hand import Meld

Item = tuple[int, bool]  # (type it stands for, is a 混)


def _groups(items: tuple[Item, ...], need_pair: bool):
    """Yield every split of the sorted labelled tiles into sets (+ one pair)."""
    if not items:
        if not need_pair:
            yield ()
        return
    first = items[0]
    rest = list(items[1:])
    t = first[0]
    # pair
    if need_pair:
        for j, other in enumerate(rest):
            if other[0] == t and (j == 0 or rest[j - 1] != other):
                remaining = tuple(rest[:j] + rest[j + 1 :])
                for tail in _groups(remaining, False):
                    yield (("pair", (first, other)), *tail)
    # triplet
    same = [j for j, x in enumerate(rest) if x[0] == t]
    for a, b in itertools.combinations(same, 2):
        pick = (first, rest[a], rest[b])
        remaining = tuple(x for j, x in enumerate(rest) if j not in (a, b))
        for tail in _groups(remaining, need_pair):
            yield (("triplet", pick), *tail)
    # chow with `first` as its lowest tile
    if T.is_suited(t) and T.rank(t) <= 7:
        i1 = [j for j, x in enumerate(rest) if x[0] == t + 1]
        i2 = [j for j, x in enumerate(rest) if x[0] == t + 2]
        for a in i1:
            for b in i2:
                pick = (first, rest[a], rest[b])
                remaining = tuple(x for j, x in enumerate(rest) if j not in (a, b))
                for tail in _groups(remaining, need_pair):
                    yield (("chow", pick), *tail)


def _describe(split, melds: tuple[Meld, ...], win: int | None) -> Reading:
    r = Reading(form="standard")
    for m in melds:
        if m.is_triplet:
            r.triplets += 1
            r.natural_triplets += 1
            if T.is_dragon(m.tiles[0]):
                r.natural_dragon_triplets += 1
                r.anchored_dragon_triplets += 1
        else:
            r.chows += 1
    for kind, members in split:
        types = [x[0] for x in members]
        huns = [x[1] for x in members]
        natural = not any(huns)
        t = types[0]
        if kind == "triplet":
            r.triplets += 1
            r.natural_triplets += natural
            if T.is_dragon(t):
                r.natural_dragon_triplets += natural
                r.anchored_dragon_triplets += not all(huns)
        elif kind == "chow":
            r.chows += 1
            if not all(huns) and any(h and T.rank(x) in (1, 9) for x, h in members):
                r.borrow_yaojiu = True
            if natural and win is not None and win in types:
                a = t
                if win == a + 1 or (win == a + 2 and T.rank(a) == 1) or (win == a and T.rank(a) == 7):
                    r.danzhang = True
        else:
            r.pair_hun = sum(huns)
            r.pair_dragon = T.is_dragon(t) and not all(huns)
            r.pair_natural_28 = natural and T.is_two_or_eight(t)
            r.pair_anchored_28 = not all(huns) and T.is_two_or_eight(t)
            if natural and t == win:
                r.danzhang = True
    return r


def _key(r: Reading) -> tuple:
    return (
        r.triplets,
        r.chows,
        r.natural_triplets,
        r.natural_dragon_triplets,
        r.anchored_dragon_triplets,
        r.borrow_yaojiu,
        r.danzhang,
        r.pair_dragon,
        r.pair_natural_28,
        r.pair_anchored_28,
        r.pair_hun,
    )


def brute_standard_readings(
    counts: list[int],
    h: int,
    hun: int,
    melds: tuple[Meld, ...],
    win: int | None,
    *,
    borrow: bool,
    danzhang: bool,
    search: object = None,
) -> list[Reading]:
    """Same signature as `rules.decompose.standard_readings`, computed the slow way (no shared search)."""
    naturals = tuple((t, False) for t, c in enumerate(counts) for _ in range(c))
    types = range(T.N_TYPES)
    seen: dict[tuple, Reading] = {}
    for stand_ins in itertools.combinations_with_replacement(types, h):
        items = tuple(sorted(naturals + tuple((t, True) for t in stand_ins)))
        for split in _all_splits(items):
            r = _describe(split, melds, win)
            if not borrow:
                r.borrow_yaojiu = False
            if not danzhang:
                r.danzhang = False
            seen.setdefault(_key(r), r)
    return list(seen.values())


@lru_cache(maxsize=4096)
def _all_splits(items: tuple[Item, ...]) -> tuple:
    return tuple(_groups(items, True))


def brute_wait_types(hand: dict) -> set[str]:
    """W of SPEC [Amb-24] (revised 2026-12-01), read off the spec text for a hand-json dict: the tile
    types t, other than the 混 type, such that the winner's hand before the win with t as the winning
    tile, won the same way (self-draw, or on the same discarder's tile), is a valid win; a type of
    which the winner already holds four copies is not in W. Only the winner's own tiles are looked
    at: the other seats are dropped, the 宝/枪 too, and no one-off flag of the real win is set.

    Each candidate is scored through the parser; where the parser refuses a fourth copy of the
    indicator's type (the indicator is the table's, not the winner's), the candidate is scored from
    the parsed hand with the winning tile replaced.
    """
    from dataclasses import replace

    import rules

    winner = hand["winner"]
    own = hand["players"][winner]
    by = "self_draw" if hand["win"]["by"] == "self_draw" else "discard"
    base = {k: v for k, v in hand.items() if k not in ("players", "win", "bao_tile", "gun_tile")} | {
        "players": {winner: own}
    }
    hun = rules.score(hand).hun
    own_tiles = own["concealed"] + [t for m in own.get("melds", []) for t in m["tiles"]]
    out = set()
    for t in range(T.N_TYPES):
        code = T.code(t)
        if t == hun or own_tiles.count(code) >= 4:
            continue
        win = {"tile": code, "by": by} | ({} if by == "self_draw" else {"from": hand["win"]["from"]})
        h = base | {"win": win}
        problems = rules.check(h)
        if any(p.code == "WIND" for p in problems):
            continue  # not in this preset's tile set
        if not problems:
            result = rules.score(h)
        elif all(p.code == "COPIES" for p in problems):
            placeholder = next(u for u in T.CODES if not rules.check(base | {"win": {**win, "tile": u}}))
            parsed = rules.parse_hand(base | {"win": {**win, "tile": placeholder}})
            result = rules.score(replace(parsed, win=replace(parsed.win, tile=t)))
        else:
            raise AssertionError(f"candidate {code} refused: {problems}")
        if result.valid:
            out.add(code)
    return out
