"""From what the player confirmed on the page to the engine's hand JSON, and back to player words.

Why this module exists: the page collects tiles (read from a photo, then corrected) and a situation
(preset, seats, how the hand was won, …) as loose widgets. Turning those into hand-json (see
`../shared/rules/hand-json.md`) is logic that must be unit-tested, and so is everything a player has
to read *instead of* an engine error: a tile count that does not add up, a flag that contradicts the
win ("杠上开 on a discard"), or a hand that cannot win. The engine's own messages name JSON fields;
the page shows these sentences, which name tiles, seats and buttons.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from . import tiles as T
from .errors import HandError
from .hand import KONG_KINDS, SEATS
from .presets import PRESETS
from .result import ScoreResult

SEAT_ZH = {"E": "东家", "S": "南家", "W": "西家", "N": "北家"}
KIND_ZH = {"chi": "吃", "pong": "碰", "kong": "明杠", "added_kong": "补杠", "concealed_kong": "暗杠"}
WIN_BY_ZH = {"self_draw": "自摸", "discard": "点炮", "robbed_kong": "抢杠"}
PRESET_SHORT = {"liaoyang": "辽阳", "liaoyang-online": "辽阳在线", "anshan": "鞍山"}
SUIT_ZH = {0: "万", 1: "饼", 2: "条"}


def tile_name(code: str | None) -> str:
    """一万 … 九条, 东 … 白 for a tile code; `back` is 背面; unknown codes are shown as given."""
    if code is None:
        return "—"
    if code == "back":
        return "背面"
    t = T.parse_code(code)
    return T.ZH_NAMES[T.code(t)] if t is not None else str(code)


def seat_name(seat: str | None) -> str:
    return SEAT_ZH.get(str(seat), str(seat))


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
# Quick text entry: "碰7p 吃345m 暗杠中", "123m 456p 11s"

_KIND_WORDS = {
    "吃": "chi",
    "chi": "chi",
    "chow": "chi",
    "碰": "pong",
    "pong": "pong",
    "pung": "pong",
    "杠": "kong",
    "明杠": "kong",
    "kong": "kong",
    "补杠": "added_kong",
    "added_kong": "added_kong",
    "暗杠": "concealed_kong",
    "concealed_kong": "concealed_kong",
}
_HONOUR_CHARS = "东南西北中发白東發"
_TILE_RUN = re.compile(r"([1-9]+)\s*([mpsMPS万萬饼筒条條索])|([ESWNCFP东南西北中发白東發])")
_SUIT_ALIAS = {"万": "m", "萬": "m", "饼": "p", "筒": "p", "条": "s", "條": "s", "索": "s"}


def parse_tiles(text: str) -> list[str]:
    """Tiles typed as a player writes them: `123m 456p 11s 中中`, `1m2m3m`, `东 南`.

    Raises ValueError with a plain sentence naming the part it cannot read.
    """
    out: list[str] = []
    pos = 0
    s = text.strip()
    while pos < len(s):
        if s[pos] in " ,，;；、":
            pos += 1
            continue
        m = _TILE_RUN.match(s, pos)
        if not m:
            raise ValueError(f"cannot read “{s[pos:pos + 6]}” as tiles (write e.g. 123m 55p 中)")
        if m.group(1):
            suit = m.group(2).lower()
            suit = _SUIT_ALIAS.get(suit, suit)
            out += [f"{d}{suit}" for d in m.group(1)]
        else:
            ch = m.group(3)
            code = T.ALIASES.get(ch, ch)
            out.append(code)
        pos = m.end()
    return out


def parse_melds(text: str) -> list[tuple[str, list[str]]]:
    """Open melds typed quickly: `碰7p, 吃345m, 暗杠中, 补杠9m` (empty = no melds = closed).

    A 碰/杠 may name one tile (it is repeated); a 吃 may name its lowest tile (`吃3m` = 3m4m5m).
    Raises ValueError with a plain sentence on anything it cannot read.
    """
    melds: list[tuple[str, list[str]]] = []
    words = sorted(_KIND_WORDS, key=len, reverse=True)
    s = text.strip()
    pos = 0
    while pos < len(s):
        if s[pos] in " ,，;；、":
            pos += 1
            continue
        kind = None
        for w in words:
            if s[pos : pos + len(w)].lower() == w:
                kind, pos = _KIND_WORDS[w], pos + len(w)
                break
        if kind is None:
            raise ValueError(f"each meld starts with 吃, 碰, 明杠, 补杠 or 暗杠 (at “{s[pos:pos + 6]}”)")
        end = pos
        while end < len(s) and not any(s[end:].lower().startswith(w) for w in words) and s[end] not in ",，;；、":
            end += 1
        chunk = s[pos:end]
        pos = end
        tiles = parse_tiles(chunk)
        label = KIND_ZH[kind]
        if not tiles:
            raise ValueError(f"{label}: which tile?")
        want = 4 if kind in KONG_KINDS else 3
        if kind == "chi":
            if len(tiles) == 1:
                t = T.parse_code(tiles[0])
                if t is None or not T.is_suited(t) or T.rank(t) > 7:
                    raise ValueError(f"吃 {chunk.strip()}: a 吃 is three tiles in a row of one suit")
                tiles = [T.code(t), T.code(t + 1), T.code(t + 2)]
        elif len(tiles) == 1:
            tiles = tiles * want
        if len(tiles) != want:
            raise ValueError(f"{label} {chunk.strip()}: a {label} has {want} tiles, not {len(tiles)}")
        melds.append((kind, tiles))
    return melds


def format_melds(melds: Iterable[tuple[str, list[str]]]) -> str:
    """The quick-entry text for melds (inverse of `parse_melds`), for prefilling inputs."""
    parts = []
    for kind, tiles in melds:
        if kind == "chi":
            parts.append(f"吃{''.join(t[0] for t in tiles)}{tiles[0][1]}")
        else:
            parts.append(f"{KIND_ZH[kind]}{tiles[0]}")
    return " ".join(parts)


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
        idx = sorted(T.parse_code(f) if T.parse_code(f) is not None else -99 for f in faces)
        if all(T.is_suited(i) for i in idx if i >= 0) and idx[0] >= 0:
            if T.suit_of(idx[0]) == T.suit_of(idx[2]) and idx[1] == idx[0] + 1 and idx[2] == idx[1] + 1:
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
    if diff and not kongs and got - expected in (1, 2, 3, 4) and any(len(ts) == 4 for _, ts in tiles.melds):
        hint += "; is one of the melds a 杠?"
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


def _has_winds(preset: str, options: Mapping[str, object]) -> bool:
    if preset == "liaoyang":
        return False
    if preset == "liaoyang-online":
        return bool(options.get("include_winds", True))
    return True


def contradictions(tiles: WinnerTiles, sit: Situation) -> list[Problem]:
    """Everything that makes the hand malformed, each explained where the player set it."""
    out: list[Problem] = []
    if sit.preset not in PRESETS:
        return [Problem("preset", f"unknown rule set {sit.preset}")]
    winds = _has_winds(sit.preset, sit.options)
    kongs = [k for k, _ in tiles.melds if k in KONG_KINDS]
    if sit.indicator is None:
        out.append(Problem("indicator", "pick the 混 indicator tile (the tile turned face up at the start)"))
    if tiles.winning is None:
        out.append(Problem("winning", "which tile did the winner win on? pick the winning tile"))
    if sit.win_by != "self_draw":
        how = WIN_BY_ZH[sit.win_by]
        if sit.discarder is None:
            out.append(Problem("discarder", f"{how}: who {'discarded' if sit.win_by == 'discard' else 'was robbed'}?"))
        elif sit.discarder == sit.winner:
            out.append(Problem("discarder", f"{how}: the winner cannot feed his own win — pick another seat"))
    if sit.kong_replacement:
        if sit.win_by != "self_draw":
            out.append(
                Problem("kong_replacement", f"杠上开 is a win on your own replacement tile, so it cannot be {WIN_BY_ZH[sit.win_by]}: untick 杠上开 or choose 自摸")
            )
        elif not kongs:
            out.append(Problem("kong_replacement", "杠上开 needs a 杠 among the winner's melds: add the kong or untick 杠上开"))
    if sit.after_kong:
        if sit.win_by != "discard":
            out.append(Problem("after_kong", "流泪 is a discard right after the discarder's own kong: choose 点炮 or untick 流泪"))
        elif sit.discarder and not any(k in KONG_KINDS for k, _ in sit.loser_melds.get(sit.discarder, [])):
            out.append(
                Problem("after_kong", f"流泪: enter the kong {seat_name(sit.discarder)} just made among his melds, or untick 流泪")
            )
    if sit.first_draw:
        if sit.win_by == "robbed_kong" or sit.kong_replacement:
            out.append(Problem("first_draw", "地胡 happens before anyone makes a kong: untick 地胡"))
        elif tiles.melds or any(sit.loser_melds.get(s) for s in SEATS if s != sit.winner):
            out.append(Problem("first_draw", "地胡 happens before any 吃/碰/杠, but melds are entered: untick 地胡 or remove them"))
        elif sit.winner == sit.dealer:
            out.append(Problem("first_draw", "地胡 is a win by a player who is not the dealer (天胡 is not scored): untick 地胡"))
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
    if sit.indicator is not None and T.parse_code(sit.indicator) is not None:
        order = ("E", "W", "S", "N") if sit.options.get("wind_cycle") == "东西南北" else ("E", "S", "W", "N")
        hun = _next_tile(sit.indicator, order)
    everything = [("hand", t) for t in tiles.all_tiles()]
    if tiles.winning is not None and tiles.winning_in_concealed and tiles.winning not in tiles.concealed:
        out.append(Problem("winning", f"the winning tile {tile_name(tiles.winning)} is not among the standing tiles"))
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
        out.append(Problem("tiles", f"a face-down tile (背面) in {where}: say which tile it is (a 暗杠 may show backs — set the meld's kind to 暗杠)"))
    for where, t in everything:
        code = T.parse_code(t)
        if code is None and t != "back":
            out.append(Problem("tiles", f"“{t}” is not a tile"))
        elif code is not None and T.is_wind(code) and not winds:
            where_s = "the winner's hand" if where == "hand" else where
            out.append(
                Problem("tiles", f"{tile_name(t)} in {where_s}: {PRESETS[sit.preset].title} is played without winds — fix the tile or pick the 辽阳在线/鞍山 rules")
            )
            break
    if hun is not None:
        for kind, ts in tiles.melds + [m for s, ms in sit.loser_melds.items() if s != sit.winner for m in ms]:
            if hun in ts:
                out.append(Problem("melds", f"{tile_name(hun)} is the 混 this hand and can never be in a {KIND_ZH[kind]}: check the indicator or the meld"))
                break
        if sit.win_by != "self_draw" and tiles.winning == hun:
            out.append(Problem("winning", f"{tile_name(hun)} is the 混: a discarded 混 cannot be won on — was it 自摸?"))
    counts = Counter(t for _, t in everything if t != "back" and T.parse_code(t) is not None)
    for t, n in sorted(counts.items()):
        if n > 4:
            out.append(Problem("tiles", f"{n}× {tile_name(t)}: there are only 4 of each tile — one is misread"))
    return out


def _next_tile(code: str, wind_order: tuple[str, ...]) -> str:
    t = T.parse_code(code)
    assert t is not None
    if T.is_suited(t):
        r = T.rank(t)
        return f"{1 if r == 9 else r + 1}{'mps'[T.suit_of(t)]}"
    c = T.code(t)
    if c in wind_order:
        return wind_order[(wind_order.index(c) + 1) % 4]
    dragons = ("C", "F", "P")
    return dragons[(dragons.index(c) + 1) % 3]


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


_FIELD_WORDS = [
    (r"^win\.kong_replacement", "杠上开"),
    (r"^win\.after_kong", "流泪"),
    (r"^win\.first_draw", "地胡"),
    (r"^win\.from", "who discarded"),
    (r"^win\.tile", "the winning tile"),
    (r"^indicator", "the 混 indicator"),
    (r"^bao_tile", "the 宝 tile"),
    (r"^gun_tile", "the 枪 tile"),
    (r"^players\.(\w)\.melds", "the melds of {seat}"),
    (r"^players\.(\w)\.concealed", "the hand of {seat}"),
    (r"^options", "the rule options"),
]


def explain_error(err: HandError) -> str:
    """An engine HandError in player words: which part of the page, then the engine's reason."""
    where = err.field or ""
    for pattern, words in _FIELD_WORDS:
        m = re.match(pattern, where)
        if m:
            seat = seat_name(m.group(1)) if m.groups() else ""
            return f"{words.format(seat=seat)}: {_tile_words(err.message)}"
    return _tile_words(err.message)


