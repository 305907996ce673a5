"""Hand JSON (hand-json.md, version 1) → `Hand`, rejecting malformed input with the field's path.

Unknown keys are errors so that a typo never silently changes a score; every check raises one
`HandError` naming the field (and a stable `code`), which the CLI prints as a single line with exit
status 2. The input may be hostile (a batch of lines from anywhere): every value is type-checked
before use (`true` is not the integer 1), numbers are bounded before any arithmetic, an integer too
long to be a count never becomes a Python int (`_LongNumber`), nesting too deep for the decoder is
an error, and a value quoted in a message is shortened and never recursed into.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import replace

from . import tiles as T
from .errors import HandError
from .hand import KONG_KINDS, MELD_KINDS, SEATS, WIN_BY, WIN_FLAGS, Hand, Meld, Player, Win
from .presets import PRESETS, Preset, has_winds, wind_order

TOP_KEYS = {
    "version",
    "preset",
    "options",
    "dealer",
    "indicator",
    "winner",
    "win",
    "players",
    "bao_tile",
    "gun_tile",
    "room_multiplier",
    "changmao",
}
WIN_KEYS = {"tile", "by", "from", *WIN_FLAGS}
PLAYER_KEYS = {"concealed", "melds", "discarded_hun"}
MELD_KEYS = {"kind", "tiles"}
EXAMPLE_KEYS = {"id", "note", "hand", "expect"}

_MAX_DIGITS = 18  # longer integers are never a valid count, multiplier or option value
_SHOW = 40  # characters of a bad value quoted in a message


class _LongNumber:
    """An integer literal too long to be meaningful: kept as text, so no arithmetic ever sees it."""

    __slots__ = ("digits",)

    def __init__(self, digits: str) -> None:
        self.digits = digits


def _parse_int(text: str) -> int | _LongNumber:
    return _LongNumber(text) if len(text.lstrip("-")) > _MAX_DIGITS else int(text)


def show(value: object) -> str:
    """A bad value for a message: short, one line, never recursing into containers."""
    if isinstance(value, _LongNumber):
        return f"an integer of {len(value.digits.lstrip('-'))} digits"
    if isinstance(value, str):
        text = value if len(value) <= _SHOW else value[:_SHOW] + "…"
        return json.dumps(text, ensure_ascii=False)
    if value is None or isinstance(value, (bool, int, float)):
        return json.dumps(value)
    if isinstance(value, list):
        return f"a list of {len(value)}"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _key(k: object) -> str:
    """A key as a path component: as is when short and printable, else quoted and shortened."""
    s = str(k)
    if len(s) <= _SHOW and s.isprintable() and "." not in s:
        return s
    return show(s)


def _decode(text: str) -> object:
    if not text.strip():
        raise HandError("", "empty input: no hand", "EMPTY")
    try:
        return json.loads(text, parse_int=_parse_int)
    except json.JSONDecodeError as e:
        raise HandError("", f"malformed JSON: {e.msg} at line {e.lineno} column {e.colno}", "JSON") from None
    except RecursionError:
        raise HandError("", "malformed JSON: nested too deep", "TOO_DEEP") from None
    except ValueError as e:  # anything else the decoder refuses
        raise HandError("", f"malformed JSON: {e}", "JSON") from None


def loads(text: str) -> Hand:
    """Parse a JSON document into a validated `Hand`."""
    return parse_hand(_decode(text))


def loads_document(text: str, *, need_win_tile: bool = True) -> Hand:
    """Like `loads`, but also accepts a worked example `{"id", "note", "hand", "expect"}` (its `hand`)."""
    data = _decode(text)
    if isinstance(data, dict) and "hand" in data and "version" not in data and set(data) <= EXAMPLE_KEYS:
        try:
            return parse_hand(data["hand"], need_win_tile=need_win_tile)
        except HandError as e:
            raise HandError(f"hand.{e.field}" if e.field else "hand", e.message, e.code) from None
    return parse_hand(data, need_win_tile=need_win_tile)


def _unknown(obj: Mapping, allowed: set[str], where: str) -> None:
    for k in obj:
        if k not in allowed:
            path = f"{where}.{_key(k)}" if where else _key(k)
            raise HandError(path, "unknown key", "UNKNOWN_KEY")


def _obj(value: object, where: str) -> Mapping:
    if not isinstance(value, dict):
        raise HandError(
            where, f"must be an object, got {show(value)}", "TYPE" if value is not None else "MISSING"
        )
    return value


def _bool(obj: Mapping, key: str, where: str) -> bool:
    v = obj.get(key, False)
    if not isinstance(v, bool):
        raise HandError(f"{where}.{key}", f"must be true or false, got {show(v)}", "TYPE")
    return v


def _seat(value: object, where: str) -> str:
    if not isinstance(value, str) or value not in SEATS:
        code = "MISSING" if value is None else "SEAT"
        raise HandError(where, f"unknown seat {show(value)} (expected E, S, W or N)", code)
    return value


class _TileReader:
    """Reads tiles, checking each belongs to the preset's tile set."""

    def __init__(self, winds: bool, preset: str) -> None:
        self.winds = winds
        self.preset = preset

    def tile(self, value: object, where: str) -> int:
        t = T.parse_code(value)
        if t is None:
            raise HandError(where, f"unknown tile {show(value)}", "TILE")
        if T.is_wind(t) and not self.winds:
            raise HandError(where, f"wind tile {T.code(t)} is not part of the {self.preset} tile set", "WIND")
        return t

    def tiles(self, value: object, where: str, limit: int = 18) -> tuple[int, ...]:
        if not isinstance(value, list):
            raise HandError(where, f"must be a list of tiles, got {show(value)}", "TYPE")
        if len(value) > limit:
            raise HandError(where, f"at most {limit} tiles, got {len(value)}", "TILE_COUNT")
        return tuple(self.tile(v, f"{where}[{i}]") for i, v in enumerate(value))


