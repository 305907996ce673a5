"""Hypothesis strategies: random but well-formed hands (mostly winning shapes, some not)."""

from __future__ import annotations

from collections import Counter

from hypothesis import strategies as st

from rules import tiles as T
from rules.hand import SEATS
from rules.presets import PRESETS as PRESET_TABLE
from rules.presets import wind_order as preset_wind_order

PRESETS = ("liaoyang", "liaoyang-online", "anshan")
#: The options of SPEC [Amb-24], [Amb-36], [Amb-B1], drawn at random so every property covers them.
REVISED_OPTIONS: dict[str, dict[str, tuple]] = {
    "liaoyang": {"danzhang_wait": ("shape", "single")},
    "liaoyang-online": {"requires_ke": (False, True)},
    "anshan": {"wind_cycle": ("东西南北", "东南西北")},
}


def _tile_set(preset: str) -> list[int]:
    return [t for t in range(T.N_TYPES) if preset != "liaoyang" or not T.is_wind(t)]


@st.composite
def hands(draw, max_hun: int = 4, min_melds_for_many_hun: int = 0) -> dict:
    """A hand-json dict for a random winner; losers get random open/closed melds."""
    preset = draw(st.sampled_from(PRESETS))
    types = _tile_set(preset)
    indicator = draw(st.sampled_from(types))
    options = {key: draw(st.sampled_from(values)) for key, values in REVISED_OPTIONS[preset].items()}
    hun = T.hun_of(indicator, preset_wind_order(PRESET_TABLE[preset], options))
    used: Counter[int] = Counter({indicator: 1})

    def take(t: int) -> bool:
        if used[t] >= 4:
            return False
        used[t] += 1
        return True

    n_hun = draw(st.integers(0, max_hun))
    n_melds = draw(st.integers(0, 3))
    if n_hun >= 3:
        n_melds = max(n_melds, min_melds_for_many_hun)
    winner_melds = []
    for _ in range(n_melds):
        kind = draw(st.sampled_from(["chi", "pong", "pong", "kong", "concealed_kong", "added_kong"]))
        if kind == "chi":
            suited = [t for t in types if T.is_suited(t) and T.rank(t) <= 7 and hun not in (t, t + 1, t + 2)]
            t = draw(st.sampled_from(suited))
            tiles = [t, t + 1, t + 2]
        else:
            t = draw(st.sampled_from([x for x in types if x != hun]))
            tiles = [t] * (4 if "kong" in kind else 3)
        if all(used[x] + tiles.count(x) <= 4 for x in set(tiles)):
            for x in tiles:
                take(x)
            winner_melds.append({"kind": kind, "tiles": [T.code(x) for x in tiles]})
    n_concealed = 14 - 3 * len(winner_melds)
    shaped = draw(st.integers(0, 3)) > 0  # mostly winning shapes
    concealed: list[int] = []
    n_hun = min(n_hun, 4 - used[hun], n_concealed)
    for _ in range(n_hun):
        take(hun)
        concealed.append(hun)
    naturals = [t for t in types if t != hun]
    if shaped:  # build sets + pair, so that most of these hands win
        attempts = 0
        while len(concealed) < n_concealed and attempts < 60:
            attempts += 1
            room = n_concealed - len(concealed)
            size = 2 if room % 3 == 2 and draw(st.booleans()) else 3
            size = min(size, room)
            t = draw(st.sampled_from(naturals))
            chow = size == 3 and T.is_suited(t) and T.rank(t) <= 7 and draw(st.booleans())
            group = [t, t + 1, t + 2] if chow else [t] * size
            if hun in group or any(used[x] + group.count(x) > 4 for x in set(group)):
                continue
            for x in group:
                take(x)
            concealed += group
    while len(concealed) < n_concealed:
        t = draw(st.sampled_from(naturals))
        if take(t):
            concealed.append(t)
    concealed = draw(st.permutations(concealed))
    win_idx = draw(st.integers(0, len(concealed) - 1))
    win_tile = concealed[win_idx]
    rest = concealed[:win_idx] + concealed[win_idx + 1 :]
    winner = draw(st.sampled_from(SEATS))
    by = draw(st.sampled_from(["self_draw", "discard", "discard", "robbed_kong"]))
    if win_tile == hun:
        by = "self_draw"
    others = [s for s in SEATS if s != winner]
    players: dict = {winner: {"concealed": [T.code(t) for t in rest], "melds": winner_melds}}
    for s in others:
        melds = []
        for _ in range(draw(st.integers(0, 2))):
            t = draw(st.sampled_from(naturals))
            kind = draw(st.sampled_from(["pong", "kong", "concealed_kong"]))
            n = 3 if kind == "pong" else 4
            if used[t] + n <= 4:
                for _ in range(n):
                    take(t)
                melds.append({"kind": kind, "tiles": [T.code(t)] * n})
        players[s] = {"melds": melds}
    hand: dict = {
        "version": 1,
        "preset": preset,
        "options": options,
        "dealer": draw(st.sampled_from(SEATS)),
        "indicator": T.code(indicator),
        "winner": winner,
        "win": {"tile": T.code(win_tile), "by": by},
        "players": players,
    }
    if by != "self_draw":
        source = draw(st.sampled_from(others))
        hand["win"]["from"] = source
        if by == "robbed_kong":
            if used[win_tile] <= 1 and win_tile != indicator:  # room for the robbed pong
                for _ in range(3):
                    take(win_tile)
                players[source]["melds"] = [{"kind": "pong", "tiles": [T.code(win_tile)] * 3}]
            else:
                hand["win"]["by"] = "discard"
    elif any("kong" in m["kind"] for m in winner_melds) and draw(st.booleans()):
        hand["win"]["kong_replacement"] = True
    free = [t for t in types if used[t] < 4]
    if free:
        extra = T.code(draw(st.sampled_from(free)))
        hand["gun_tile" if preset == "anshan" else "bao_tile"] = extra
    return hand