def _tile_words(text: str) -> str:
    """Replace tile codes in an engine message by their names (7p → 七饼)."""
    return re.sub(r"\b([1-9][mps]|[ESWNCFP])\b(?=[\s:,.)]|$)", lambda m: tile_name(m.group(1)), text)


# --------------------------------------------------------------------------------------------
# Results for people


@dataclass(frozen=True)
class Invalid:
    """Why a hand cannot win and what is missing, for a player."""

    title: str
    missing: str


def explain_invalid(result: ScoreResult, tiles: WinnerTiles | None = None) -> Invalid:
    """Turn an invalid ScoreResult's reason code into what the hand lacks."""
    present: set[int] = set()
    hun = result.hun
    if tiles is not None:
        present = {T.parse_code(t) for t in tiles.all_tiles()} - {None}  # type: ignore[assignment]
    reason = result.reason or ""
    if reason == "MISSING_SUIT":
        suits = {T.suit_of(t) for t in present if t != hun and T.is_suited(t)}
        lacking = [SUIT_ZH[s] for s in range(3) if s not in suits]
        what = "、".join(lacking) if lacking else "one suit"
        return Invalid("缺门 — a suit is missing", f"the hand needs at least one real {what} tile (a 混 never fills a suit)")
    texts = {
        "NO_YAOJIU": (
            "没有幺九 — no 1, 9 or honour",
            "the hand needs a real 1 or 9 (or 中/发/白, or a wind where winds are played); a 混 does not count",
        ),
        "NO_KE": (
            "没有横 — no triplet",
            "the hand needs a 横: three of a kind (concealed or 碰/杠), or a pair of 中/发/白",
        ),
        "NO_SHUN": ("没有顺子 — no run", "鞍山 needs at least one run (顺子, e.g. 345万); an all-triplet hand cannot win"),
        "NOT_A_WINNING_SHAPE": (
            "不成胡牌 — the tiles do not form a winning hand",
            "they do not split into 4 sets + 1 pair (or 七对), even using the 混: check the tiles read from the photo",
        ),
        "CLOSED_DISCARD_WIN": (
            "闭门不能点炮胡 — a closed hand cannot win on a discard",
            "with no 吃/碰/明杠 the winner may only win by 自摸 (or with 七对): was it 自摸, or did you forget a meld?",
        ),
        "DISCARDED_HUN": ("打过混 — the winner discarded a 混", "a player who discarded a 混 cannot win this hand"),
        "SHOUBAYI_WITH_CHI": (
            "手把一只能飘胡 — four melds with a 吃",
            "with four melds down, all of them must be 碰/杠: check the meld kinds",
        ),
        "SHOUBAYI_NOT_ALLOWED": ("鞍山不许手把一 — four melds down", "in 鞍山 a hand with four melds and one tile left cannot win"),
    }
    title, missing = texts.get(reason, ("cannot win", result.message or reason))
    return Invalid(title, missing)


