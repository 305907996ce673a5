"""Hand JSON (hand-json.md, version 1) → `Hand`, rejecting malformed input with the field's path.

Unknown keys (and keys given twice) are errors so that a typo never silently changes a score. Every
check notes a `Problem` naming the field (and a stable `code`) and the checks go on where they can:
`check` returns every problem (a page shows them together), `parse_hand` raises the first as a
`HandError`, which the CLI prints as a single line with exit status 2. The input may be hostile (a batch of lines from anywhere): every value is type-checked
before use (`true` is not the integer 1), numbers are bounded before any arithmetic, an integer too
long to be a count never becomes a Python int (`_LongNumber`), nesting too deep for the decoder is
an error, and a value quoted in a message is shortened and never recursed into.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import TypeVar

from . import tiles as T
from .errors import HandError, Problem
from .hand import KONG_KINDS, MELD_KINDS, SEATS, WIN_BY, WIN_FLAGS, Hand, Meld, Player, Win
from .preset_model import Preset, has_winds, wind_order
from .presets import PRESETS

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
_T = TypeVar("_T")


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


class _Twice(dict):
    """A decoded JSON object in which `key` was given more than once (the last value is kept)."""

    key: str = ""


def _decode(text: str) -> object:
    """JSON text → Python data; a key given twice in one object is an error naming its path (the
    decoder would silently keep the last value, so a hand could be scored on a value nobody sees)."""
    if not text.strip():
        raise HandError("", "empty input: no hand", "EMPTY")
    twice: list[bool] = []

    def pairs(items: list[tuple[str, object]]) -> dict:
        d = dict(items)
        if len(d) == len(items):
            return d
        marked = _Twice(d)
        marked.key = _first_repeat(k for k, _ in items)
        twice.append(True)
        return marked

    try:
        data = json.loads(text, parse_int=_parse_int, object_pairs_hook=pairs)
    except json.JSONDecodeError as e:
        raise HandError("", f"malformed JSON: {e.msg} at line {e.lineno} column {e.colno}", "JSON") from None
    except RecursionError:
        raise HandError("", "malformed JSON: nested too deep", "TOO_DEEP") from None
    except ValueError as e:  # anything else the decoder refuses
        raise HandError("", f"malformed JSON: {e}", "JSON") from None
    if twice:
        raise HandError(_path_of_twice(data), "given twice", "DUPLICATE_KEY")
    return data


def _first_repeat(keys: Iterable[str]) -> str:
    seen: set[str] = set()
    for k in keys:
        if k in seen:
            return k
        seen.add(k)
    return ""


def _path_of_twice(data: object) -> str:
    """The path of the first key given twice, outermost first (walked without recursion: the data
    may be nested as deep as the decoder allows)."""
    stack: list[tuple[object, str]] = [(data, "")]
    while stack:
        obj, path = stack.pop()
        if isinstance(obj, _Twice):
            return f"{path}.{_key(obj.key)}" if path else _key(obj.key)
        if isinstance(obj, dict):
            children = [(v, f"{path}.{_key(k)}" if path else _key(k)) for k, v in obj.items()]
        elif isinstance(obj, list):
            children = [(v, f"{path}[{i}]") for i, v in enumerate(obj)]
        else:
            continue
        stack.extend(reversed(children))
    return ""


def loads(text: str) -> Hand:
    """Parse a JSON document into a validated `Hand`."""
    return parse_hand(_decode(text))


def loads_document(text: str, *, need_win_tile: bool = True) -> Hand:
    """Like `loads`, but also accepts a worked example `{"id", "note", "hand", "expect"}` (its `hand`)."""
    data, prefix = _unwrap(_decode(text))
    hand, problems = _read(data, need_win_tile, prefix)
    if hand is None:
        raise problems[0].error()
    return hand


def _unwrap(data: object) -> tuple[object, str]:
    """A worked example's `hand` (its fields then start with `hand.`), or the data itself."""
    if isinstance(data, dict) and "hand" in data and "version" not in data and set(data) <= EXAMPLE_KEYS:
        return data["hand"], "hand"
    return data, ""


class _Problems:
    """Every problem of one hand, in the order the checks run: `check` returns them all and
    `parse_hand` raises the first, so both read the same checks (one source of truth).

    A check that cannot run because an input it needs is missing or wrong is skipped (no winner: no
    check of the winner's tiles), so one mistake is reported once, not again by each check after it.
    """

    def __init__(self, prefix: str = "") -> None:
        self.found: list[Problem] = []
        self.prefix = prefix

    def add(self, field: str, message: str, code: str) -> None:
        if self.prefix:
            field = f"{self.prefix}.{field}" if field else self.prefix
        self.found.append(Problem(field, message, code))

    def run(self, fn: Callable[..., _T], *args: object, default: _T | None = None) -> _T | None:
        """`fn(*args)`, or `default` after noting the `HandError` it raised."""
        try:
            return fn(*args)
        except HandError as e:
            self.add(e.field, e.message, e.code)
            return default


