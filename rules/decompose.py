"""混-aware hand divider: every reading of the winner's concealed tiles (+ winning tile) (SPEC 4.1).

The search never lists readings one by one: most differ only in what a 混 stands for and score the
same. It walks the lowest remaining natural tile, memoised on (counts, 混 left, pair still needed),
and keeps for each sub-problem the set of distinct *summaries* — the few facts the win conditions
and 番 items read (横/顺 counts, natural 横, dragon 横, 借混靠幺九, 胡单张 shape, the pair's kind).
One witness per summary is kept, so the chosen reading can be rebuilt with every 混's stand-in.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from . import tiles as T
from .hand import Meld

# A summary is one int of 4-bit fields (cheap to hash and to combine in the memo). Count fields
# add up; flag fields are ORed (added, then a 2 folded back to 1).
_COUNTS = ("trip", "chow", "nat_trip", "nat_dragon", "anch_dragon", "pair_hun")
_FLAGS = ("borrow", "danzhang", "pair_dragon", "pair_nat28", "pair_anch28")
SHIFT = {name: 4 * i for i, name in enumerate(_COUNTS + _FLAGS)}
_FLAG_HIGH = sum(2 << SHIFT[f] for f in _FLAGS)
Summary = int


def field_of(summary: Summary, name: str) -> int:
    return (summary >> SHIFT[name]) & 15


@dataclass(frozen=True)
class Group:
    """One group of a reading: `tiles` are what it stands for; `hun_as` what its 混 tiles stand for."""

    kind: str  # pair | triplet | chow | chi | pong | kong | added_kong | concealed_kong
    tiles: tuple[int, ...]
    hun_as: tuple[int, ...] = ()
    meld: bool = False
    winning_tile: bool = False


@dataclass
class Reading:
    """A class of equivalent decompositions, described by the facts the rules read."""

    form: str  # standard | qidui | thirteen
    triplets: int = 0  # 横 in D (melds included, 混 allowed)
    chows: int = 0
    natural_triplets: int = 0
    natural_dragon_triplets: int = 0
    anchored_dragon_triplets: int = 0  # dragon 横 with >= 1 natural tile of that dragon
    borrow_yaojiu: bool = False  # a 混 stands for a 1/9 in a 顺子 with a natural tile
    danzhang: bool = False  # 胡单张 shape on a natural group holding the winning tile
    pair_dragon: bool = False  # the pair is a dragon with >= 1 natural tile of it
    pair_natural_28: bool = False
    pair_anchored_28: bool = False
    pair_hun: int = 0  # 混 in the pair (standard) / number of 混对 (qidui)
    groups: list[Group] = field(default_factory=list)
    rebuild: Callable[[], list[Group]] | None = None  # builds `groups` on demand (standard form)


def _combine(a: Summary, b: Summary) -> Summary:
    total = a + b
    high = total & _FLAG_HIGH
    return (total ^ high) | (high >> 1) if high else total


def _group_summary(**kw: int) -> Summary:
    return sum(int(value) << SHIFT[name] for name, value in kw.items())


# The few summaries one group can have, computed once (the search builds millions of groups).
_TRIPLET = {
    (natural, dragon): _group_summary(
        trip=1, nat_trip=natural, nat_dragon=natural and dragon, anch_dragon=dragon
    )
    for natural in (False, True)
    for dragon in (False, True)
}
_NATURAL_PAIR = {
    (dragon, two8, dz): _group_summary(pair_dragon=dragon, pair_nat28=two8, pair_anch28=two8, danzhang=dz)
    for dragon in (False, True)
    for two8 in (False, True)
    for dz in (False, True)
}
_HUN_PAIR = {
    (dragon, two8): _group_summary(pair_dragon=dragon, pair_anch28=two8, pair_hun=1)
    for dragon in (False, True)
    for two8 in (False, True)
}
_DRAGON = tuple(T.is_dragon(t) for t in range(T.N_TYPES))
_TWO8 = tuple(T.is_two_or_eight(t) for t in range(T.N_TYPES))
_TERMINAL = tuple(T.is_suited(t) and T.rank(t) in (1, 9) for t in range(T.N_TYPES))
_CHOW = {
    (borrow, dz): _group_summary(chow=1, borrow=borrow, danzhang=dz)
    for borrow in (False, True)
    for dz in (False, True)
}


class StandardSearch:
    """Memoised search for 4 sets + 1 pair over a 34-count vector of natural tiles plus `h` 混.

    Without 胡单张 tracking the memo does not depend on the winning tile, so one search can serve
    every candidate tile of a hand one tile short (`rules.waits`): their sub-problems overlap.
    """

    def __init__(self, hun: int, win: int | None, borrow: bool, danzhang: bool) -> None:
        self.hun = hun
        self.win = win
        self.track_borrow = borrow
        self.track_danzhang = danzhang and win is not None
        self.memo: dict[tuple, dict[Summary, tuple]] = {}

    def solve(self, counts: tuple[int, ...], h: int, need_pair: bool) -> dict[Summary, tuple]:
        key = (counts, h, need_pair)
        found = self.memo.get(key)
        if found is not None:
            return found
        out: dict[Summary, tuple] = {}
        t = next((i for i, c in enumerate(counts) if c), -1)
        if t < 0:
            self._leaf(h, need_pair, out)
        else:
            self._expand(counts, t, h, need_pair, out)
        self.memo[key] = out
        return out

    def _expand(self, counts: tuple[int, ...], t: int, h: int, need_pair: bool, out: dict) -> None:
        for group, gsum, new_counts, new_h, new_need in self._options(counts, t, h, need_pair):
            child_key = (new_counts, new_h, new_need)
            for csum in self.solve(new_counts, new_h, new_need):
                total = _combine(gsum, csum)
                if total not in out:
                    out[total] = (group, child_key, csum)

    def prime(self, counts: tuple[int, ...], t: int, h: int) -> None:
        """Solve `counts` by taking `t` first, where `t` is a single natural tile that no other natural
        tile can join (none of its type, none within two in its suit): its group holds only 混, so
        what is left is the same sub-problem for every such `t` and is solved once (`rules.waits`).
        The summaries are those `solve` finds (their set does not depend on the order of tiles)."""
        key = (counts, h, True)
        if key not in self.memo:
            out: dict[Summary, tuple] = {}
            self._expand(counts, t, h, True, out)
            self.memo[key] = out

    def _leaf(self, h: int, need_pair: bool, out: dict[Summary, tuple]) -> None:
        rest = h - (2 if need_pair else 0)
        if rest < 0 or rest % 3:
            return
        k = rest // 3
        for n_trip in range(k + 1):
            summary = _group_summary(trip=n_trip, chow=k - n_trip, pair_hun=2 if need_pair else 0)
            out[summary] = (("leaf", n_trip, k - n_trip, need_pair), None, None)

    def _options(self, counts: tuple[int, ...], t: int, h: int, need_pair: bool):
        c = counts[t]
        dragon = _DRAGON[t]
        # triplets with k natural copies and 3-k 混
        for k in range(min(c, 3), 0, -1):
            if 3 - k <= h:
                nc = list(counts)
                nc[t] -= k
                gsum = _TRIPLET[k == 3, dragon]
                yield ("triplet", (t, t, t), 3 - k), gsum, tuple(nc), h - (3 - k), need_pair
        # pair: natural or with one 混
        if need_pair:
            two8 = _TWO8[t]
            dz = self.track_danzhang and t == self.win
            if c >= 2:
                nc = list(counts)
                nc[t] -= 2
                gsum = _NATURAL_PAIR[dragon, two8, dz]
                yield ("pair", (t, t), 0), gsum, tuple(nc), h, False
            if h >= 1:
                nc = list(counts)
                nc[t] -= 1
                gsum = _HUN_PAIR[dragon, two8]
                yield ("pair", (t, t), 1), gsum, tuple(nc), h - 1, False
        # 顺子 containing t (t is the lowest natural left, so members below it are 混)
        if t < 27:
            r = t % 9  # rank - 1
            for a in (t - 2, t - 1, t):
                if a < t - r or a > t - r + 6:
                    continue
                m1, m2 = (x for x in (a, a + 1, a + 2) if x != t)
                natural1 = (True, False) if m1 > t and counts[m1] else (False,)
                natural2 = (True, False) if m2 > t and counts[m2] else (False,)
                for n1 in natural1:
                    for n2 in natural2:
                        hun_members = tuple(m for m, nat in ((m1, n1), (m2, n2)) if not nat)
                        used = len(hun_members)
                        if used > h:
                            continue
                        nc = list(counts)
                        nc[t] -= 1
                        if n1:
                            nc[m1] -= 1
                        if n2:
                            nc[m2] -= 1
                        borrow = self.track_borrow and any(_TERMINAL[m] for m in hun_members)
                        dz = self.track_danzhang and not used and self._danzhang_chow(a)
                        yield (
                            ("chow", (a, a + 1, a + 2), hun_members),
                            _CHOW[borrow, dz],
                            tuple(nc),
                            h - used,
                            need_pair,
                        )

    def _danzhang_chow(self, a: int) -> bool:
        """夹 (win is the middle tile) or 边 (12 completed by 3, 89 completed by 7)."""
        w = self.win
        return w == a + 1 or (w == a + 2 and T.rank(a) == 1) or (w == a and T.rank(a) == 7)

    def rebuild(self, counts: tuple[int, ...], h: int, summary: Summary) -> list[Group]:
        """The groups of one reading with this summary, 混 stand-ins filled in."""
        groups: list[Group] = []
        key: tuple | None = (counts, h, True)
        while key is not None:
            group, child_key, child_sum = self.memo[key][summary]
            if group[0] == "leaf":
                groups.extend(self._leaf_groups(*group[1:]))
                break
            kind, members, hun = group
            hun_as = tuple(hun) if kind == "chow" else (members[0],) * hun
            groups.append(Group(kind, members, hun_as))
            key, summary = child_key, child_sum
        return groups

    def _leaf_groups(self, n_trip: int, n_chow: int, pair: bool) -> list[Group]:
        """All-混 groups: any stand-in works; show the 混's own face (a run from it for a 顺子)."""
        h = self.hun
        run_start = h - h % 9 + min(h % 9, 6) if T.is_suited(h) else 0
        out = [Group("triplet", (h,) * 3, (h,) * 3) for _ in range(n_trip)]
        run = (run_start, run_start + 1, run_start + 2)
        out += [Group("chow", run, run) for _ in range(n_chow)]
        if pair:
            out.append(Group("pair", (h, h), (h, h)))
        return out


