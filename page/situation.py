"""From what the player confirmed on the page to the engine's hand JSON, and what must be fixed first.

Why this module exists: the page collects tiles (read from a photo, then corrected) and a situation
(preset, seats, how the hand was won, …) as loose widgets. Turning those into hand-json (see
`../shared/rules/hand-json.md`) is logic that must be unit-tested, and so is everything a player has
to fix *before* the engine sees the hand: a tile count that does not add up, or a flag that
contradicts the win ("杠上开 on a discard"). These problems are sentences naming tiles, seats and
buttons; what the engine itself answers is put in player words by `page.explain`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field

from rules import tiles as T
from rules.hand import KONG_KINDS, SEATS
from rules.names import KIND_ZH, WIN_BY_ZH, seat_name, tile_name
from rules.presets import PRESETS, has_winds, wind_order

# --------------------------------------------------------------------------------------------
# Inputs


@dataclass
class WinnerTiles:
    """The winner's tiles as confirmed on the page.

    `concealed` are the standing tiles *including* the winning tile when it stands in the row (a
    photo often shows it there); `winning` names the tile he won on. `melds` are (kind, codes).
    """

    concealed: list[str]
    melds: list[tuple[str, list[str]]] = field(default_factory=list)
    winning: str | None = None
    winning_in_concealed: bool = True

    def all_tiles(self) -> list[str]:
        """Every tile of the complete hand (winning tile once)."""
        out = list(self.concealed) + [t for _, ts in self.melds for t in ts]
        if self.winning is not None and not self.winning_in_concealed:
            out.append(self.winning)
        return out


@dataclass
class Situation:
    """Everything about the hand that is not on the winner's tiles."""

    preset: str = "liaoyang"
    options: dict[str, object] = field(default_factory=dict)
    indicator: str | None = None
    dealer: str = "E"
    winner: str = "E"
    win_by: str = "self_draw"  # self_draw | discard | robbed_kong
    discarder: str | None = None  # the discarder, or the robbed player
    kong_replacement: bool = False  # 杠上开
    last_tiles: bool = False  # 海底捞
    after_kong: bool = False  # 流泪 / 反弹
    first_draw: bool = False  # 地胡
    discarded_hun: bool = False  # 打过混: the winner discarded a 混 this hand (Liaoyang: he cannot win)
    loser_melds: dict[str, list[tuple[str, list[str]]]] = field(default_factory=dict)
    bao_tile: str | None = None
    gun_tile: str | None = None
    room_multiplier: int = 1
    changmao: int = 0


@dataclass(frozen=True)
class Problem:
    """Something the player must fix before scoring; `where` names the widget, `text` says what."""

    where: str
    text: str


# --------------------------------------------------------------------------------------------
# Count check


@dataclass(frozen=True)
class CountCheck:
    ok: bool
    got: int
    expected: int
    hint: str


def meld_kind_for(tiles: list[str]) -> str | None:
    """The kind a group of face codes looks like (for a meld the player grouped by hand)."""
    faces = [t for t in tiles if t != "back"]
    if len(tiles) == 4:
        return "concealed_kong" if len(faces) < 4 else ("kong" if len(set(faces)) == 1 else None)
    if len(tiles) == 3 and len(faces) == 3:
        if len(set(faces)) == 1:
            return "pong"
        idx = [T.parse_code(f) for f in faces]
        if None not in idx and all(T.is_suited(i) for i in idx):  # type: ignore[arg-type]
            a, b, c = sorted(idx)  # type: ignore[type-var]
            if T.suit_of(a) == T.suit_of(c) and b == a + 1 and c == b + 1:
                return "chi"
    return None


def count_check(tiles: WinnerTiles) -> CountCheck:
    """Winner: 14 tiles + one per kong (the winning tile included), with a hint a player understands."""
    kongs = sum(1 for kind, _ in tiles.melds if kind in KONG_KINDS)
    expected = 14 + kongs
    got = len(tiles.all_tiles())
    for kind, ts in tiles.melds:
        want = 4 if kind in KONG_KINDS else 3
        if len(ts) != want:
            return CountCheck(
                False,
                got,
                expected,
                f"a {KIND_ZH[kind]} has {want} tiles but one meld has {len(ts)}: change its kind or its tiles",
            )
    kong_note = f" (14 + {kongs} for the kong{'s' if kongs > 1 else ''})" if kongs else ""
    if got == expected:
        return CountCheck(True, got, expected, f"{got} tiles{kong_note}: the count is right")
    diff = got - expected
    if diff == -1:
        hint = f"{got} tiles read: one missing — add the tile you won on?"
        if tiles.winning is not None:
            hint = f"{got} tiles read: one missing — add the tile the detector missed?"
    elif diff < -1:
        hint = f"{got} tiles read, a winning hand has {expected}{kong_note}: {-diff} missing — add the tiles the detector missed"
    elif diff == 1:
        hint = (
            f"{got} tiles read: one too many — mark the extra one as not in the hand "
            "(a discard, the 混 indicator, a tile of the wall)?"
        )
    else:
        hint = (
            f"{got} tiles read, a winning hand has {expected}{kong_note}: {diff} too many — "
            "mark tiles that are not in the winner's hand (other players' tiles, the wall) as not in the hand"
        )
    return CountCheck(False, got, expected, hint)