def _unknown(obj: Mapping, allowed: set[str], where: str, probs: _Problems) -> None:
    for k in obj:
        if k not in allowed:
            probs.add(f"{where}.{_key(k)}" if where else _key(k), "unknown key", "UNKNOWN_KEY")


def _obj(value: object, where: str) -> Mapping:
    if value is None:
        raise HandError(where, "missing (expected an object)", "MISSING")
    if not isinstance(value, dict):
        raise HandError(where, f"must be an object, got {show(value)}", "TYPE")
    return value


def _bool(obj: Mapping, key: str, where: str) -> bool:
    v = obj.get(key, False)
    if not isinstance(v, bool):
        raise HandError(f"{where}.{key}", f"must be true or false, got {show(v)}", "TYPE")
    return v


def _seat(value: object, where: str) -> str:
    if value is None:
        raise HandError(where, "no seat given (expected E, S, W or N)", "MISSING")
    if not isinstance(value, str) or value not in SEATS:
        raise HandError(where, f"unknown seat {show(value)} (expected E, S, W or N)", "SEAT")
    return value


class _TileReader:
    """Reads tiles, checking each belongs to the preset's tile set (any tile when the preset is unknown)."""

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

    def tiles(
        self, value: object, where: str, probs: _Problems, limit: int = 18
    ) -> tuple[tuple[int, ...], bool]:
        """The tiles, and whether all could be read: each bad one is noted and left as None in its
        place (so the tiles read still count towards the four-copies limit, at their own index)."""
        if not isinstance(value, list):
            probs.add(where, f"must be a list of tiles, got {show(value)}", "TYPE")
            return (), False
        if len(value) > limit:
            probs.add(where, f"at most {limit} tiles, got {len(value)}", "TILE_COUNT")
            return (), False
        out: list[int | None] = []
        for i, v in enumerate(value):
            t = T.parse_code(v)
            if t is None or (T.is_wind(t) and not self.winds):  # say why, at its index
                t = probs.run(self.tile, v, f"{where}[{i}]")
            out.append(t)
        return tuple(out), None not in out  # type: ignore[return-value]


def _meld(obj: object, where: str, reader: _TileReader, hun: int | None, probs: _Problems) -> Meld | None:
    m = probs.run(_obj, obj, where)
    if m is None:
        return None
    _unknown(m, MELD_KEYS, where, probs)
    kind = m.get("kind")
    if not isinstance(kind, str) or kind not in MELD_KINDS:
        probs.add(
            f"{where}.kind", f"unknown meld kind {show(kind)} (expected {', '.join(MELD_KINDS)})", "MELD"
        )
        kind = None
    tiles, whole = reader.tiles(m.get("tiles"), f"{where}.tiles", probs)
    if not whole or kind is None:
        return None
    want = 4 if kind in KONG_KINDS else 3
    if len(tiles) != want:
        probs.add(f"{where}.tiles", f"a {kind} has {want} tiles, got {len(tiles)}", "MELD")
        return None
    for i, t in enumerate(tiles):
        if t == hun:
            probs.add(
                f"{where}.tiles[{i}]", f"{T.code(t)} is the 混 and can never be part of a meld", "HUN_IN_MELD"
            )
            return None
    if kind == "chi":
        s = sorted(tiles)
        if not (
            T.is_suited(s[0]) and T.suit_of(s[0]) == T.suit_of(s[2]) and s[1] == s[0] + 1 and s[2] == s[0] + 2
        ):
            probs.add(f"{where}.tiles", "a chi is three consecutive tiles of one suit", "MELD")
            return None
        tiles = tuple(s)
    elif len(set(tiles)) != 1:
        probs.add(f"{where}.tiles", f"a {kind} is {want} identical tiles", "MELD")
        return None
    return Meld(kind, tiles)