def within_reach(tiles: Iterable[int]) -> set[int]:
    """Tile types that could share a group (pair, triplet or 顺子) with one of `tiles`."""
    out: set[int] = set()
    for t in tiles:
        out.add(t)
        if t < 27:
            low = t - t % 9
            out.update(range(max(low, t - 2), min(low + 8, t + 2) + 1))
    return out


def _meld_summary(melds: tuple[Meld, ...]) -> Summary:
    s = 0
    for m in melds:
        t = m.tiles[0]
        if m.is_triplet:
            d = T.is_dragon(t)
            s = _combine(s, _group_summary(trip=1, nat_trip=1, nat_dragon=d, anch_dragon=d))
        else:
            s = _combine(s, _group_summary(chow=1))
    return s


def _mark_winning(groups: list[Group], win: int | None, want_danzhang: bool) -> list[Group]:
    """Choose which copy of the winning tile closes the hand (prefer a 胡单张 shape when scored)."""
    if win is None:
        return groups
    candidates = [i for i, g in enumerate(groups) if not g.meld and win in g.tiles and win not in g.hun_as]
    if not candidates:
        candidates = [i for i, g in enumerate(groups) if not g.meld and win in g.tiles]
    if not candidates:
        return groups
    pick = candidates[0]
    if want_danzhang:
        for i in candidates:
            g = groups[i]
            a = g.tiles[0]
            if g.hun_as:
                continue
            if g.kind == "pair" or (
                g.kind == "chow"
                and (win == a + 1 or (win == a + 2 and T.rank(a) == 1) or (win == a and T.rank(a) == 7))
            ):
                pick = i
                break
    g = groups[pick]
    groups[pick] = Group(g.kind, g.tiles, g.hun_as, g.meld, True)
    return groups


