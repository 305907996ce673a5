"""The evening at a glance in the scorebook: the running totals as a chart, and 分享这一晚.

Why its own panel: the book section shows where the evening stands; this shows how it got there
(page.evening_chart draws it), and sends the whole evening to the group chat as one picture and a
short text. Sharing is extra: a picture that cannot be drawn is said in words, the book goes on.
"""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from page import evening_chart
from page.panels.common import lang, say, tr
from page.scorebook import Evening, HandRecord
from page.words import Words


def at_a_glance(ev: Evening, hist: Sequence[HandRecord]) -> None:
    """The chart under the totals and the 分享这一晚 popover; nothing before the first hand."""
    if not hist:
        return
    try:
        chart = evening_chart.chart_png(ev, hist, lang())
        picture = evening_chart.evening_png(ev, hist, lang())
        text = evening_chart.evening_text(ev, hist, lang())
    except Exception as exc:  # noqa: BLE001 - the chart is extra: say so, never a traceback
        say("warning", Words(f"走势图画不出来：{exc}", f"The chart could not be drawn: {exc}"))
        return
    st.image(chart, width="stretch", alt=tr("每家累计分的走势图", "Each seat's running total, hand by hand"))
    with st.popover(tr("分享这一晚", "Share the evening"), key="share_evening"):
        st.image(picture, width="stretch")
        st.download_button(
            tr("下载图片", "Download picture"), picture, "mahjong-evening.png", "image/png", key="evening_png"
        )
        st.code(text, language=None)
