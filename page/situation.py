"""From what the player confirmed on the page to the engine's hand JSON, and the tile count hint.

Why this module exists: the page collects tiles (read from a photo, then corrected) and a situation
(preset, seats, how the hand was won, …). Turning those into hand-json (see
`../shared/rules/hand-json.md`) is logic that must be unit-tested, and so is the one check that is
about the photo rather than the rules: a tile count that does not add up, with a hint that names
what to do on the page. Everything else wrong with a hand is the engine's judgement
(`rules.check`), put in player words by `page.explain`; the page keeps no copy of its checks.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from page.preset_view import discarded_hun_counts, extra_inputs, win_flags
from page.words import Words
from rules import tiles as T
from rules.hand import KONG_KINDS, SEATS
from rules.names import KIND_ZH
from rules.presets import PRESETS

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
    text: Words


# --------------------------------------------------------------------------------------------
# Count check


@dataclass(frozen=True)
class CountCheck:
    ok: bool
    got: int
    expected: int
    hint: Words


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
            k = KIND_ZH[kind]
            return CountCheck(
                False,
                got,
                expected,
                Words(
                    f"{k}是 {want} 张牌，有一组副露是 {len(ts)} 张：改它的种类或它的牌",
                    f"a {k} has {want} tiles but one meld has {len(ts)}: change its kind or its tiles",
                ),
            )
    kong_zh = f"（14 + {kongs} 张杠）" if kongs else ""
    kong_en = f" (14 + {kongs} for the kong{'s' if kongs > 1 else ''})" if kongs else ""
    if got == expected:
        return CountCheck(
            True,
            got,
            expected,
            Words(f"{got} 张{kong_zh}：张数对了", f"{got} tiles{kong_en}: the count is right"),
        )
    diff = got - expected
    if diff == -1:
        hint = Words(
            f"认出 {got} 张：少一张——把胡的那张加上？",
            f"{got} tiles read: one missing — add the tile you won on?",
        )
        if tiles.winning is not None:
            hint = Words(
                f"认出 {got} 张：少一张——把没认出的那张加上？",
                f"{got} tiles read: one missing — add the tile the detector missed?",
            )
    elif diff < -1:
        hint = Words(
            f"认出 {got} 张，胡牌应有 {expected} 张{kong_zh}：少 {-diff} 张——把没认出的牌加上",
            f"{got} tiles read, a winning hand has {expected}{kong_en}: {-diff} missing — add the tiles the detector missed",
        )
    elif diff == 1:
        hint = Words(
            f"认出 {got} 张：多一张——把多的那张（打出的牌、混指示牌、牌墙上的牌）设为“不在手里”？",
            f"{got} tiles read: one too many — mark the extra one as not in the hand "
            "(a discard, the 混 indicator, a tile of the wall)?",
        )
    else:
        hint = Words(
            f"认出 {got} 张，胡牌应有 {expected} 张{kong_zh}：多 {diff} 张——把不是赢家手里的牌（别人的牌、牌墙）设为“不在手里”",
            f"{got} tiles read, a winning hand has {expected}{kong_en}: {diff} too many — "
            "mark tiles that are not in the winner's hand (other players' tiles, the wall) as not in the hand",
        )
    return CountCheck(False, got, expected, hint)


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
    flags = set(win_flags(sit.preset))
    for key in ("kong_replacement", "last_tiles", "after_kong", "first_draw"):
        if getattr(sit, key) and key in flags:
            win[key] = True
    players: dict[str, dict] = {
        sit.winner: {
            "concealed": concealed,
            **({"melds": [{"kind": k, "tiles": list(ts)} for k, ts in tiles.melds]} if tiles.melds else {}),
            **({"discarded_hun": True} if sit.discarded_hun and discarded_hun_counts(sit.preset) else {}),
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
    for x in extra_inputs(sit.preset):
        value = getattr(sit, x.key, None)
        if x.kind == "tile" and value:
            hand[x.key] = value
        elif x.kind == "int" and value is not None:
            hand[x.key] = int(value)  # type: ignore[call-overload]
    return hand