@dataclass(frozen=True)
class FanRow:
    side: str  # "winner" or a loser seat
    name: str
    fan: int


def fan_rows(result: ScoreResult) -> list[FanRow]:
    """Every 番 item with its side: the winner's first (they count for every loser), then each loser's."""
    rows = [FanRow("winner", f.name, f.fan) for f in result.winner_fan]
    for seat, lr in result.losers.items():
        rows += [FanRow(seat, f.name, f.fan) for f in lr.fan]
    return rows


@dataclass(frozen=True)
class PaymentRow:
    seat: str
    role: str  # 赢家 / 输家
    fan: str  # "F + L = k"
    share: str  # the share in words: 2^k = raw, 掉底 → 底, 摇 …
    bao: int
    paid_by: str
    payment: int


def payment_rows(result: ScoreResult) -> list[PaymentRow]:
    """Each seat's line of the settlement, with 底 / 掉底 / 摇 / 宝 / 包三家 spelled out."""
    rows: list[PaymentRow] = []
    for seat in SEATS:
        if seat == result.winner:
            rows.append(PaymentRow(seat, "赢家", f"{result.winner_fan_total}", "", 0, "", result.payments.get(seat, 0)))
            continue
        lr = result.losers.get(seat)
        if lr is None:
            continue
        share = f"2^{lr.exponent} = {lr.raw}"
        if lr.yao:
            share += f" → 摇 {lr.capped}"
        elif lr.diaodi:
            share += f" → 掉底 {lr.capped}"
        paid_by = ""
        if lr.paid_by != seat:
            paid_by = f"包三家: share paid by {seat_name(lr.paid_by)}"
        if lr.bao and lr.bao_paid_by != seat:
            paid_by += ("; " if paid_by else "") + f"宝 paid by {seat_name(lr.bao_paid_by)}"
        rows.append(
            PaymentRow(
                seat,
                "输家",
                f"{result.winner_fan_total} + {lr.fan_total}",
                share,
                lr.bao,
                paid_by,
                result.payments.get(seat, 0),
            )
        )
    return rows


def hun_lines(result: ScoreResult) -> list[str]:
    """What each 混 stood for, e.g. "三万 (混) → 六万 in 4m5m6m"."""
    hun = tile_name(T.code(result.hun))
    out = []
    for label, stand_in in result.hun_stand_ins:
        group = "".join(tile_name(label[i : i + 2]) if label[i].isdigit() else tile_name(label[i]) for i in _code_starts(label))
        out.append(f"{hun} (混) → {tile_name(stand_in)} in {group}")
    return out


def _code_starts(label: str) -> list[int]:
    """Start offsets of the tile codes in a concatenated label like `4m5m6m` or `CCC`."""
    idx, i = [], 0
    while i < len(label):
        idx.append(i)
        i += 2 if label[i].isdigit() else 1
    return idx