# --------------------------------------------------------------------------------------------
# Contradictions, in player words, before the engine sees the hand


def allowed_win_flags(preset: str) -> set[str]:
    """Which win flags mean something in a preset (the page hides the others)."""
    if preset == "anshan":
        return {"kong_replacement"}
    if preset == "liaoyang-online":
        return {"kong_replacement", "last_tiles", "after_kong"}
    return {"kong_replacement", "last_tiles", "after_kong", "first_draw"}


def _with_defaults(preset: str, options: Mapping[str, object]) -> dict[str, object]:
    """Every option of the preset: what the player set where the preset accepts it, else the default
    (the checks below must not fail on an option the engine will reject with its own message)."""
    return {
        name: options[name] if name in options and opt.accepts(options[name]) else opt.default
        for name, opt in PRESETS[preset].options.items()
    }


def contradictions(tiles: WinnerTiles, sit: Situation) -> list[Problem]:
    """Everything that makes the hand malformed, each explained where the player set it."""
    out: list[Problem] = []
    if sit.preset not in PRESETS:
        return [Problem("preset", f"unknown rule set {sit.preset}")]
    options = _with_defaults(sit.preset, sit.options)
    winds = has_winds(PRESETS[sit.preset], options)
    kongs = [k for k, _ in tiles.melds if k in KONG_KINDS]
    if sit.indicator is None:
        out.append(Problem("indicator", "pick the 混 indicator tile (the tile turned face up at the start)"))
    if tiles.winning is None:
        out.append(Problem("winning", "which tile did the winner win on? pick the winning tile"))
    if sit.win_by != "self_draw":
        how = WIN_BY_ZH[sit.win_by]
        if sit.discarder is None:
            out.append(
                Problem(
                    "discarder", f"{how}: who {'discarded' if sit.win_by == 'discard' else 'was robbed'}?"
                )
            )
        elif sit.discarder == sit.winner:
            out.append(Problem("discarder", f"{how}: the winner cannot feed his own win — pick another seat"))
    if sit.kong_replacement:
        if sit.win_by != "self_draw":
            out.append(
                Problem(
                    "kong_replacement",
                    f"杠上开 is a win on your own replacement tile, so it cannot be {WIN_BY_ZH[sit.win_by]}: untick 杠上开 or choose 自摸",
                )
            )
        elif not kongs:
            out.append(
                Problem(
                    "kong_replacement",
                    "杠上开 needs a 杠 among the winner's melds: add the kong or untick 杠上开",
                )
            )
    if sit.after_kong:
        if sit.win_by != "discard":
            out.append(
                Problem(
                    "after_kong",
                    "流泪 is a discard right after the discarder's own kong: choose 点炮 or untick 流泪",
                )
            )
        elif sit.discarder and not any(k in KONG_KINDS for k, _ in sit.loser_melds.get(sit.discarder, [])):
            out.append(
                Problem(
                    "after_kong",
                    f"流泪: enter the kong {seat_name(sit.discarder)} just made among his melds, or untick 流泪",
                )
            )
    if sit.first_draw:
        if sit.win_by == "robbed_kong" or sit.kong_replacement:
            out.append(Problem("first_draw", "地胡 happens before anyone makes a kong: untick 地胡"))
        elif tiles.melds or any(sit.loser_melds.get(s) for s in SEATS if s != sit.winner):
            out.append(
                Problem(
                    "first_draw",
                    "地胡 happens before any 吃/碰/杠, but melds are entered: untick 地胡 or remove them",
                )
            )
        elif sit.winner == sit.dealer:
            out.append(
                Problem(
                    "first_draw",
                    "地胡 is a win by a player who is not the dealer (天胡 is not scored): untick 地胡",
                )
            )
    if sit.win_by == "robbed_kong" and sit.discarder and tiles.winning:
        robbed = sit.loser_melds.get(sit.discarder, [])
        if not any(k == "pong" and ts and ts[0] == tiles.winning for k, ts in robbed):
            out.append(
                Problem(
                    "loser_melds",
                    f"抢杠: enter the 碰 {tile_name(tiles.winning)} that {seat_name(sit.discarder)} was turning into a kong "
                    f"(write 碰{tiles.winning} in his melds)",
                )
            )
    # tiles: faces, winds, the 混 and the four-copies limit
    hun = None
    indicator = T.parse_code(sit.indicator)
    if indicator is not None:
        hun = T.code(T.hun_of(indicator, wind_order(PRESETS[sit.preset], options)))
    everything = [("hand", t) for t in tiles.all_tiles()]
    if tiles.winning is not None and tiles.winning_in_concealed and tiles.winning not in tiles.concealed:
        out.append(
            Problem("winning", f"the winning tile {tile_name(tiles.winning)} is not among the standing tiles")
        )
    for seat, melds in sit.loser_melds.items():
        if seat == sit.winner:
            continue
        everything += [(f"melds of {seat_name(seat)}", t) for _, ts in melds for t in ts]
    if sit.indicator is not None:
        everything.append(("indicator", sit.indicator))
    extra = sit.bao_tile if sit.preset != "anshan" else sit.gun_tile
    if extra is not None:
        everything.append(("宝" if sit.preset != "anshan" else "枪", extra))
    backs = [w for w, t in everything if t == "back"]
    if backs:
        where = "the winner's hand" if backs[0] == "hand" else backs[0]
        out.append(
            Problem(
                "tiles",
                f"a face-down tile (背面) in {where}: say which tile it is (a 暗杠 may show backs — set the meld's kind to 暗杠)",
            )
        )
    for where, t in everything:
        code = T.parse_code(t)
        if code is None and t != "back":
            out.append(Problem("tiles", f"“{t}” is not a tile"))
        elif code is not None and T.is_wind(code) and not winds:
            where_s = "the winner's hand" if where == "hand" else where
            out.append(
                Problem(
                    "tiles",
                    f"{tile_name(t)} in {where_s}: {PRESETS[sit.preset].title} is played without winds — fix the tile or pick the 辽阳在线/鞍山 rules",
                )
            )
            break
    if hun is not None:
        for kind, ts in tiles.melds + [m for s, ms in sit.loser_melds.items() if s != sit.winner for m in ms]:
            if hun in ts:
                out.append(
                    Problem(
                        "melds",
                        f"{tile_name(hun)} is the 混 this hand and can never be in a {KIND_ZH[kind]}: check the indicator or the meld",
                    )
                )
                break
        if sit.win_by != "self_draw" and tiles.winning == hun:
            out.append(
                Problem(
                    "winning", f"{tile_name(hun)} is the 混: a discarded 混 cannot be won on — was it 自摸?"
                )
            )
    counts = Counter(t for _, t in everything if t != "back" and T.parse_code(t) is not None)
    for t, n in sorted(counts.items()):
        if n > 4:
            out.append(
                Problem("tiles", f"{n}× {tile_name(t)}: there are only 4 of each tile — one is misread")
            )
    return out


