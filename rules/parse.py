"""Hand JSON (hand-json.md, version 1) → `Hand`, rejecting malformed input with the field's path.

Unknown keys are errors so that a typo never silently changes a score; every check raises one
`HandError` naming the field, which the CLI prints as a single line with exit status 2.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping

from . import tiles as T
from .errors import HandError
from .hand import KONG_KINDS, MELD_KINDS, SEATS, WIN_BY, Hand, Meld, Player, Win
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
WIN_KEYS = {"tile", "by", "from", "kong_replacement", "last_tiles", "after_kong", "first_draw"}
PLAYER_KEYS = {"concealed", "melds", "discarded_hun"}
MELD_KEYS = {"kind", "tiles"}


EXAMPLE_KEYS = {"id", "note", "hand", "expect"}


def _decode(text: str) -> object:
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise HandError("", f"malformed JSON: {e.msg} at line {e.lineno} column {e.colno}") from None


def loads(text: str) -> Hand:
    """Parse a JSON document into a validated `Hand`."""
    return parse_hand(_decode(text))


def loads_document(text: str) -> Hand:
    """Like `loads`, but also accepts a worked example `{"id", "note", "hand", "expect"}` (its `hand`)."""
    data = _decode(text)
    if isinstance(data, dict) and "hand" in data and "version" not in data and set(data) <= EXAMPLE_KEYS:
        try:
            return parse_hand(data["hand"])
        except HandError as e:
            raise HandError(f"hand.{e.field}" if e.field else "hand", e.message) from None
    return parse_hand(data)


def _unknown(obj: Mapping, allowed: set[str], where: str) -> None:
    for k in obj:
        if k not in allowed:
            path = f"{where}.{k}" if where else str(k)
            raise HandError(path, "unknown key")


def _obj(value: object, where: str) -> Mapping:
    if not isinstance(value, dict):
        raise HandError(where, "must be an object")
    return value


def _bool(obj: Mapping, key: str, where: str) -> bool:
    v = obj.get(key, False)
    if not isinstance(v, bool):
        raise HandError(f"{where}.{key}", "must be true or false")
    return v


def _seat(value: object, where: str) -> str:
    if value not in SEATS:
        raise HandError(
            where, f"unknown seat {json.dumps(value, ensure_ascii=False)} (expected E, S, W or N)"
        )
    return str(value)


class _TileReader:
    """Reads tiles, checking each belongs to the preset's tile set."""

    def __init__(self, winds: bool, preset: str) -> None:
        self.winds = winds
        self.preset = preset

    def tile(self, value: object, where: str) -> int:
        t = T.parse_code(value)
        if t is None:
            raise HandError(where, f"unknown tile {json.dumps(value, ensure_ascii=False)}")
        if T.is_wind(t) and not self.winds:
            raise HandError(where, f"wind tile {T.code(t)} is not part of the {self.preset} tile set")
        return t

    def tiles(self, value: object, where: str) -> tuple[int, ...]:
        if not isinstance(value, list):
            raise HandError(where, "must be a list of tiles")
        return tuple(self.tile(v, f"{where}[{i}]") for i, v in enumerate(value))


def _meld(obj: object, where: str, reader: _TileReader, hun: int) -> Meld:
    m = _obj(obj, where)
    _unknown(m, MELD_KEYS, where)
    kind = m.get("kind")
    if kind not in MELD_KINDS:
        raise HandError(
            f"{where}.kind", f"unknown meld kind {json.dumps(kind)} (expected {', '.join(MELD_KINDS)})"
        )
    tiles = reader.tiles(m.get("tiles"), f"{where}.tiles")
    want = 4 if kind in KONG_KINDS else 3
    if len(tiles) != want:
        raise HandError(f"{where}.tiles", f"a {kind} has {want} tiles, got {len(tiles)}")
    for i, t in enumerate(tiles):
        if t == hun:
            raise HandError(f"{where}.tiles[{i}]", f"{T.code(t)} is the 混 and can never be part of a meld")
    if kind == "chi":
        s = sorted(tiles)
        if not (
            T.is_suited(s[0]) and T.suit_of(s[0]) == T.suit_of(s[2]) and s[1] == s[0] + 1 and s[2] == s[0] + 2
        ):
            raise HandError(f"{where}.tiles", "a chi is three consecutive tiles of one suit")
        tiles = tuple(s)
    elif len(set(tiles)) != 1:
        raise HandError(f"{where}.tiles", f"a {kind} is {want} identical tiles")
    return Meld(kind, tiles)