def _meld(obj: object, where: str, reader: _TileReader, hun: int) -> Meld:
    m = _obj(obj, where)
    _unknown(m, MELD_KEYS, where)
    kind = m.get("kind")
    if not isinstance(kind, str) or kind not in MELD_KINDS:
        raise HandError(
            f"{where}.kind", f"unknown meld kind {show(kind)} (expected {', '.join(MELD_KINDS)})", "MELD"
        )
    tiles = reader.tiles(m.get("tiles"), f"{where}.tiles")
    want = 4 if kind in KONG_KINDS else 3
    if len(tiles) != want:
        raise HandError(f"{where}.tiles", f"a {kind} has {want} tiles, got {len(tiles)}", "MELD")
    for i, t in enumerate(tiles):
        if t == hun:
            raise HandError(
                f"{where}.tiles[{i}]", f"{T.code(t)} is the 混 and can never be part of a meld", "HUN_IN_MELD"
            )
    if kind == "chi":
        s = sorted(tiles)
        if not (
            T.is_suited(s[0]) and T.suit_of(s[0]) == T.suit_of(s[2]) and s[1] == s[0] + 1 and s[2] == s[0] + 2
        ):
            raise HandError(f"{where}.tiles", "a chi is three consecutive tiles of one suit", "MELD")
        tiles = tuple(s)
    elif len(set(tiles)) != 1:
        raise HandError(f"{where}.tiles", f"a {kind} is {want} identical tiles", "MELD")
    return Meld(kind, tiles)


def _player(obj: object, where: str, reader: _TileReader, hun: int, is_winner: bool) -> Player:
    p = _obj(obj, where)
    _unknown(p, PLAYER_KEYS, where)
    melds_raw = p.get("melds", [])
    if not isinstance(melds_raw, list):
        raise HandError(f"{where}.melds", f"must be a list, got {show(melds_raw)}", "TYPE")
    if len(melds_raw) > 4:
        raise HandError(f"{where}.melds", f"at most 4 melds, got {len(melds_raw)}", "MELD")
    melds = tuple(_meld(m, f"{where}.melds[{i}]", reader, hun) for i, m in enumerate(melds_raw))
    concealed = None
    if "concealed" in p:
        concealed = reader.tiles(p["concealed"], f"{where}.concealed")
        want = 13 - 3 * len(melds)
        if is_winner:
            what = "the winner's concealed tiles (without the winning tile)"
        else:
            what = "a loser's concealed tiles"
        if len(concealed) != want:
            raise HandError(
                f"{where}.concealed",
                f"{what} with {len(melds)} meld(s) must be {want} tiles, got {len(concealed)}",
                "TILE_COUNT",
            )
    elif is_winner:
        raise HandError(f"{where}.concealed", "the winner's concealed tiles are required", "MISSING")
    return Player(melds, concealed, _bool(p, "discarded_hun", where))


def _options(preset: Preset, raw: object) -> dict[str, object]:
    opts = _obj(raw if raw is not None else {}, "options")
    for k, v in opts.items():
        spec = preset.options.get(k)
        if spec is None:
            raise HandError(f"options.{_key(k)}", f"unknown option for preset {preset.name}", "OPTION")
        if not spec.accepts(v):
            raise HandError(
                f"options.{k}", f"invalid value {show(v)} (expected {spec.expected()})", "OPTION_VALUE"
            )
    return preset.with_defaults(opts)


