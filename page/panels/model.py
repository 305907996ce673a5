"""The tile reader the page uses: the shipped model, the player's personal one, or a test plug-in."""

from __future__ import annotations

import os
from pathlib import Path

import streamlit as st

from page.detector_loader import Detector, model_detector, plugin_detector
from page.words import Words

ROOT = Path(__file__).resolve().parent.parent.parent


def get_detector() -> tuple[Detector | None, Words | None]:
    """The detector (the personal one when the player chose it), or None with a plain reason.

    Not cached itself: a missing model is looked for again on the next run; loading is cached per
    (file, modification time), once for the whole server (st.cache_resource)."""
    plug = os.environ.get("MAHJONG_DETECTOR")
    if plug:
        return _plugin_detector(plug), None
    from vision.read import detect as vdetect

    personal = st.session_state.get("personal_model")
    path = Path(personal or os.environ.get("MAHJONG_MODEL") or vdetect.DEFAULT_MODEL)
    if not path.is_file():
        shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
        return None, Words(
            f"没有安装认牌模型（缺 {shown}），照片不会自动认牌。请在下面输入牌——计分一样。",
            f"No tile-reading model is installed ({shown} is missing), so photos are not read automatically. "
            "Type the tiles below instead — scoring works the same.",
        )
    try:
        return _model_detector(str(path), path.stat().st_mtime_ns), None
    except Exception as exc:  # noqa: BLE001 - a broken model must not break the page
        name = type(exc).__name__
        return None, Words(
            f"认牌模型加载失败（{name}）。请在下面输入牌。",
            f"The tile-reading model could not be loaded ({name}: {exc}). Type the tiles below instead.",
        )


@st.cache_resource(show_spinner=False)
def _plugin_detector(plug: str) -> Detector:
    return plugin_detector(plug)


@st.cache_resource(show_spinner=False)
def _model_detector(path: str, mtime_ns: int) -> Detector:
    """Load once per model file version (`mtime_ns` is only the cache key)."""
    return model_detector(path)
