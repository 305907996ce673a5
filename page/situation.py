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

from page.preset_view import discarded_hun_counts, extra_inputs, win_flags
from page.words import Words
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
# Contradictions, in player words, before the engine sees the hand


def allowed_win_flags(preset: str) -> set[str]:
    """Which win flags mean something in a preset (the preset table says; the page hides the others)."""
    return set(win_flags(preset))


def _with_defaults(preset: str, options: Mapping[str, object]) -> dict[str, object]:
    """Every option of the preset: what the player set where the preset accepts it, else the default
    (the checks below must not fail on an option the engine will reject with its own message)."""
    return {
        name: options[name] if name in options and opt.accepts(options[name]) else opt.default
        for name, opt in PRESETS[preset].options.items()
    }


_WIN_BY_EN = {"self_draw": "self-draw", "discard": "a discard", "robbed_kong": "a robbed kong"}


def contradictions(tiles: WinnerTiles, sit: Situation) -> list[Problem]:
    """Everything that makes the hand malformed, each explained where the player set it."""
    out: list[Problem] = []

    def add(where: str, zh: str, en: str) -> None:
        out.append(Problem(where, Words(zh, en)))

    if sit.preset not in PRESETS:
        return [Problem("preset", Words(f"不认识的规则 {sit.preset}", f"unknown rule set {sit.preset}"))]
    options = _with_defaults(sit.preset, sit.options)
    winds = has_winds(PRESETS[sit.preset], options)
    kongs = [k for k, _ in tiles.melds if k in KONG_KINDS]
    if sit.indicator is None:
        add(
            "indicator",
            "请选混指示牌（开局翻开的那张）",
            "pick the 混 indicator tile (the tile turned face up at the start)",
        )
    if tiles.winning is None:
        add(
            "winning", "胡的是哪张？请选胡的那张牌", "which tile did the winner win on? pick the winning tile"
        )
    if sit.win_by != "self_draw":
        how = WIN_BY_ZH[sit.win_by]
        if sit.discarder is None:
            if sit.win_by == "discard":
                add("discarder", f"{how}：谁点的炮？", f"{how}: who discarded?")
            else:
                add("discarder", f"{how}：抢的是谁的杠？", f"{how}: who was robbed?")
        elif sit.discarder == sit.winner:
            add(
                "discarder",
                f"{how}：赢家不能点自己的炮——请选别的座位",
                f"{how}: the winner cannot feed his own win — pick another seat",
            )
    if sit.kong_replacement:
        if sit.win_by != "self_draw":
            how = WIN_BY_ZH[sit.win_by]
            add(
                "kong_replacement",
                f"杠上开是摸自己的杠后补牌胡的，不能是{how}：取消杠上开，或选自摸",
                f"杠上开 is a win on your own replacement tile, so it cannot be {how}: untick 杠上开 or choose 自摸",
            )
        elif not kongs:
            add(
                "kong_replacement",
                "杠上开要赢家有杠：把杠加上，或取消杠上开",
                "杠上开 needs a 杠 among the winner's melds: add the kong or untick 杠上开",
            )
    if sit.after_kong:
        if sit.win_by != "discard":
            add(
                "after_kong",
                "流泪是点炮的人刚杠完打出的牌：选点炮，或取消流泪",
                "流泪 is a discard right after the discarder's own kong: choose 点炮 or untick 流泪",
            )
        elif sit.discarder and not any(k in KONG_KINDS for k, _ in sit.loser_melds.get(sit.discarder, [])):
            seat = seat_name(sit.discarder)
            add(
                "after_kong",
                f"流泪：在{seat}的副露里写上他刚杠的牌，或取消流泪",
                f"流泪: enter the kong {seat} just made among his melds, or untick 流泪",
            )
    if sit.first_draw:
        if sit.win_by == "robbed_kong" or sit.kong_replacement:
            add(
                "first_draw",
                "地胡在任何人开杠之前：取消地胡",
                "地胡 happens before anyone makes a kong: untick 地胡",
            )
        elif tiles.melds or any(sit.loser_melds.get(s) for s in SEATS if s != sit.winner):
            add(
                "first_draw",
                "地胡在任何吃、碰、杠之前，但填了副露：取消地胡或删掉副露",
                "地胡 happens before any 吃/碰/杠, but melds are entered: untick 地胡 or remove them",
            )
        elif sit.winner == sit.dealer:
            add(
                "first_draw",
                "地胡是闲家胡的（天胡不算）：取消地胡",
                "地胡 is a win by a player who is not the dealer (天胡 is not scored): untick 地胡",
            )
    if sit.win_by == "robbed_kong" and sit.discarder and tiles.winning:
        robbed = sit.loser_melds.get(sit.discarder, [])
        if not any(k == "pong" and ts and ts[0] == tiles.winning for k, ts in robbed):
            t, seat = tile_name(tiles.winning), seat_name(sit.discarder)
            add(
                "loser_melds",
                f"抢杠：在{seat}的副露里写上他要补杠的碰{t}（写 碰{tiles.winning}）",
                f"抢杠: enter the 碰 {t} that {seat} was turning into a kong (write 碰{tiles.winning} in his melds)",
            )
    # tiles: faces, winds, the 混 and the four-copies limit
    hun = None
    indicator = T.parse_code(sit.indicator)
    if indicator is not None:
        hun = T.code(T.hun_of(indicator, wind_order(PRESETS[sit.preset], options)))
    everything: list[tuple[Words, str]] = [(_HAND, t) for t in tiles.all_tiles()]
    if tiles.winning is not None and tiles.winning_in_concealed and tiles.winning not in tiles.concealed:
        t = tile_name(tiles.winning)
        add("winning", f"胡的那张{t}不在手牌里", f"the winning tile {t} is not among the standing tiles")
    for seat, melds in sit.loser_melds.items():
        if seat == sit.winner:
            continue
        where = Words(f"{seat_name(seat)}的副露", f"the melds of {seat_name(seat)}")
        everything += [(where, t) for _, ts in melds for t in ts]
    if sit.indicator is not None:
        everything.append((Words("混指示牌", "the 混 indicator"), sit.indicator))
    for x in extra_inputs(sit.preset):
        value = getattr(sit, x.key, None)
        if x.kind == "tile" and value is not None:
            everything.append((x.label, value))
    backs = [w for w, t in everything if t == "back"]
    if backs:
        add(
            "tiles",
            f"{backs[0].zh}里有一张背面：请说出是哪张牌（暗杠可以扣着——把这组副露设为暗杠）",
            f"a face-down tile (背面) in {backs[0].en}: say which tile it is "
            "(a 暗杠 may show backs — set the meld's kind to 暗杠)",
        )
    for where, t in everything:
        code = T.parse_code(t)
        if code is None and t != "back":
            add("tiles", f"“{t}”不是牌", f"“{t}” is not a tile")
        elif code is not None and T.is_wind(code) and not winds:
            title = PRESETS[sit.preset].title
            add(
                "tiles",
                f"{where.zh}里有{tile_name(t)}：{title}不带风牌——改这张牌，或选辽阳在线/鞍山规则",
                f"{tile_name(t)} in {where.en}: {title} is played without winds — fix the tile or pick the 辽阳在线/鞍山 rules",
            )
            break
    if hun is not None:
        for kind, ts in tiles.melds + [m for s, ms in sit.loser_melds.items() if s != sit.winner for m in ms]:
            if hun in ts:
                h, k = tile_name(hun), KIND_ZH[kind]
                add(
                    "melds",
                    f"这局{h}是混，混不能在{k}里：检查混指示牌或这组副露",
                    f"{h} is the 混 this hand and can never be in a {k}: check the indicator or the meld",
                )
                break
        if sit.win_by != "self_draw" and tiles.winning == hun:
            h = tile_name(hun)
            add(
                "winning",
                f"{h}是混：打出的混不能胡——是自摸吗？",
                f"{h} is the 混: a discarded 混 cannot be won on — was it 自摸?",
            )
    counts = Counter(t for _, t in everything if t != "back" and T.parse_code(t) is not None)
    for t, n in sorted(counts.items()):
        if n > 4:
            add(
                "tiles",
                f"{n} 张{tile_name(t)}：每种牌只有 4 张——有一张认错了",
                f"{n}× {tile_name(t)}: there are only 4 of each tile — one is misread",
            )
    return out


_HAND = Words("赢家手牌", "the winner's hand")


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