def _int_field(data: Mapping, key: str, default: int, minimum: int, maximum: int) -> int:
    v = data.get(key, default)
    if v is None:
        return default
    if not isinstance(v, (int, _LongNumber)) or isinstance(v, bool):
        raise HandError(key, f"must be an integer {minimum}..{maximum}, got {show(v)}", "TYPE")
    if isinstance(v, _LongNumber) or not minimum <= v <= maximum:
        raise HandError(key, f"must be an integer {minimum}..{maximum}, got {show(v)}", "RANGE")
    return v


def _version(data: Mapping) -> None:
    v = data.get("version")
    if type(v) is not int or v != 1:
        code = "MISSING" if v is None else ("VERSION" if type(v) is int else "TYPE")
        raise HandError("version", f"unsupported version {show(v)} (expected the integer 1)", code)


def _preset(data: Mapping) -> Preset:
    name = data.get("preset")
    preset = PRESETS.get(name) if isinstance(name, str) else None
    if preset is None:
        code = "MISSING" if name is None else "PRESET"
        raise HandError("preset", f"unknown preset {show(name)} (expected {', '.join(PRESETS)})", code)
    return preset


def parse_hand(data: object, *, need_win_tile: bool = True) -> Hand:
    """Validate a decoded hand-json object and build the typed `Hand`.

    With `need_win_tile=False` (听牌: a hand one tile short) `win.tile` is ignored (and may be
    absent); the returned hand then has some placeholder winning tile, unchecked: `rules.waits`
    replaces it by each candidate allowed by `win_tile_allowed`.
    """
    data = _obj(data, "hand")
    _unknown(data, TOP_KEYS, "")
    _version(data)
    preset = _preset(data)
    options = _options(preset, data.get("options"))
    reader = _TileReader(has_winds(preset, options), preset.name)
    dealer = _seat(data.get("dealer", "E"), "dealer")
    winner = _seat(data.get("winner"), "winner")
    if "indicator" not in data:
        raise HandError("indicator", "the 混 indicator tile is required", "MISSING")
    indicator = reader.tile(data["indicator"], "indicator")
    hun = T.hun_of(indicator, wind_order(preset, options))

    win = _win(_obj(data.get("win"), "win"), reader, winner, hun, need_win_tile)
    players_raw = _obj(data.get("players"), "players")
    for k in players_raw:
        _seat(k, f"players.{_key(k)}")
    if winner not in players_raw:
        raise HandError(f"players.{winner}", "the winner must be listed with his concealed tiles", "MISSING")
    players = {
        s: _player(players_raw.get(s, {}), f"players.{s}", reader, hun, s == winner)
        if s in players_raw
        else Player()
        for s in SEATS
    }

    extras: dict[str, object] = {}
    for x in preset.extra_inputs:
        if x.kind == "tile":
            extras[x.key] = _optional_tile(data, x.key, reader)
        else:
            extras[x.key] = _int_field(data, x.key, int(x.default or 0), x.minimum, x.maximum)

    hand = Hand(
        preset=preset.name,
        options=options,
        dealer=dealer,
        indicator=indicator,
        winner=winner,
        win=win,
        players=players,
        raw=dict(data),
        **extras,  # type: ignore[arg-type]
    )
    _check_consistency(hand, with_tile=win.tile >= 0)
    if win.tile < 0:
        counts = listed_counts(hand)
        first = next((t for t in range(T.N_TYPES) if win_tile_allowed(hand, hun, t, counts)), 0)
        return replace(hand, win=replace(win, tile=first))
    _check_copies(hand, with_win=True)
    return hand


def _optional_tile(data: Mapping, key: str, reader: _TileReader) -> int | None:
    v = data.get(key)
    return None if v is None else reader.tile(v, key)


def _win(w: Mapping, reader: _TileReader, winner: str, hun: int, need_tile: bool) -> Win:
    _unknown(w, WIN_KEYS, "win")
    if need_tile:
        if "tile" not in w:
            raise HandError("win.tile", "the winning tile is required", "MISSING")
        tile = reader.tile(w["tile"], "win.tile")
    else:
        tile = -1  # 听牌: any winning tile given is ignored
    by = w.get("by")
    if not isinstance(by, str) or by not in WIN_BY:
        code = "MISSING" if by is None else "TYPE"
        raise HandError("win.by", f"unknown value {show(by)} (expected {', '.join(WIN_BY)})", code)
    source = w.get("from")
    if by == "self_draw":
        if source is not None:
            raise HandError("win.from", "a self-drawn win has no discarder", "SITUATION")
    else:
        source = _seat(source, "win.from")
        if source == winner:
            raise HandError("win.from", "the winner cannot feed his own win", "SELF_FEED")
        if tile == hun:
            raise HandError(
                "win.tile", f"{T.code(tile)} is the 混: a discarded 混 cannot be claimed", "HUN_CLAIMED"
            )
    flags = {k: _bool(w, k, "win") for k in WIN_FLAGS}
    if flags["kong_replacement"] and by != "self_draw":
        raise HandError(
            "win.kong_replacement", "杠上开 is a self-drawn win (win.by must be self_draw)", "SITUATION"
        )
    if flags["after_kong"] and by != "discard":
        raise HandError(
            "win.after_kong", "流泪/反弹 needs a win on a discard (win.by must be discard)", "SITUATION"
        )
    if flags["first_draw"] and by == "robbed_kong":
        raise HandError("win.first_draw", "地胡 happens before any kong, so it cannot be a 抢杠", "SITUATION")
    if flags["first_draw"] and flags["kong_replacement"]:
        raise HandError("win.first_draw", "地胡 happens before any kong, so it cannot be 杠上开", "SITUATION")
    return Win(tile, by, source, **flags)