# --------------------------------------------------------------------------------------------
# The hand JSON


def build_hand(tiles: WinnerTiles, sit: Situation) -> dict:
    """The hand-json dict (version 1) for the engine; raises ValueError when the winning tile is unset.

    Only keys that apply to the preset are written, so the JSON a player copies stays readable.
    """
    if tiles.winning is None:
        raise ValueError("no winning tile")
    concealed = list(tiles.concealed)
    if tiles.winning_in_concealed and tiles.winning in concealed:
        # the winning tile stands in the row: hand-json lists the concealed tiles without it
        concealed.reverse()
        concealed.remove(tiles.winning)
        concealed.reverse()
    win: dict[str, object] = {"tile": tiles.winning, "by": sit.win_by}
    if sit.win_by != "self_draw" and sit.discarder is not None:
        win["from"] = sit.discarder
    flags = allowed_win_flags(sit.preset)
    for key in ("kong_replacement", "last_tiles", "after_kong", "first_draw"):
        if getattr(sit, key) and key in flags:
            win[key] = True
    players: dict[str, dict] = {
        sit.winner: {
            "concealed": concealed,
            **({"melds": [{"kind": k, "tiles": list(ts)} for k, ts in tiles.melds]} if tiles.melds else {}),
            **(
                {"discarded_hun": True}
                if sit.discarded_hun and PRESETS[sit.preset].discarded_hun_bars_win
                else {}
            ),
        }
    }
    for seat in SEATS:
        if seat == sit.winner:
            continue
        melds = sit.loser_melds.get(seat) or []
        players[seat] = {"melds": [{"kind": k, "tiles": list(ts)} for k, ts in melds]} if melds else {}
    preset = PRESETS[sit.preset]
    options = {k: v for k, v in sit.options.items() if k in preset.options and v != preset.options[k].default}
    hand: dict[str, object] = {
        "version": 1,
        "preset": sit.preset,
        "options": options,
        "dealer": sit.dealer,
        "indicator": sit.indicator,
        "winner": sit.winner,
        "win": win,
        "players": players,
    }
    if sit.preset == "anshan":
        if sit.gun_tile:
            hand["gun_tile"] = sit.gun_tile
    elif sit.bao_tile:
        hand["bao_tile"] = sit.bao_tile
    if sit.preset == "liaoyang-online":
        hand["room_multiplier"] = int(sit.room_multiplier)
        hand["changmao"] = int(sit.changmao)
    return hand