def standard_readings(
    counts: list[int],
    h: int,
    hun: int,
    melds: tuple[Meld, ...],
    win: int | None,
    *,
    borrow: bool,
    danzhang: bool,
    search: StandardSearch | None = None,
) -> list[Reading]:
    """Every distinct standard reading (4 sets + 1 pair with melds fixed), groups included.

    `search`: a search to reuse, built for the same 混 and `borrow` and without 胡单张 tracking.
    """
    if search is None or (danzhang and win is not None):
        search = StandardSearch(hun, win, borrow, danzhang)
    key = tuple(counts)
    found = search.solve(key, h, True)
    base = _meld_summary(melds)
    readings = []
    for s in found:
        total = _combine(s, base)
        f = lambda name, total=total: field_of(total, name)  # noqa: E731
        r = Reading(
            form="standard",
            triplets=f("trip"),
            chows=f("chow"),
            natural_triplets=f("nat_trip"),
            natural_dragon_triplets=f("nat_dragon"),
            anchored_dragon_triplets=f("anch_dragon"),
            borrow_yaojiu=bool(f("borrow")),
            danzhang=bool(f("danzhang")),
            pair_dragon=bool(f("pair_dragon")),
            pair_natural_28=bool(f("pair_nat28")),
            pair_anchored_28=bool(f("pair_anch28")),
            pair_hun=f("pair_hun"),
        )
        r.rebuild = _rebuilder(search, key, h, s, melds, win, r.danzhang)
        readings.append(r)
    return readings