def _check_consistency(hand: Hand, with_tile: bool) -> None:
    """Flags that contradict the tiles: each names the flag."""
    win = hand.win
    winner = hand.winner_player
    if win.kong_replacement and not any(m.is_kong for m in winner.melds):
        raise HandError("win.kong_replacement", "杠上开 needs a kong among the winner's melds", "SITUATION")
    if win.after_kong and not any(m.is_kong for m in hand.players[str(win.source)].melds):
        raise HandError(
            "win.after_kong", f"流泪/反弹 needs a kong among the discarder {win.source}'s melds", "SITUATION"
        )
    if with_tile and win.by == "robbed_kong" and not _robbed_pong(hand, win.tile):
        raise HandError(
            "win.from",
            f"on a 抢杠 the robbed player {win.source} must list the pong of {T.code(win.tile)} he was upgrading",
            "SITUATION",
        )
    if win.first_draw and any(p.melds for p in hand.players.values()):
        raise HandError(
            "win.first_draw", "地胡 happens before any 吃/碰/杠, but melds are listed", "SITUATION"
        )
    for seat, p in hand.players.items():
        if p.concealed is not None and seat != hand.winner:
            kongs = sum(1 for m in p.melds if m.is_kong)
            total = len(p.concealed) + len(p.meld_tiles)
            if total != 13 + kongs:
                raise HandError(
                    f"players.{seat}.concealed", f"a loser holds 13 tiles + kongs, got {total}", "TILE_COUNT"
                )
    if not with_tile:
        _check_copies(hand, with_win=False)


def _robbed_pong(hand: Hand, tile: int) -> bool:
    return any(m.kind == "pong" and m.tiles[0] == tile for m in hand.players[str(hand.win.source)].melds)


def win_tile_allowed(hand: Hand, hun: int, t: int, counts: list[int]) -> bool:
    """Whether `t` could be this hand's winning tile (听牌 candidates; `counts` = `listed_counts`):
    not a claimed 混, the robbed pong's tile on a 抢杠, and not one copy too many."""
    win = hand.win
    if win.by != "self_draw" and t == hun:
        return False
    if win.by == "robbed_kong" and not _robbed_pong(hand, t):
        return False
    return counts[t] < copy_limit(hand, t)


def copy_limit(hand: Hand, t: int) -> int:
    """4 of a type, 3 of the indicator's type (one is face up)."""
    return 3 if t == hand.indicator else 4


def _listed(hand: Hand, with_win: bool) -> list[tuple[int, str]]:
    listed: list[tuple[int, str]] = []
    for seat in SEATS:
        p = hand.players[seat]
        for i, t in enumerate(p.concealed or ()):
            listed.append((t, f"players.{seat}.concealed[{i}]"))
        for j, m in enumerate(p.melds):
            for i, t in enumerate(m.tiles):
                listed.append((t, f"players.{seat}.melds[{j}].tiles[{i}]"))
    if with_win:
        listed.append((hand.win.tile, "win.tile"))
    if hand.bao_tile is not None:
        listed.append((hand.bao_tile, "bao_tile"))
    if hand.gun_tile is not None:
        listed.append((hand.gun_tile, "gun_tile"))
    return listed


def listed_counts(hand: Hand) -> list[int]:
    """How many of each type the input lists besides the winning tile (melds, hands, 宝/枪)."""
    counts = [0] * T.N_TYPES
    for t, _ in _listed(hand, with_win=False):
        counts[t] += 1
    return counts


def _check_copies(hand: Hand, with_win: bool) -> None:
    """At most 4 of a type across everything listed (3 of the indicator's type: one is face up)."""
    seen: Counter[int] = Counter()
    for t, where in _listed(hand, with_win):
        seen[t] += 1
        if seen[t] > copy_limit(hand, t):
            why = (
                "only 3 of the indicator's type are live (one is the face-up indicator)"
                if t == hand.indicator
                else "there are only 4 of each tile"
            )
            raise HandError(where, f"one {T.code(t)} too many: {why}", "COPIES")
