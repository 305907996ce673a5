"""The camera: Streamlit's camera input, with our own words around the ones Streamlit fixes.

Why this module exists: st.camera_input draws its own English ("This app would like to use your
camera.", "Take Photo", "Clear photo") and has no setting for them. In Chinese mode the label and
help are ours, and the style sheet (page.panels.style.uploader_words_zh) writes its button and its
request for the camera in Chinese."""

from __future__ import annotations

import streamlit as st
from streamlit.runtime.uploaded_file_manager import UploadedFile

from page.panels.common import tr


def take(gen: int) -> UploadedFile | None:
    """The picture taken with the camera of upload-box generation `gen`, else None."""
    return st.camera_input(
        tr("拍下赢家的牌", "Take a photo of the winning hand"),
        key=f"camera_{gen}",
        help=tr(
            "手机会问能不能用相机：点“允许”。对准整手牌，点下面的按钮拍照。",
            "The phone asks whether the page may use the camera: allow it, then frame the whole hand.",
        ),
    )