def _player(
    obj: object, where: str, reader: _TileReader, hun: int | None, is_winner: bool, probs: _Problems
) -> tuple[Player, bool]:
    """The player, and whether all of it was read (checks across a player's tiles need all of them)."""
    p = probs.run(_obj, obj, where)
    if p is None:
        return Player(), False
    _unknown(p, PLAYER_KEYS, where, probs)
    complete = True
    melds_raw = p.get("melds", [])
    n_melds: int | None = None
    melds: list[Meld] = []
    if not isinstance(melds_raw, list):
        probs.add(f"{where}.melds", f"must be a list, got {show(melds_raw)}", "TYPE")
        complete = False
    elif len(melds_raw) > 4:
        probs.add(f"{where}.melds", f"at most 4 melds, got {len(melds_raw)}", "MELD")
        complete = False
    else:
        n_melds = len(melds_raw)
        for i, m in enumerate(melds_raw):
            meld = _meld(m, f"{where}.melds[{i}]", reader, hun, probs)
            if meld is None:
                complete = False
            else:
                melds.append(meld)
    concealed = None
    if p.get("concealed") is not None:
        concealed, whole = reader.tiles(p["concealed"], f"{where}.concealed", probs)
        if not whole:
            complete = False
        elif n_melds is not None and len(concealed) != 13 - 3 * n_melds:
            if is_winner:
                what = "the winner's concealed tiles (without the winning tile)"
            else:
                what = "a loser's concealed tiles"
            probs.add(
                f"{where}.concealed",
                f"{what} with {n_melds} meld(s) must be {13 - 3 * n_melds} tiles, got {len(concealed)}",
                "TILE_COUNT",
            )
            complete = False
    elif is_winner:
        probs.add(f"{where}.concealed", "the winner's concealed tiles are required", "MISSING")
        complete = False
    discarded_hun = probs.run(_bool, p, "discarded_hun", where, default=False)
    return Player(tuple(melds), concealed, bool(discarded_hun)), complete


def _options(preset: Preset, raw: object, probs: _Problems) -> dict[str, object]:
    opts = probs.run(_obj, raw if raw is not None else {}, "options", default={})
    good = {}
    for k, v in opts.items():
        spec = preset.options.get(k)
        if spec is None:
            probs.add(f"options.{_key(k)}", f"unknown option for preset {preset.name}", "OPTION")
        elif not spec.accepts(v):
            probs.add(f"options.{k}", f"invalid value {show(v)} (expected {spec.expected()})", "OPTION_VALUE")
        else:
            good[k] = v
    return preset.with_defaults(good)


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
    """Validate a decoded hand-json object and build the typed `Hand`; raises the first problem
    `check` finds as a `HandError`.

    With `need_win_tile=False` (听牌: a hand one tile short) `win.tile` is ignored (and may be
    absent); the returned hand then has some placeholder winning tile, unchecked: `rules.waits`
    replaces it by each candidate allowed by `win_tile_allowed`.
    """
    hand, problems = _read(data, need_win_tile, "")
    if hand is None:
        raise problems[0].error()
    return hand


def check(hand: object, *, need_win_tile: bool = True) -> list[Problem]:
    """Every problem with a hand (a hand-json dict or JSON text, as `rules.score` takes it), in the
    order `rules.score` meets them: `score` raises the first of these and only these. Empty when the
    hand can be scored (it may still be a hand that cannot win: that is a result, not a problem).

    Each `Problem` names its `field` (JSON path), `code` (a key of `ERROR_WORDS`: `zh`/`en` words),
    `message`, and `missing` (an input not given yet: winner, indicator, winning tile, discarder…).
    """
    if isinstance(hand, Hand):
        return []
    if isinstance(hand, str):
        try:
            hand = _decode(hand)
        except HandError as e:
            return [e.problem]
    return _read(hand, need_win_tile, "")[1]


def check_document(text: str, *, need_win_tile: bool = True) -> list[Problem]:
    """`check` for JSON text that may also be a worked example (as `loads_document` reads it)."""
    try:
        data, prefix = _unwrap(_decode(text))
    except HandError as e:
        return [e.problem]
    return _read(data, need_win_tile, prefix)[1]


