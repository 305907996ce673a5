"""The situation form as one table: each `Situation` field, its widget, its label and its default.

Why this module exists: the page's situation widgets (who won, how, the 混 indicator, 杠上开 …, the
宝/枪 tile, the room multiplier) used to be written out one by one, with their session keys, their
defaults for a new hand and the reading back into a `Situation` in three places. Here one table says
it once: the page draws the table's rows, a new hand resets exactly these keys, and
`situation_from_state` reads them back (unit-tested without Streamlit). The preset decides which
rows exist (its win flags and extra inputs, from `page.preset_view`).
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass

from page.preset_view import discarded_hun_counts, extra_inputs, win_flag_help, win_flags
from page.quick_entry import parse_melds
from page.situation import Situation
from page.words import Words
from rules.hand import SEATS
from rules.names import seat_name
from rules.presets import PRESETS

PREFIX = "sit_"
OPTION_PREFIX = "opt_"
WIN_BY = {
    "self_draw": Words("自摸", "self-draw"),
    "discard": Words("点炮", "discard"),
    "robbed_kong": Words("抢杠", "robbed kong"),
}


@dataclass(frozen=True)
class Field:
    """One situation input: `name` is the Situation attribute, `widget` how the page draws it."""

    name: str
    widget: str  # preset | seat | win_by | discarder | tile | flag | int | melds
    label: Words
    default: object = None
    help: Words = Words("", "")
    minimum: int = 0
    maximum: int = 0

    @property
    def key(self) -> str:
        return PREFIX + self.name


#: The inputs every preset has, in the order the page shows them (the score depends on each).
CORE_FIELDS: tuple[Field, ...] = (
    Field("winner", "seat", Words("谁胡了", "Winner"), "E"),
    Field("win_by", "win_by", Words("怎么胡的", "Won by"), "self_draw"),
    Field("discarder", "discarder", Words("谁点的炮", "Who discarded"), None),
    Field(
        "indicator",
        "tile",
        Words("混指示牌（开局翻开的那张）", "混 indicator (turned up at the start)"),
        None,
    ),
    Field("dealer", "seat", Words("庄家", "Dealer"), "E"),
)
PRESET_FIELD = Field("preset", "preset", Words("规则", "Rules"), "liaoyang")


def preset_fields(preset: str) -> tuple[Field, ...]:
    """The rows this preset adds: its win flags, 打过混 where it matters, and its extra inputs."""
    rows = [Field(k, "flag", w, False, win_flag_help(preset, k)) for k, w in win_flags(preset).items()]
    if discarded_hun_counts(preset):
        rows.append(
            Field(
                "discarded_hun",
                "flag",
                Words("打过混", "discarded a 混"),
                False,
                Words("赢家这一局打出过混（不能胡）", "the winner discarded a 混 this hand (he cannot win)"),
            )
        )
    for x in extra_inputs(preset):
        if x.kind == "tile":
            rows.append(Field(x.key, "tile", x.label, None, x.help))
        else:
            rows.append(Field(x.key, "int", x.label, x.default or x.minimum, x.help, x.minimum, x.maximum))
    return tuple(rows)


def melds_key(seat: str) -> str:
    """Session key of a loser's melds text."""
    return f"{PREFIX}melds_{seat}"


def option_key(preset: str, name: str) -> str:
    return f"{OPTION_PREFIX}{preset}_{name}"


def all_fields(preset: str) -> tuple[Field, ...]:
    return (PRESET_FIELD, *CORE_FIELDS, *preset_fields(preset))


def discarder_choices(winner: str) -> list[str]:
    return [s for s in SEATS if s != winner]


def fill_defaults(state: MutableMapping, preset: str) -> None:
    """Give every situation key of this preset its default where the player has set nothing yet."""
    for f in all_fields(preset):
        state.setdefault(f.key, f.default)
    winner = state.get(CORE_FIELDS[0].key, "E")
    if state.get(PREFIX + "win_by") != "self_draw" and state.get(
        PREFIX + "discarder"
    ) not in discarder_choices(winner):
        state[PREFIX + "discarder"] = discarder_choices(winner)[0]


def new_hand(state: MutableMapping, dealer: str | None = None) -> None:
    """A new hand: every per-hand input back to its default (the rule set and its options stay: they
    are the table's house rules), the dealer as the scorebook carries it."""
    for key in [k for k in state if isinstance(k, str) and k.startswith(PREFIX) and k != PRESET_FIELD.key]:
        del state[key]
    preset = state.get(PRESET_FIELD.key, PRESET_FIELD.default)
    fill_defaults(state, preset)  # type: ignore[arg-type]
    if dealer in SEATS:
        state[PREFIX + "dealer"] = dealer


def apply_sample(state: MutableMapping, s: Mapping) -> None:
    """Prefill the situation with the bundled sample's (first start only)."""
    new_hand(state)
    state[PRESET_FIELD.key] = s.get("preset", "liaoyang")
    for f in CORE_FIELDS:
        if f.name in s:
            state[f.key] = s[f.name]
    for k in ("kong_replacement", "last_tiles", "after_kong", "first_draw"):
        state[PREFIX + k] = bool(s.get(k))
    for seat, text in (s.get("loser_melds") or {}).items():
        state[melds_key(seat)] = text
    for k in ("bao_tile", "gun_tile"):
        if s.get(k):
            state[PREFIX + k] = s[k]


@dataclass(frozen=True)
class MeldProblem:
    seat: str
    text: Words


def situation_from_state(state: Mapping) -> tuple[Situation, list[MeldProblem]]:
    """The `Situation` the widgets describe, and the losers' meld texts that could not be read."""
    preset = state.get(PRESET_FIELD.key, PRESET_FIELD.default)
    if preset not in PRESETS:
        preset = PRESET_FIELD.default
    sit = Situation(preset=preset)
    for f in CORE_FIELDS:
        setattr(sit, f.name, state.get(f.key, f.default))
    if sit.win_by == "self_draw":
        sit.discarder = None
    elif sit.discarder == sit.winner or sit.discarder not in SEATS:
        sit.discarder = discarder_choices(sit.winner)[0]
    for f in preset_fields(preset):
        value = state.get(f.key, f.default)
        if f.widget == "flag":
            value = bool(value)
        elif f.widget == "int":
            value = int(value) if value is not None else f.default
        setattr(sit, f.name, value)
    sit.options = {
        name: state[option_key(preset, name)]
        for name in PRESETS[preset].options
        if option_key(preset, name) in state
    }
    problems: list[MeldProblem] = []
    for seat in discarder_choices(sit.winner):
        text = state.get(melds_key(seat)) or ""
        try:
            sit.loser_melds[seat] = parse_melds(text)
        except ValueError as exc:
            words = getattr(exc, "words", Words(str(exc), str(exc)))
            problems.append(
                MeldProblem(seat, Words(f"{seat_name(seat)}：{words.zh}", f"{seat_name(seat)}: {words.en}"))
            )
            sit.loser_melds[seat] = []
    return sit, problems
