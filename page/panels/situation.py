"""The situation: who won and how, the 混 indicator, the flags, 宝/枪, the losers' melds, the rules."""

from __future__ import annotations

import streamlit as st

import rules.presets as P
from page.hand_session import WIN_BY
from page.names import seat_words, tile_words, win_by_words
from page.panels.common import bind, hand, lang, run, run_from, ticket, tr
from page.panels.tiles import tile_keys
from page.preset_view import (
    extra_inputs,
    option_help,
    option_label,
    preset_label,
    value_label,
    win_flag_help,
    win_flags,
)
from page.words import Words
from rules.hand import SEATS

PICKER = "tile_picker"  # which tile input has its keyboard open: (hand id, input name)


def core() -> None:
    """谁胡了 · 怎么胡的 · 谁点的炮 · 混指示牌: nothing is scored until they are chosen."""
    h = hand()
    inp = h.inputs
    key = bind("winner", inp.winner)
    st.segmented_control(
        tr("谁胡了", "Who won"), list(SEATS), format_func=lambda s: tr(seat_words(s)), key=key,
        on_change=run_from, args=(key, "set_winner"),
    )  # fmt: skip
    key = bind("win_by", inp.win_by)
    st.segmented_control(
        tr("怎么胡的", "Won by"), list(WIN_BY), format_func=lambda w: tr(win_by_words(w)), key=key,
        on_change=run_from, args=(key, "set_win_by"),
    )  # fmt: skip
    if inp.win_by in ("discard", "robbed_kong"):
        label = (
            tr("谁点的炮", "Who discarded") if inp.win_by == "discard" else tr("抢的谁的杠", "Robbed player")
        )
        key = bind("discarder", inp.discarder)
        st.segmented_control(
            label, [s for s in SEATS if s != inp.winner], format_func=lambda s: tr(seat_words(s)), key=key,
            on_change=run_from, args=(key, "set_discarder"),
        )  # fmt: skip
    tile_input(
        "indicator",
        Words("混指示牌（开局翻开的那张）", "wild-tile indicator (混, turned up at the start)"),
        inp.indicator,
    )


def tile_input(name: str, label: Words, value: str | None) -> None:
    """A tile chosen on the tile keyboard (not a search box): the button shows the tile, a tap opens it."""
    h = hand()
    ss = st.session_state
    open_ = ss.get(PICKER) == (h.id, name)
    shown = tr(tile_words(value)) if value else tr("请选一张牌", "pick a tile")

    def toggle() -> None:
        ss[PICKER] = None if open_ else (h.id, name)

    st.button(
        f"{tr(label)}：{shown}" if lang() == "zh" else f"{tr(label)}: {shown}",
        key=f"tilein_{name}_{h.id[:8]}",
        on_click=toggle,
        width="stretch",
    )
    if open_:
        with st.container(border=True, key=f"keyboard_{name}"):
            tile_keys(name, value, _choose, (ticket(), name), with_back=False)
            if value is not None:
                st.button(
                    tr("清除", "Clear"),
                    key=f"clear_{name}_{h.id[:8]}",
                    on_click=_choose,
                    args=(ticket(), name, None),
                    type="tertiary",
                )


def _choose(ticket_: str, name: str, code: str | None) -> None:
    st.session_state[PICKER] = None
    if name == "indicator":
        run(ticket_, "set_indicator", code)
    else:
        run(ticket_, "set_extra", name, code)


def more() -> None:
    """The rest of the hand's situation: dealer, this rule set's flags and extra inputs."""
    h = hand()
    inp = h.inputs
    key = bind("dealer", inp.dealer)
    st.segmented_control(
        tr("庄家", "Dealer"), list(SEATS), format_func=lambda s: tr(seat_words(s)), key=key, required=True,
        on_change=run_from, args=(key, "set_dealer"),
    )  # fmt: skip
    names = win_flags(h.preset)
    flags = h.flags_shown()
    if flags:
        with st.container(horizontal=True, key="flags"):
            for f in flags:
                label = names.get(f) or Words("打过混", "discarded a wild tile")
                key = bind(f"flag_{f}", bool(inp.flags.get(f)))
                help_ = (
                    win_flag_help(h.preset, f)
                    if f in names
                    else Words(
                        "赢家这一局打出过混（不能胡）", "the winner discarded a wild tile (混) this hand"
                    )
                )
                st.checkbox(
                    tr(label), key=key, help=tr(help_) or None, on_change=run_from, args=(key, "set_flag", f)
                )
    for x in extra_inputs(h.preset):
        if x.kind == "tile":
            tile_input(x.key, x.label, inp.extras.get(x.key))
        else:
            key = bind(
                f"extra_{x.key}",
                int(inp.extras.get(x.key, x.default if x.default is not None else x.minimum)),
            )
            st.number_input(
                tr(x.label), x.minimum, x.maximum or None, key=key, step=1, help=tr(x.help) or None,
                on_change=run_from, args=(key, "set_extra", x.key),
            )  # fmt: skip


def rules_and_options() -> None:
    """The table's rule set and its options (kept from hand to hand), in the table's words."""
    h = hand()
    key = bind("preset", h.preset)
    st.selectbox(
        tr("规则", "Rules"), list(P.PRESETS), format_func=lambda p: tr(preset_label(p)), key=key,
        on_change=run_from, args=(key, "set_preset"),
    )  # fmt: skip
    for name, opt in P.PRESETS[h.preset].options.items():
        label = tr(option_label(h.preset, name))
        help_ = tr(option_help(h.preset, name)) or None
        key = bind(f"opt_{h.preset}_{name}", h.options.get(name, opt.default))
        if opt.int_or_null:
            st.number_input(
                label + tr("（空着 = 不限）", " (empty = no limit)"), min_value=0, step=1, key=key, help=help_,
                on_change=run_from, args=(key, "set_option", name),
            )  # fmt: skip
        else:
            st.selectbox(
                label, list(opt.values), format_func=lambda v, n=name: tr(value_label(h.preset, n, v)), key=key,
                help=help_, on_change=run_from, args=(key, "set_option", name),
            )  # fmt: skip
