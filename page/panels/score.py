"""The score: who wins how much and who pays what, high on the page; the details below."""

from __future__ import annotations

import json

import streamlit as st

import rules
from page import recording
from page.book_change import what_changes
from page.explain import explain_invalid, fan_rows, hun_lines, payments
from page.hand_session import Outcome
from page.names import seat_words, tile_words
from page.panels.common import STORE, hand, lang, say, tr
from page.preset_view import item_help, item_name_en
from page.words import Words, plain


def card(outcome: Outcome, book, ev, names: dict[str, str]) -> None:
    """The score box: the missing inputs together, or every problem together, or the payments."""
    with st.container(border=True, key="score"):
        if outcome.blocked is not None:
            say("info", outcome.blocked)
        for p in outcome.problems:
            say("warning", p)
        if outcome.waits is not None:
            say("info", outcome.waits)
        result = outcome.result
        if result is None:
            return
        if not result.valid:
            inv = explain_invalid(result, outcome.tiles)
            say(
                "error",
                Words(
                    f"这手牌不能胡：{inv.title.zh}。{_end(inv.missing.zh, '。')}",
                    f"This hand cannot win: {inv.title.en}. {_end(inv.missing.en, '.')}",
                ),
            )
            return
        hun = tile_words(rules.tiles.code(result.hun))
        who = seat_words(result.winner)
        st.markdown(
            plain(
                tr(
                    f"{who.zh} 胡 · {result.winner_fan_total} 番 · 混 {hun.zh}",
                    f"{who.en} wins · {result.winner_fan_total} fan · wild tile (混): {hun.en}",
                )
            )
        )
        st.caption(plain(tr(_fan_line(result, "zh"), _fan_line(result, "en"))))
        for p in payments(result, dealer=hand().inputs.dealer, names=names):
            line = plain(tr(p.words))
            st.markdown(f"**{line}**" if p.seat == result.winner else line)
        with st.container(horizontal=True, vertical_alignment="center", key="score_actions"):
            record_button(outcome, book, ev)
            share(outcome, names)


def _fan_line(result, language: str) -> str:
    """The whole 番 line of the winner: 飘胡 2 · 闭门 1 · 自摸 1 = 4 番."""
    parts = []
    for f in result.winner_fan:
        name = f.name if language == "zh" else (item_name_en(result.preset, f.key, "winner") or f.name)
        parts.append(f"{name} {f.fan}")
    return " · ".join(parts) + (
        f" = {result.winner_fan_total} 番" if language == "zh" else f" = {result.winner_fan_total} fan"
    )


def _end(sentence: str, stop: str) -> str:
    """A sentence with one closing mark (no "?." when it already ends in a question)."""
    return sentence if sentence.endswith(("。", "？", "?", ".", "！", "!")) else sentence + stop


def record_button(outcome: Outcome, book, ev) -> None:
    """记入记分本 — or, for a photo already recorded with another reading, 改第 n 局 with what it
    changes. The button carries what it was drawn for (the hand, its stored revision, the plan,
    the evening): pressed after any of them changed on another phone, it records nothing and says
    so, so a stale or repeated press never pays the wrong player."""
    h = hand()
    if h.sample:
        st.caption(
            tr(
                "示例牌局不能记分：拍一张自己的牌。",
                "The sample cannot be recorded: take a photo of your hand.",
            )
        )
        return
    if book is None:
        return
    try:
        recorded = book.find_photo(h.record_key, ev.id) if ev else None
    except Exception as exc:  # noqa: BLE001 - said in words, never a traceback
        say(
            "warning",
            getattr(exc, "words", Words(f"记分本打不开：{exc}", f"The scorebook cannot be opened: {exc}")),
        )
        return
    plan = h.record_plan(outcome, recorded, ev.id if ev else None)
    if plan.recorded_as is not None:
        st.caption(plain(tr(f"已记入第 {plan.recorded_as} 局", f"Recorded as hand {plan.recorded_as}")))
        return
    if plan.why_not is not None:
        say("info", plan.why_not)
    if not plan.allowed:
        return
    drawn = recording.drawn_now(st.session_state, plan, ev.id if ev else None)
    if plan.replaces is not None:
        say(
            "warning",
            Words(
                f"这张照片已记为第 {plan.replaces} 局——改成这样？",
                f"This photo is already hand {plan.replaces} — change it to this?",
            ),
        )
        new = outcome.result
        for line in what_changes(
            plan.replaces,
            recorded.winner,
            recorded.win_by,
            recorded.payments,
            new.winner,
            (outcome.hand_json or {}).get("win", {}).get("by"),
            new.payments,
        ):
            st.markdown(plain(tr(line)))
        label = tr(f"改第 {plan.replaces} 局", f"Replace hand {plan.replaces}")
    else:
        label = tr("记入记分本", "Record in the scorebook")
    st.button(label, key="record", on_click=_record, args=(book, drawn), type="primary")