def _read(data: object, need_win_tile: bool, prefix: str) -> tuple[Hand | None, list[Problem]]:
    """The hand and no problems, or None and every problem found (in the order of the checks)."""
    probs = _Problems(prefix)
    data = probs.run(_obj, data, "hand")
    if data is None:
        return None, probs.found
    _unknown(data, TOP_KEYS, "", probs)
    probs.run(_version, data)
    preset = probs.run(_preset, data)
    options = _options(preset, data.get("options"), probs) if preset is not None else {}
    if preset is not None:
        reader = _TileReader(has_winds(preset, options), preset.name)
    else:
        reader = _TileReader(True, "")
    dealer = probs.run(_seat, data.get("dealer", "E"), "dealer")
    winner = probs.run(_seat, data.get("winner"), "winner")
    indicator = None
    if data.get("indicator") is None:
        probs.add("indicator", "the 混 indicator tile is required", "MISSING")
    else:
        indicator = probs.run(reader.tile, data["indicator"], "indicator")
    hun = None
    if preset is not None and indicator is not None:
        hun = T.hun_of(indicator, wind_order(preset, options))

    win_raw = probs.run(_obj, data.get("win"), "win")
    win = None if win_raw is None else _win(win_raw, reader, winner, hun, need_win_tile, probs)

    players = {s: Player() for s in SEATS}
    complete = dict.fromkeys(SEATS, True)
    players_raw = probs.run(_obj, data.get("players"), "players")
    if players_raw is not None:
        for k in players_raw:
            probs.run(_seat, k, f"players.{_key(k)}")
        if winner is not None and winner not in players_raw:
            probs.add(f"players.{winner}", "the winner must be listed with his concealed tiles", "MISSING")
        for s in SEATS:
            if s in players_raw:
                where = f"players.{s}"
                players[s], complete[s] = _player(players_raw[s], where, reader, hun, s == winner, probs)
    elif winner is not None:
        complete[winner] = False

    extras: dict[str, object] = {}
    for x in preset.extra_inputs if preset is not None else ():
        if x.kind == "tile":
            extras[x.key] = probs.run(_optional_tile, data, x.key, reader)
        else:
            default = int(x.default or 0)
            extras[x.key] = probs.run(_int_field, data, x.key, default, x.minimum, x.maximum, default=default)

    _check_consistency(probs, win, winner, players, complete)
    win_tile = win.tile if win is not None and win.tile >= 0 else None
    _check_copies(probs, players, win_tile, indicator, extras)
    if probs.found:
        return None, probs.found
    assert preset is not None and dealer is not None and winner is not None and win is not None
    assert indicator is not None and hun is not None
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
    if win.tile < 0:
        counts = own_counts(hand)
        first = next((t for t in range(T.N_TYPES) if win_tile_allowed(hand, hun, t, counts)), 0)
        hand = replace(hand, win=replace(win, tile=first))
    return hand, []


def _optional_tile(data: Mapping, key: str, reader: _TileReader) -> int | None:
    v = data.get(key)
    return None if v is None else reader.tile(v, key)


def _win(
    w: Mapping, reader: _TileReader, winner: str | None, hun: int | None, need_tile: bool, probs: _Problems
) -> Win | None:
    """The win (its tile -1 when not needed or not readable), or None when `win.by` is unreadable."""
    _unknown(w, WIN_KEYS, "win", probs)
    tile: int | None = -1  # 听牌: any winning tile given is ignored
    if need_tile:
        if w.get("tile") is None:
            probs.add("win.tile", "the winning tile is required", "MISSING")
            tile = None
        else:
            tile = probs.run(reader.tile, w["tile"], "win.tile")
    by = w.get("by")
    if not isinstance(by, str) or by not in WIN_BY:
        code = "MISSING" if by is None else "TYPE"
        probs.add("win.by", f"unknown value {show(by)} (expected {', '.join(WIN_BY)})", code)
        by = None
    source = w.get("from")
    if by == "self_draw":
        if source is not None:
            probs.add("win.from", "a self-drawn win has no discarder", "SITUATION")
        source = None
    elif by is not None:
        source = probs.run(_seat, source, "win.from")
        if source is not None and source == winner:
            probs.add("win.from", "the winner cannot feed his own win", "SELF_FEED")
            source = None
        if tile is not None and tile == hun:
            probs.add(
                "win.tile", f"{T.code(tile)} is the 混: a discarded 混 cannot be claimed", "HUN_CLAIMED"
            )
    flags = {k: bool(probs.run(_bool, w, k, "win", default=False)) for k in WIN_FLAGS}
    if by is None:
        return None
    if flags["kong_replacement"] and by != "self_draw":
        probs.add(
            "win.kong_replacement", "杠上开 is a self-drawn win (win.by must be self_draw)", "SITUATION"
        )
    if flags["after_kong"] and by != "discard":
        probs.add(
            "win.after_kong", "流泪/反弹 needs a win on a discard (win.by must be discard)", "SITUATION"
        )
    if flags["first_draw"] and by == "robbed_kong":
        probs.add("win.first_draw", "地胡 happens before any kong, so it cannot be a 抢杠", "SITUATION")
    if flags["first_draw"] and flags["kong_replacement"]:
        probs.add("win.first_draw", "地胡 happens before any kong, so it cannot be 杠上开", "SITUATION")
    return Win(-1 if tile is None else tile, by, source, **flags)