def _player(obj: object, where: str, reader: _TileReader, hun: int, is_winner: bool) -> Player:
    p = _obj(obj, where)
    _unknown(p, PLAYER_KEYS, where)
    melds_raw = p.get("melds", [])
    if not isinstance(melds_raw, list):
        raise HandError(f"{where}.melds", "must be a list")
    if len(melds_raw) > 4:
        raise HandError(f"{where}.melds", f"at most 4 melds, got {len(melds_raw)}")
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
            )
    elif is_winner:
        raise HandError(f"{where}.concealed", "the winner's concealed tiles are required")
    return Player(melds, concealed, _bool(p, "discarded_hun", where))


def _options(preset: Preset, raw: object) -> dict[str, object]:
    opts = _obj(raw if raw is not None else {}, "options")
    for k, v in opts.items():
        spec = preset.options.get(k)
        if spec is None:
            raise HandError(f"options.{k}", f"unknown option for preset {preset.name}")
        if not spec.accepts(v):
            allowed = (
                "null or an integer >= 0"
                if spec.int_or_null
                else " | ".join(json.dumps(x) for x in spec.values)
            )
            raise HandError(
                f"options.{k}", f"invalid value {json.dumps(v, ensure_ascii=False)} (expected {allowed})"
            )
    return preset.with_defaults(opts)


def _int_field(data: Mapping, key: str, default: int, minimum: int) -> int:
    v = data.get(key, default)
    if v is None:
        return default
    if not isinstance(v, int) or isinstance(v, bool) or v < minimum:
        raise HandError(key, f"must be an integer >= {minimum}")
    return v


def parse_hand(data: object) -> Hand:
    """Validate a decoded hand-json object and build the typed `Hand`."""
    data = _obj(data, "hand")
    _unknown(data, TOP_KEYS, "")
    if data.get("version") != 1:
        raise HandError("version", f"unsupported version {json.dumps(data.get('version'))} (expected 1)")
    preset = PRESETS.get(data.get("preset"))  # type: ignore[arg-type]
    if preset is None:
        raise HandError(
            "preset",
            f"unknown preset {json.dumps(data.get('preset'), ensure_ascii=False)} (expected {', '.join(PRESETS)})",
        )
    options = _options(preset, data.get("options"))
    reader = _TileReader(has_winds(preset, options), preset.name)
    dealer = _seat(data.get("dealer", "E"), "dealer")
    winner = _seat(data.get("winner"), "winner")
    if "indicator" not in data:
        raise HandError("indicator", "the 混 indicator tile is required")
    indicator = reader.tile(data["indicator"], "indicator")
    hun = T.hun_of(indicator, wind_order(preset, options))

    win = _win(_obj(data.get("win"), "win"), reader, winner, hun)
    players_raw = _obj(data.get("players"), "players")
    for k in players_raw:
        _seat(k, f"players.{k}")
    if winner not in players_raw:
        raise HandError(f"players.{winner}", "the winner must be listed with his concealed tiles")
    players = {
        s: _player(players_raw.get(s, {}), f"players.{s}", reader, hun, s == winner)
        if s in players_raw
        else Player()
        for s in SEATS
    }

    applies = preset.extra_keys
    bao = _optional_tile(data, "bao_tile", reader) if "bao_tile" in applies else None
    gun = _optional_tile(data, "gun_tile", reader) if "gun_tile" in applies else None
    room = _int_field(data, "room_multiplier", 1, 1) if "room_multiplier" in applies else 1
    changmao = _int_field(data, "changmao", 0, 0) if "changmao" in applies else 0

    hand = Hand(
        preset=preset.name,
        options=options,
        dealer=dealer,
        indicator=indicator,
        winner=winner,
        win=win,
        players=players,
        bao_tile=bao,
        gun_tile=gun,
        room_multiplier=room,
        changmao=changmao,
        raw=dict(data),
    )
    _check_consistency(hand, hun)
    _check_copies(hand)
    return hand


def _optional_tile(data: Mapping, key: str, reader: _TileReader) -> int | None:
    v = data.get(key)
    return None if v is None else reader.tile(v, key)


