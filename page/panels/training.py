"""保存用于训练 and 学习我的牌: the corrected photo as training data, and a personal model from them."""

from __future__ import annotations

import os
from pathlib import Path

import streamlit as st

from page import learn
from page.panels.common import hand, lang, say, tr
from page.photo_state import Saved, boxes_signature
from page.roles import changed_count
from page.words import Words, plain


def labelled_dir() -> Path:
    from vision.labels.store import DEFAULT_ROOT

    return Path(os.environ.get("MAHJONG_LABELLED_DIR") or DEFAULT_ROOT)


def save_for_training() -> None:
    """Store the corrected photo and boxes as training data; the message says what is on disk."""
    from vision.labels.store import LabelBox, save_example, yolo_rows
    from vision.read.imageio import ImageLoadError

    photo = hand().photo
    boxes = [b for b in photo.boxes if b.role != "delete"]
    boxed = [b for b in boxes if b.xyxy is not None]
    if not photo.has_picture or not boxed:
        st.caption(
            tr(
                "保存用于训练需要一张框出了牌的照片。",
                "Saving for training needs a photo with tiles boxed on it.",
            )
        )
        return
    changed = changed_count(photo.boxes)
    sig = boxes_signature(photo.boxes)
    st.caption(
        tr(
            f"把照片和 {len(boxed)} 个改好的框（你改了 {changed} 个）存为训练数据。",
            f"Saves the photo and its {len(boxed)} corrected boxes ({changed} changed by you) as training data.",
        )
    )
    saved = photo.saved
    again = saved is not None and saved.signature != sig
    label = tr("保存修改", "Save the changes") if again else tr("保存用于训练", "Save for training")
    if (saved is None or again) and st.button(label, key=f"save_{photo.widget_prefix}"):
        label_boxes = [LabelBox(b.cls, tuple(b.xyxy)) for b in boxed]  # type: ignore[arg-type]
        try:
            res = save_example(
                photo.rgb,  # the full-size pixels, decoded from the kept upload only now
                label_boxes,
                labelled_dir(),
                source_name=photo.name,
                model_version=photo.model_version,
                changed=changed,
                extra={
                    "added_boxes_estimated": sum(
                        b.origin == "added" and b.xyxy is not None and b.model_cls is None for b in boxes
                    )
                },
            )
        except (OSError, ValueError, ImageLoadError) as exc:
            say("error", Words(f"没存上：{exc}", f"Could not save: {exc}"))
            return
        w, h = photo.size
        want = yolo_rows(label_boxes, w, h)
        try:
            lines = Path(res.label).read_text().splitlines()
            on_disk = lines == want
        except OSError:
            on_disk = False
        photo.saved = saved = Saved(res, sig, on_disk)
        again = False
    if saved is None:
        return
    name = Path(saved.result.image).name
    if again:
        say(
            "info",
            Words(
                "保存后你又改了牌：点“保存修改”把改正后的版本存下来。",
                "You changed tiles after saving: press “Save the changes” to store the corrected version.",
            ),
        )
    elif saved.on_disk:
        version = int(getattr(saved.result, "version", 1) or 1)
        nth = Words(f"第 {version} 版，", f"version {version}, ") if version > 1 else Words("", "")
        say(
            "success",
            Words(
                f"已保存（{saved.result.split}）：{name}，{nth.zh}{saved.result.boxes} 个框，和现在的牌一致。",
                f"Saved to {saved.result.split}: {name}, {nth.en}{saved.result.boxes} boxes, as shown now.",
            ),
        )
    else:
        say(
            "warning",
            Words(
                f"这张照片以前存过（{saved.result.split}）；磁盘上还是以前的版本，这次的修改没有存进去。",
                f"This photo was saved before ({saved.result.split}); the disk still holds the earlier version, this fix was not stored.",
            ),
        )


@st.fragment(run_every=2)
def _learn_progress(run: str) -> None:
    """The running adapt job's progress bar, redrawn every 2 s on its own; the whole page once it ends."""
    if learn.status(Path(run)) != "running":
        st.rerun(scope="app")
    prog = learn.progress(Path(run)) or {}
    msg = prog.get("message_en" if lang() == "en" else "message_zh") or tr("正在开始…", "Starting…")
    st.progress(min(1.0, max(0.0, float(prog.get("fraction") or 0.0))), text=plain(msg))


def learn_my_tiles() -> None:
    """学习我的牌: after a few saved photos, fine-tune a personal model in the background. A run that
    was killed (or the laptop slept through) says so and can be started again."""
    if not learn.available():
        return
    ss = st.session_state
    labelled = labelled_dir()
    have, need = learn.saved_photos(labelled), learn.min_photos()
    run = ss.get("learn_run")
    with st.expander(tr("学习我的牌", "Learn my tiles"), key="sec_learn"):
        if ss.get("personal_model"):
            st.success(tr("正在用你的牌识别（个人模型）。", "Reading with your own model."))
            if st.button(tr("换回原来的模型", "Switch back to the shipped model"), key="personal_off"):
                ss.pop("personal_model")
                st.rerun()
        if run:
            state = learn.status(Path(run))
            if state == "running":
                _learn_progress(run)
                return
            ss.pop("learn_run")
            if state == "error":
                err = (learn.progress(Path(run)) or {}).get("error")
                say("error", Words(f"学习失败：{err}", f"Learning failed: {err}"))
            elif state == "stopped":
                say(
                    "warning",
                    Words(
                        "上次学习中断了（进程没了）。可以重新开始。",
                        "The last learning run stopped before it finished. You can start it again.",
                    ),
                )
            elif state == "done" and learn.model_file(Path(run)):
                model = learn.model_file(Path(run))
                if learn.learnt_something(model):
                    ss["learn_ready"] = str(model)
                else:  # adapting did not read the saved photos better: nothing to switch to
                    say(
                        "info",
                        Words(
                            "学完了，但在你存的照片上没有比原来认得更好，所以仍用原来的认法。多存几张认错的照片再试。",
                            "Done, but it did not read your saved photos better, so the reading stays as it was. Save a few more misread photos and try again.",
                        ),
                    )
        ready = ss.get("learn_ready")
        if ready and st.button(
            tr("用我的牌的模型认牌", "Read with my model"), key="personal_on", type="primary"
        ):
            ss["personal_model"] = ss.pop("learn_ready")
            st.rerun()
        st.caption(
            tr(
                f"存了 {have} 张改好的照片；满 {need} 张后可以用它们教模型认你的牌（几分钟，在后台）。",
                f"{have} corrected photos saved; from {need} on, the model can learn your set from them (a few minutes, in the background).",
            )
        )
        if have >= need and st.button(tr("学习我的牌", "Learn my tiles"), key="learn_go"):
            try:
                ss["learn_run"] = str(learn.start(labelled))
            except OSError as exc:
                say("error", Words(f"没能开始：{exc}", f"Could not start: {exc}"))
            st.rerun()
        latest = learn.latest_model()
        if (
            latest
            and not ss.get("personal_model")
            and st.button(tr("用上次学好的模型", "Use the last personal model"), key="personal_last")
        ):
            ss["personal_model"] = str(latest)
            st.rerun()