def _check_consistency(
    probs: _Problems,
    win: Win | None,
    winner: str | None,
    players: dict[str, Player],
    complete: dict[str, bool],
) -> None:
    """Flags that contradict the tiles (each names the flag), and losers' tile counts; a check whose
    player could not be read in full is skipped."""
    if win is not None and winner is not None:
        if win.kong_replacement and complete[winner] and not any(m.is_kong for m in players[winner].melds):
            probs.add("win.kong_replacement", "杠上开 needs a kong among the winner's melds", "SITUATION")
        source = win.source
        if (
            win.after_kong
            and source
            and complete[source]
            and not any(m.is_kong for m in players[source].melds)
        ):
            probs.add(
                "win.after_kong", f"流泪/反弹 needs a kong among the discarder {source}'s melds", "SITUATION"
            )
        robbed = win.tile >= 0 and win.by == "robbed_kong" and source and complete[source]
        if robbed and not _robbed_pong(players[str(source)], win.tile):
            probs.add(
                "win.from",
                f"on a 抢杠 the robbed player {source} must list the pong of {T.code(win.tile)} he was upgrading",
                "SITUATION",
            )
    if win is not None and win.first_draw and any(p.melds for p in players.values()):
        probs.add("win.first_draw", "地胡 happens before any 吃/碰/杠, but melds are listed", "SITUATION")
    for seat, p in players.items():
        if p.concealed is not None and seat != winner and complete[seat]:
            kongs = sum(1 for m in p.melds if m.is_kong)
            total = len(p.concealed) + len(p.meld_tiles)
            if total != 13 + kongs:
                probs.add(
                    f"players.{seat}.concealed", f"a loser holds 13 tiles + kongs, got {total}", "TILE_COUNT"
                )


def _robbed_pong(robbed: Player, tile: int) -> bool:
    return any(m.kind == "pong" and m.tiles[0] == tile for m in robbed.melds)


def win_tile_allowed(hand: Hand, hun: int, t: int, counts: list[int]) -> bool:
    """Whether `t` could be this hand's winning tile (听牌 candidates; `counts` = `own_counts`): not a
    claimed 混, the robbed pong's tile on a 抢杠, and not a fifth copy among the winner's own tiles.

    Only the winner's own tiles limit a wait (SPEC [Amb-24], revised): copies in other seats' melds,
    the indicator and the 宝 are the table's, and a wait does not stop being one because of them.
    """
    win = hand.win
    if win.by != "self_draw" and t == hun:
        return False
    if win.by == "robbed_kong" and not _robbed_pong(hand.players[str(win.source)], t):
        return False
    return counts[t] < 4


def own_counts(hand: Hand) -> list[int]:
    """How many of each type the winner holds before the win (concealed tiles and melds)."""
    counts = [0] * T.N_TYPES
    p = hand.winner_player
    for t in (*(p.concealed or ()), *p.meld_tiles):
        counts[t] += 1
    return counts


def copy_limit(indicator: int | None, t: int) -> int:
    """4 of a type, 3 of the indicator's type (one is face up)."""
    return 3 if t == indicator else 4


def _listed(
    players: Mapping[str, Player], win_tile: int | None, extras: Mapping[str, object]
) -> list[tuple[int, str]]:
    listed: list[tuple[int, str]] = []
    for seat in SEATS:
        p = players[seat]
        for i, t in enumerate(p.concealed or ()):
            if t is not None:  # a tile that could not be read (the hand is not built then)
                listed.append((t, f"players.{seat}.concealed[{i}]"))
        for j, m in enumerate(p.melds):
            for i, t in enumerate(m.tiles):
                listed.append((t, f"players.{seat}.melds[{j}].tiles[{i}]"))
    if win_tile is not None:
        listed.append((win_tile, "win.tile"))
    for key in ("bao_tile", "gun_tile"):
        t = extras.get(key)
        if isinstance(t, int):
            listed.append((t, key))
    return listed


def _check_copies(
    probs: _Problems,
    players: Mapping[str, Player],
    win_tile: int | None,
    indicator: int | None,
    extras: Mapping[str, object],
) -> None:
    """At most 4 of a type across everything listed (3 of the indicator's type: one is face up); one
    problem per type, at its first copy too many."""
    seen: Counter[int] = Counter()
    for t, where in _listed(players, win_tile, extras):
        seen[t] += 1
        if seen[t] == copy_limit(indicator, t) + 1:
            why = (
                "only 3 of the indicator's type are live (one is the face-up indicator)"
                if t == indicator
                else "there are only 4 of each tile"
            )
            probs.add(where, f"one {T.code(t)} too many: {why}", "COPIES")