def _win(w: Mapping, reader: _TileReader, winner: str, hun: int) -> Win:
    _unknown(w, WIN_KEYS, "win")
    if "tile" not in w:
        raise HandError("win.tile", "the winning tile is required")
    tile = reader.tile(w["tile"], "win.tile")
    by = w.get("by")
    if by not in WIN_BY:
        raise HandError("win.by", f"unknown value {json.dumps(by)} (expected {', '.join(WIN_BY)})")
    source = w.get("from")
    if by == "self_draw":
        if source is not None:
            raise HandError("win.from", "a self-drawn win has no discarder")
    else:
        source = _seat(source, "win.from")
        if source == winner:
            raise HandError("win.from", "the winner cannot feed his own win")
        if tile == hun:
            raise HandError("win.tile", f"{T.code(tile)} is the 混: a discarded 混 cannot be claimed")
    flags = {k: _bool(w, k, "win") for k in ("kong_replacement", "last_tiles", "after_kong", "first_draw")}
    if flags["kong_replacement"] and by != "self_draw":
        raise HandError("win.kong_replacement", "杠上开 is a self-drawn win (win.by must be self_draw)")
    if flags["after_kong"] and by != "discard":
        raise HandError("win.after_kong", "流泪/反弹 needs a win on a discard (win.by must be discard)")
    if flags["first_draw"] and by == "robbed_kong":
        raise HandError("win.first_draw", "地胡 happens before any kong, so it cannot be a 抢杠")
    if flags["first_draw"] and flags["kong_replacement"]:
        raise HandError("win.first_draw", "地胡 happens before any kong, so it cannot be 杠上开")
    return Win(tile, by, source, **flags)


def _check_consistency(hand: Hand, hun: int) -> None:
    """Flags that contradict the tiles: each names the flag."""
    win = hand.win
    winner = hand.winner_player
    if win.kong_replacement and not any(m.is_kong for m in winner.melds):
        raise HandError("win.kong_replacement", "杠上开 needs a kong among the winner's melds")
    if win.after_kong and not any(m.is_kong for m in hand.players[str(win.source)].melds):
        raise HandError("win.after_kong", f"流泪/反弹 needs a kong among the discarder {win.source}'s melds")
    if win.by == "robbed_kong":
        robbed = hand.players[str(win.source)]
        if not any(m.kind == "pong" and m.tiles[0] == win.tile for m in robbed.melds):
            raise HandError(
                "win.from",
                f"on a 抢杠 the robbed player {win.source} must list the pong of {T.code(win.tile)} he was upgrading",
            )
    if win.first_draw and any(p.melds for p in hand.players.values()):
        raise HandError("win.first_draw", "地胡 happens before any 吃/碰/杠, but melds are listed")
    for seat, p in hand.players.items():
        if p.concealed is not None and seat != hand.winner:
            kongs = sum(1 for m in p.melds if m.is_kong)
            total = len(p.concealed) + len(p.meld_tiles)
            if total != 13 + kongs:
                raise HandError(f"players.{seat}.concealed", f"a loser holds 13 tiles + kongs, got {total}")


def _check_copies(hand: Hand) -> None:
    """At most 4 of a type across everything listed (3 of the indicator's type: one is face up)."""
    listed: list[tuple[int, str]] = []
    for seat in SEATS:
        p = hand.players[seat]
        for i, t in enumerate(p.concealed or ()):
            listed.append((t, f"players.{seat}.concealed[{i}]"))
        for j, m in enumerate(p.melds):
            for i, t in enumerate(m.tiles):
                listed.append((t, f"players.{seat}.melds[{j}].tiles[{i}]"))
    listed.append((hand.win.tile, "win.tile"))
    if hand.bao_tile is not None:
        listed.append((hand.bao_tile, "bao_tile"))
    if hand.gun_tile is not None:
        listed.append((hand.gun_tile, "gun_tile"))
    seen: Counter[int] = Counter()
    for t, where in listed:
        seen[t] += 1
        limit = 3 if t == hand.indicator else 4
        if seen[t] > limit:
            why = (
                "only 3 of the indicator's type are live (one is the face-up indicator)"
                if t == hand.indicator
                else "there are only 4 of each tile"
            )
            raise HandError(where, f"one {T.code(t)} too many: {why}")