def _rebuilder(search: StandardSearch, counts, h, summary, melds, win, danzhang) -> Callable[[], list[Group]]:
    """Groups are rebuilt only for the reading that is finally shown."""

    def build() -> list[Group]:
        groups = [Group(m.kind, m.tiles, (), True) for m in melds]
        groups += search.rebuild(counts, h, summary)
        return _mark_winning(groups, win, danzhang)

    return build


def groups_of(reading: Reading) -> list[Group]:
    if reading.rebuild is not None and not reading.groups:
        reading.groups = reading.rebuild()
    return list(reading.groups)


def qidui_reading(
    counts: list[int], h: int, hun: int, win: int | None, *, allow_hun_pair: bool
) -> Reading | None:
    """七对: 7 pairs from 14 concealed tiles; a natural four counts as two pairs; 混 pair with anything.

    Where 混 are left over they first split natural pairs (x+混, x+混), which keeps a 混对 out of the
    reading; natural 2/8 pairs are split last so that 二八将 survives when it can.
    """
    singles = [t for t, c in enumerate(counts) if c % 2]
    if len(singles) > h or (h - len(singles)) % 2:
        return None
    pairs = [t for t, c in enumerate(counts) for _ in range(c // 2)]
    extra = (h - len(singles)) // 2
    splits: list[int] = []
    if not allow_hun_pair:
        if extra > len(pairs):
            return None
        order = sorted(pairs, key=lambda t: T.is_two_or_eight(t))
        splits = order[:extra]
        extra = 0
    kept = list(pairs)
    for t in splits:
        kept.remove(t)
    groups = [Group("pair", (t, t)) for t in kept]
    groups += [Group("pair", (t, t), (t,)) for t in singles]
    groups += [Group("pair", (t, t), (t,)) for t in splits for _ in range(2)]
    groups += [Group("pair", (hun, hun), (hun, hun)) for _ in range(extra)]
    groups = _mark_winning(groups, win, False)
    return Reading(
        form="qidui",
        pair_natural_28=any(T.is_two_or_eight(t) for t in kept),
        pair_hun=extra,
        groups=groups,
    )


def thirteen_reading(counts: list[int], h: int, win: int | None) -> Reading | None:
    """Classic 十三幺 (anshan): one of each 幺九 type plus a 14th 幺九, 混 filling the gaps."""
    yaojiu = [t for t in range(T.N_TYPES) if T.is_yaojiu(t)]
    if any(c and not T.is_yaojiu(t) for t, c in enumerate(counts)):
        return None
    if any(c > 2 for c in counts) or sum(1 for c in counts if c == 2) > 1 or sum(counts) == 0:
        return None
    missing = [t for t in yaojiu if counts[t] == 0]
    dup = next((t for t, c in enumerate(counts) if c == 2), None)
    if h != len(missing) + (0 if dup is not None else 1):
        return None
    fill = list(missing)
    if dup is None:  # the 14th tile is a 混 standing for a copy of a held 幺九 (never a 混对)
        dup = next(t for t, c in enumerate(counts) if c)
        fill.append(dup)
    groups = [Group("single", (t,), (t,) if t in missing else ()) for t in yaojiu if t != dup]
    pair_hun = (dup,) if counts[dup] < 2 else ()
    groups.append(Group("pair", (dup, dup), pair_hun))
    return Reading(form="thirteen", groups=_mark_winning(groups, win, False))