def _record(book, drawn: recording.Drawn) -> None:
    """The press: `page.recording.press` checks everything again inside the book's transaction."""
    ss = st.session_state
    ok, words = recording.press(ss, ss.get(STORE), book, drawn)
    ss["book_note" if ok else "book_error"] = words


def share(outcome: Outcome, names: dict[str, str]) -> None:
    """分享: the result as a picture (tiles, 番, payments) and as text to paste into a chat."""
    from page.share import result_png, result_text

    result = outcome.result
    with st.popover(tr("分享", "Share")):
        try:
            text = result_text(result.to_dict(), outcome.hand_json, names)
            png = result_png(result.to_dict(), outcome.hand_json, names)
        except Exception as exc:  # noqa: BLE001 - sharing is extra: say so, never a traceback
            say("warning", Words(f"分享做不出来：{exc}", f"Sharing failed: {exc}"))
            return
        st.image(png, width="stretch")
        st.download_button(
            tr("下载图片", "Download picture"), png, "mahjong-result.png", "image/png", key="share_png"
        )
        st.code(text, language=None)


def details(outcome: Outcome) -> None:
    """番 items (one line each), each 混, how each payment came about, the JSON."""
    result, hand_json = outcome.result, outcome.hand_json
    if result is not None and result.valid:
        with st.expander(tr("番的明细", "Fan items"), key="sec_fan"):
            for r in fan_rows(result):
                side = tr("赢家", "winner") if r.side == "winner" else tr(seat_words(r.side))
                name = (
                    r.name
                    if lang() == "zh"
                    else (item_name_en(result.preset, r.key, _side(r.side)) or r.name)
                )
                explain = tr(item_help(result.preset, r.key, _side(r.side)))
                st.markdown(
                    plain(f"{side} · {name} {r.fan} " + tr("番", "fan"))
                    + (f"  \n{plain(explain)}" if explain else "")
                )
            st.caption(
                tr(
                    "赢家的番每个输家都算；输家自己的番只算在他自己那份里。",
                    "The winner's items count in every loser's payment; a loser's own items only in his.",
                )
            )
        with st.expander(
            tr("混和每份怎么算的", "The wild tile (混) and how each share was worked out"), key="sec_hun"
        ):
            lines = hun_lines(result)
            for w in lines:
                st.markdown(plain(tr(w)))
            if not lines:
                hun = tile_words(rules.tiles.code(result.hun))
                st.markdown(
                    plain(tr(f"这手牌里没有混（{hun.zh}）。", f"No wild tile ({hun.en}) in this hand."))
                )
            for p in payments(result, dealer=hand().inputs.dealer):
                if p.how.zh:
                    st.markdown(plain(f"{tr(seat_words(p.seat))}: {tr(p.how)}"))
    if hand_json is not None:
        with st.expander(
            tr("复制牌局 JSON（分享或报错用）", "Copy as hand JSON (for sharing or a bug report)"),
            key="sec_json",
        ):
            st.code(json.dumps(hand_json, ensure_ascii=False, indent=1), language="json")
            doc = {"hand": hand_json, "result": result.to_dict() if result is not None else None}
            st.download_button(
                tr("下载牌局和结果 JSON", "Download hand + result JSON"),
                json.dumps(doc, ensure_ascii=False, indent=1),
                file_name="mahjong-hand.json",
                mime="application/json",
            )


def _side(side: str) -> str:
    return "winner" if side == "winner" else "loser"
