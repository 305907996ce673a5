"""辽宁麻将 photo scorer: the Streamlit page (issue #4). UI only.

Photo → tiles read (vision.detect, cached model) → player fixes tiles and confirms the grouping →
situation → score (rules) → every 番, each 混, each payment; "save for training" stores the corrected
photo as YOLO data (vision.labelstore). Logic lives where it is unit-tested: page.quick_entry (typed
tiles), page.situation (hand JSON, checks), page.explain (results and errors in player words),
page.photo_state (a photo read into boxes), page.roles (where each tile belongs), page.annotate
and vision.labelstore. This file only lays out widgets and keeps per-photo state in st.session_state
(keyed by the photo's hash) so that corrections never re-run the detector.

Environment: MAHJONG_MODEL (model.json or .pt; default models/model.json), MAHJONG_DETECTOR
("module:function" taking an RGB array and returning detections; used by tests and for trying
detectors), MAHJONG_LABELLED_DIR (where "save for training" writes; default datasets/labelled).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import streamlit as st

import rules
from page.annotate import (
    display_scale,
    draw_marks,
    face_label,
    is_unsure,
    marks_for,
    shrink,
    tile_crop,
)
from page.detector_loader import Detector, model_detector, plugin_detector
from page.explain import explain_error, explain_invalid, fan_rows, hun_lines, payment_rows
from page.photo_state import (
    UPLOAD_TYPES,
    box_right_of,
    photo_key,
    player_box,
    read_photo,
    sample_photo,
    typed_hand,
)
from page.quick_entry import parse_melds
from page.roles import ROLE_ZH, ROLES, changed_count, default_winning, meld_kind, winner_tiles_from_boxes
from page.situation import (
    Situation,
    WinnerTiles,
    allowed_win_flags,
    build_hand,
    contradictions,
    count_check,
)
from rules.hand import SEATS
from rules.names import KIND_ZH, PRESET_SHORT, seat_name, tile_name
from vision import _env  # noqa: F401,I001  (offline ultralytics settings before anything imports it)
from vision.classes import CLASS_NAMES, FACE_NAMES

ROOT = Path(__file__).resolve().parent
WIN_BY_LABEL = {"self_draw": "自摸 self-draw", "discard": "点炮 discard", "robbed_kong": "抢杠 robbed kong"}
MAX_TILES_SHOWN = 60
DISPLAY_SIDE = 1280


# ------------------------------------------------------------------------------------------ model


def get_detector() -> tuple[Detector | None, str]:
    """The detector, or None with a plain reason (the page then works by typing the tiles).

    Not cached itself: a missing model is looked for again on the next run, so a model copied into
    models/ while the server runs is picked up; loading is cached per (file, modification time).
    """
    plug = os.environ.get("MAHJONG_DETECTOR")
    if plug:
        return _plugin_detector(plug), ""
    from vision import detect as vdetect

    path = Path(os.environ.get("MAHJONG_MODEL") or vdetect.DEFAULT_MODEL)
    if not path.is_file():
        shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
        return None, (
            f"No tile-reading model is installed ({shown} is missing), so photos are not read automatically. "
            "Type the tiles below instead — scoring works the same."
        )
    try:
        return _model_detector(str(path), path.stat().st_mtime_ns), ""
    except Exception as exc:  # noqa: BLE001 - a broken model must not break the page
        return None, (
            f"The tile-reading model could not be loaded ({type(exc).__name__}: {exc}). Type the tiles below instead."
        )


@st.cache_resource(show_spinner=False)
def _plugin_detector(plug: str) -> Detector:
    return plugin_detector(plug)


@st.cache_resource(show_spinner="Loading the tile reader…")
def _model_detector(path: str, mtime_ns: int) -> Detector:
    """Load once per model file version (`mtime_ns` is only the cache key)."""
    return model_detector(path)


# ------------------------------------------------------------------------------------------ widgets: photo


def _pk(photo: dict) -> str:
    """Widget-key prefix of the current tile list: the photo's hash, plus a revision once retyped."""
    rev = photo.get("rev", 0)
    return photo["key"][:10] + (f"r{rev}" if rev else "")


def photo_input(detector: Detector | None) -> None:
    """Upload / camera; a new photo (new hash) is read once and replaces the current one."""
    st.subheader("1 · Photo")
    c1, c2 = st.columns([3, 2])
    with c1:
        up = st.file_uploader("Photo of the winning hand (JPEG, PNG, HEIC)", type=UPLOAD_TYPES, key="upload")
    with c2:
        cam = None
        if st.toggle("Use the camera", key="use_camera"):
            cam = st.camera_input("Take a photo of the winning hand", key="camera")
    src = up or cam
    state = st.session_state
    if src is not None:
        data = src.getvalue()
        key = photo_key(data)
        if state.get("photo", {}).get("key") != key:
            with st.spinner("Reading the tiles…"):
                state.photo = read_photo(data, getattr(src, "name", "camera.jpg"), detector)
    elif "photo" not in state:
        state.photo = sample_photo(detector)
        _apply_sample_situation(state.photo["sample"]["situation"])


def _apply_sample_situation(s: dict) -> None:
    """Prefill the situation widgets with the sample's situation (first start only)."""
    ss = st.session_state
    ss["sit_preset"] = s.get("preset", "liaoyang")
    ss["sit_indicator"] = s.get("indicator")
    ss["sit_dealer"] = s.get("dealer", "E")
    ss["sit_winner"] = s.get("winner", "E")
    ss["sit_win_by"] = s.get("win_by", "self_draw")
    ss["sit_discarder"] = s.get("discarder")
    for k in ("kong_replacement", "last_tiles", "after_kong", "first_draw"):
        ss[f"sit_{k}"] = bool(s.get(k))
    for seat, text in (s.get("loser_melds") or {}).items():
        ss[f"sit_melds_{seat}"] = text
    ss["sit_bao"] = s.get("bao_tile")
    ss["sit_gun"] = s.get("gun_tile")


def show_reading(photo: dict, detector_note: str) -> None:
    """The photo with numbered boxes, unsure tiles highlighted, and the notes about this reading."""
    st.subheader("2 · What was read")
    if detector_note:
        st.info(detector_note)
    if photo["error"]:
        st.error(photo["error"])
        return
    for note in photo["notes"]:
        st.info(note)
    rgb = photo["rgb"]
    if rgb is None:
        return
    marks = marks_for(photo["boxes"], selected=photo.get("winning"))
    caption = f"{photo['name']} · {rgb.shape[1]}×{rgb.shape[0]} · {len(marks)} boxes"
    if photo.get("seconds") is not None:
        caption += f" · read in {photo['seconds']:.2f} s"
    if photo.get("display") is None:  # scale a 12 MP photo once, not on every correction
        photo["display"] = shrink(rgb, DISPLAY_SIDE)
        photo["display_scale"] = display_scale(rgb.shape[1], rgb.shape[0], DISPLAY_SIDE)
    drawn = draw_marks(photo["display"], marks, photo["display_scale"])
    st.image(drawn, caption=caption, width=min(drawn.shape[1], 1000))  # never blown up past its pixels
    st.caption(
        "Boxes: green sure · orange unsure (check these) · blue added by you · grey not in the hand · red the winning tile."
    )
    if photo.get("model_reading"):
        with st.expander("The detector's own reading of the sample"):
            reading = photo["model_reading"]
            st.image(
                draw_marks(photo["display"], marks_for(reading), photo["display_scale"]),
                caption="As read by the model: " + " ".join(tile_name(b["cls"]) for b in reading),
                width=min(photo["display"].shape[1], 1000),
            )


def fix_tiles(photo: dict) -> None:
    """Every tile: picture, face picker (model's next guesses first) and where it belongs."""
    boxes = photo["boxes"]
    pk = _pk(photo)
    st.subheader("3 · Fix the tiles")
    if len(boxes) > MAX_TILES_SHOWN:
        st.warning(
            f"{len(boxes)} boxes were read — far more than one hand. Showing the first {MAX_TILES_SHOWN}."
        )
    unsure = [
        i
        for i, b in enumerate(boxes)
        if b["origin"] == "model" and not b["fixed"] and is_unsure(b["conf"], b["alternatives"])
    ]
    if unsure:
        st.warning(
            "Check the orange tiles: " + ", ".join(f"#{i + 1} {tile_name(boxes[i]['cls'])}" for i in unsure)
        )
    per_row = 7
    shown = boxes[:MAX_TILES_SHOWN]
    for start in range(0, len(shown), per_row):
        cols = st.columns(per_row)
        for i in range(start, min(start + per_row, len(shown))):
            b = boxes[i]
            with cols[i - start]:
                if b["xyxy"] is not None and photo["rgb"] is not None:
                    st.image(tile_crop(photo["rgb"], b["xyxy"], height=64))
                flag = " ⚠" if i in unsure else ""
                face = st.selectbox(
                    f"#{i + 1}{flag}",
                    b["options"],
                    index=b["options"].index(b["cls"]) if b["cls"] in b["options"] else 0,
                    format_func=face_label,
                    key=f"face_{pk}_{i}",
                )
                if face != b["cls"]:
                    b["cls"] = face
                    b["fixed"] = True
                role = st.selectbox(
                    f"place #{i + 1}",
                    ROLES,
                    index=ROLES.index(b["role"]),
                    format_func=ROLE_ZH.get,
                    key=f"role_{pk}_{i}",
                    label_visibility="collapsed",
                )
                b["role"] = role
    add_tile(photo)
    type_tiles(photo)


def add_tile(photo: dict) -> None:
    """A tile the detector missed: its face, its place, and where it lies (beside which tile)."""
    boxes = photo["boxes"]
    with st.expander("Add a missed tile"), st.form(f"add_{_pk(photo)}", clear_on_submit=True):
        c1, c2, c3 = st.columns(3)
        face = c1.selectbox("Tile", CLASS_NAMES, format_func=face_label, key="add_face")
        role = c2.selectbox("Place", ROLES[:-1], format_func=ROLE_ZH.get, key="add_role")
        beside_opts = [None, *range(len(boxes))]
        hand = [i for i, b in enumerate(boxes) if b["role"] == "hand" and b["xyxy"]]
        default = beside_opts.index(max(hand, key=lambda i: boxes[i]["xyxy"][2])) if hand else 0
        beside = c3.selectbox(
            "Right of tile",
            beside_opts,
            index=default,
            format_func=lambda i: (
                "— (position unknown)" if i is None else f"#{i + 1} {tile_name(boxes[i]['cls'])}"
            ),
            key="add_beside",
        )
        won = st.checkbox("This is the tile I won on", key="add_won")
        if st.form_submit_button("Add tile"):
            xyxy = None
            if beside is not None and boxes[beside]["xyxy"]:
                xyxy = box_right_of(boxes[beside]["xyxy"], photo["rgb"])
            boxes.append(player_box(face, role, "added", xyxy))
            if won and role == "hand":
                photo["winning"] = len(boxes) - 1
            st.rerun()


def type_tiles(photo: dict) -> None:
    """Manual entry: type the whole hand (no model, or a photo the reader cannot cope with)."""
    with st.expander("Type the tiles instead", expanded=not photo["boxes"]):
        st.caption(
            "Write tiles like 123m 55p 789s 中中中 (m 万, p 饼, s 条; 东南西北中发白). Melds: 碰7p 吃345m 暗杠中."
        )
        conc = st.text_input("Standing tiles, including the tile you won on", key="type_concealed")
        win = st.text_input("The tile you won on", key="type_winning", max_chars=4)
        melds = st.text_input("Your melds (吃/碰/杠) — empty if none", key="type_melds")
        if st.button("Use these tiles", key="type_go"):
            try:
                boxes, winning, kinds = typed_hand(conc, win, melds)
            except ValueError as exc:
                st.error(str(exc))
                return
            photo["meld_kinds"].update(kinds)
            photo["boxes"] = boxes
            photo["winning"] = winning
            photo["rev"] = photo.get("rev", 0) + 1  # fresh widget keys for the new tile list
            st.rerun()


# ------------------------------------------------------------------------------------------ widgets: hand


def confirm_hand(photo: dict) -> WinnerTiles:
    """The proposed grouping: standing tiles, melds with their kind, the winning tile; asks where unsure."""
    st.subheader("4 · The hand")
    boxes = photo["boxes"]
    pk = _pk(photo)
    hand = [i for i, b in enumerate(boxes) if b["role"] == "hand"]
    if photo.get("winning") not in hand:
        photo["winning"] = default_winning(boxes)
    doubts = photo.get("doubts") or []
    if "standing" in doubts:
        st.warning(
            "Please check which tiles are the standing hand (place 手牌) — the reader was unsure where it ends."
        )
    if "indicator" in doubts:
        st.warning(
            "Please check the 混 indicator: set the place of the indicator tile to 混指示牌, or pick it below."
        )
    if hand:
        label = "The tile you won on" + (" — please check" if "winning" in doubts else "")
        photo["winning"] = st.selectbox(
            label,
            hand,
            index=hand.index(photo["winning"]) if photo["winning"] in hand else len(hand) - 1,
            format_func=lambda i: f"#{i + 1} {tile_name(boxes[i]['cls'])}",
            key=f"winning_{pk}",
        )
    for k in range(1, 5):
        role = f"meld{k}"
        members = [i for i, b in enumerate(boxes) if b["role"] == role]
        if not members:
            continue
        faces = [boxes[i]["cls"] for i in members]
        guess = meld_kind(faces, photo["meld_kinds"].get(role))
        unsure = f"meld {k - 1} kind" in doubts or f"meld {k - 1} grouping" in doubts
        kinds = list(KIND_ZH)
        photo["meld_kinds"][role] = st.radio(
            f"副露 {k}: {' '.join(tile_name(f) for f in faces)}" + (" — is this right?" if unsure else ""),
            kinds,
            index=kinds.index(guess) if guess in kinds else 1,
            format_func=KIND_ZH.get,
            horizontal=True,
            key=f"kind_{pk}_{role}",
        )
        if photo["meld_kinds"][role] == "concealed_kong" and all(f == "back" for f in faces):
            # all four face down: the photo cannot say which tile it is, the player can
            photo.setdefault("kong_faces", {})[role] = st.selectbox(
                f"Which tile is 暗杠 {k}?", FACE_NAMES, format_func=face_label, key=f"kongface_{pk}_{role}"
            )
    tiles = winner_tiles_from_boxes(
        boxes, photo.get("winning"), photo["meld_kinds"], photo.setdefault("kong_faces", {})
    )
    parts = [f"**手牌** {' '.join(tile_name(t) for t in tiles.concealed) or '—'}"]
    for kind, ts in tiles.melds:
        parts.append(f"**{KIND_ZH[kind]}** {' '.join(tile_name(t) for t in ts)}")
    parts.append(f"**胡** {tile_name(tiles.winning)}")
    st.markdown(" · ".join(parts))
    check = count_check(tiles)
    (st.success if check.ok else st.warning)(f"Count check: {check.hint}")
    return tiles


# ------------------------------------------------------------------------------------------ widgets: situation


def _tile_select(label: str, key: str, default: str | None, allow_none: bool = True) -> str | None:
    opts = ([None] if allow_none else []) + list(FACE_NAMES)
    if key not in st.session_state:
        st.session_state[key] = default if default in opts else opts[0]
    return st.selectbox(label, opts, format_func=lambda c: "— none" if c is None else face_label(c), key=key)


SITUATION_DEFAULTS = {
    "sit_preset": "liaoyang",
    "sit_indicator": None,
    "sit_dealer": "E",
    "sit_winner": "E",
    "sit_win_by": "self_draw",
    "sit_bao": None,
    "sit_gun": None,
    "sit_room": 1,
    "sit_changmao": 0,
}


#: What each preset option means, in a few words (SPEC.md §5.3 "Preset options").
OPTION_LABEL = {
    "fan_values": "番 values: the 番表 table or the rule prose",
    "bao_mode": "宝: flat payment, or as 番",
    "sanjiabi_mode": "三家闭/四家闭 counted over households or losers",
    "qianggang_side": "抢杠 番 goes on the robbed loser or the winner",
    "qidui_requires_suits_yaojiu": "七对 needs 三门齐 and 幺九",
    "hun_counts_for_zhang_dageda": "a 混 helps make 掌 / 大哥大",
    "include_winds": "winds 东南西北 are played",
    "changmao_max": "长毛 cap",
    "bao_paid_by_discarder": "on 点炮 the discarder also pays the others' 宝",
    "wind_cycle": "混 cycle of the winds",
    "mingqiang": "明枪 (indicator tiles in hand) counts",
    "shangqiangtou": "上墙头: win on an indicator tile, or needs a triplet",
    "kong_counts_siguiyi": "each kong is also a 四归一",
    "dealer_loser": "dealer pays an extra 番 only on 点炮, or always",
    "fan_cap": "番 cap per payment",
}


def _option_value(v: object) -> str:
    return {True: "yes", False: "no"}.get(v, str(v)) if isinstance(v, bool) else str(v)


def situation_inputs(photo: dict) -> Situation:
    """Preset + options, 混 indicator, seats, how the hand was won, losers' melds, 宝/枪, room."""
    st.subheader("5 · The situation")
    ss = st.session_state
    for k, v in SITUATION_DEFAULTS.items():
        ss.setdefault(k, v)
    c1, c2, c3 = st.columns(3)
    with c1:
        preset = st.selectbox(
            "Rules",
            list(rules.PRESETS),
            format_func=lambda p: f"{PRESET_SHORT[p]} · {rules.PRESETS[p].title}",
            key="sit_preset",
        )
        # The indicator can be "tapped" on the photo: the tile whose place is 混指示牌 sets it (the layout
        # reader proposes one); applied once per (photo, tile, face) so the picker stays free to change.
        marked = [(i, b["cls"]) for i, b in enumerate(photo["boxes"]) if b["role"] == "indicator"]
        if marked and marked[0][1] in FACE_NAMES:
            stamp = f"{photo['key']}:{marked[0][0]}:{marked[0][1]}"
            if ss.get("sit_indicator_from") != stamp:
                ss["sit_indicator"] = marked[0][1]
                ss["sit_indicator_from"] = stamp
        indicator = _tile_select("混 indicator tile (turned up at the start)", "sit_indicator", None)
    with c2:
        dealer = st.selectbox("Dealer 庄", SEATS, format_func=seat_name, key="sit_dealer")
        winner = st.selectbox("Winner 赢家", SEATS, format_func=seat_name, key="sit_winner")
    with c3:
        win_by = st.radio("Won by", list(WIN_BY_LABEL), format_func=WIN_BY_LABEL.get, key="sit_win_by")
        discarder = None
        if win_by != "self_draw":
            others = [s for s in SEATS if s != winner]
            if ss.get("sit_discarder") not in others:
                ss["sit_discarder"] = others[0]
            discarder = st.selectbox(
                "Discarder 点炮" if win_by == "discard" else "Robbed player 被抢杠",
                others,
                format_func=seat_name,
                key="sit_discarder",
            )
    preset_obj = rules.PRESETS[preset]
    flags = allowed_win_flags(preset)
    names = {"kong_replacement": "杠上开", "last_tiles": "海底捞", "after_kong": "流泪", "first_draw": "地胡"}
    *flag_cols, hun_col = st.columns(len(names) + 1)
    values = {}
    for col, (k, label) in zip(flag_cols, names.items(), strict=True):
        with col:
            values[k] = st.checkbox(label, key=f"sit_{k}", disabled=k not in flags) and k in flags
    with hun_col:
        penalised = preset_obj.discarded_hun_bars_win
        hun_out = st.checkbox(
            "打过混",
            key="sit_discarded_hun",
            disabled=not penalised,
            help="The winner discarded a 混 this hand.",
        )
        values["discarded_hun"] = penalised and hun_out
    options: dict[str, object] = {}
    with st.expander(f"Rule options of {preset_obj.title} (defaults shown)"):
        for name, opt in preset_obj.options.items():
            key = f"opt_{preset}_{name}"
            label = f"{OPTION_LABEL.get(name, name)} · `{name}`"
            if opt.int_or_null:
                st.session_state.setdefault(key, None)
                v = st.number_input(f"{label} (empty = no limit)", min_value=0, step=1, key=key)
                options[name] = None if v is None else int(v)
            else:
                options[name] = st.selectbox(label, list(opt.values), format_func=_option_value, key=key)
    st.markdown("**Losers' open melds** — quick entry like `碰7p 吃345m 明杠9m`; empty means closed (闭门).")
    loser_melds: dict[str, list] = {}
    problems: list[str] = []
    mc = st.columns(3)
    for col, seat in zip(mc, [s for s in SEATS if s != winner], strict=True):
        with col:
            text = st.text_input(f"{seat_name(seat)}", key=f"sit_melds_{seat}", placeholder="closed")
            try:
                loser_melds[seat] = parse_melds(text)
            except ValueError as exc:
                problems.append(f"{seat_name(seat)}: {exc}")
                loser_melds[seat] = []
    for p in problems:
        st.warning(p)
    sit = Situation(
        preset=preset,
        options=options,
        indicator=indicator,
        dealer=dealer,
        winner=winner,
        win_by=win_by,
        discarder=discarder,
        loser_melds=loser_melds,
        **values,
    )
    e1, e2, e3 = st.columns(3)
    with e1:
        if preset == "anshan":
            sit.gun_tile = _tile_select("枪 tile (flipped after the win)", "sit_gun", None)
        else:
            sit.bao_tile = _tile_select("宝 tile (next wall tile after the win)", "sit_bao", None)
    if preset == "liaoyang-online":
        with e2:
            sit.room_multiplier = int(st.number_input("房间倍数 room multiplier", 1, 10_000, key="sit_room"))
        with e3:
            sit.changmao = int(
                st.number_input("长毛 (黄庄 hands before this one)", 0, 100, key="sit_changmao")
            )
    return sit


# ------------------------------------------------------------------------------------------ result


def show_result(tiles: WinnerTiles, sit: Situation) -> dict | None:
    """Score and show every 番, each 混, each payment; problems explained instead of scored."""
    st.subheader("6 · The score")
    problems = contradictions(tiles, sit)
    check = count_check(tiles)
    if not check.ok:
        st.warning("Not scored yet — the tile count does not add up (see the count check in 4 · The hand).")
        return None
    if problems:
        for p in problems:
            st.warning(f"Not scored yet — {p.text}")
        return None
    hand = build_hand(tiles, sit)
    try:
        result = rules.score(hand)
    except rules.HandError as exc:
        st.warning(f"Not scored yet — {explain_error(exc)}")
        return hand
    except Exception as exc:  # noqa: BLE001 - a scorer bug: say so, keep the JSON for the report
        st.error(
            f"The scorer failed on this hand ({type(exc).__name__}). Please send the hand JSON below as a bug report."
        )
        with st.expander("Hand JSON", expanded=True):
            st.code(json.dumps(hand, ensure_ascii=False, indent=1), language="json")
        return hand
    if not result.valid:
        inv = explain_invalid(result, tiles)
        st.error(f"**This hand cannot win: {inv.title}.** What is missing: {inv.missing}.")
        _copy_json(hand, result)
        return hand
    rows = fan_rows(result)
    st.markdown(
        f"**{seat_name(result.winner)} wins** · {rules.PRESETS[result.preset].title} · 混 = {tile_name(rules.tiles.code(result.hun))}"
    )
    st.table(
        [
            {
                "side": "赢家 winner" if r.side == "winner" else seat_name(r.side),
                "番 item": r.name,
                "番": r.fan,
            }
            for r in rows
        ]
    )
    st.caption("赢家 items count in every loser's payment; a loser's own items only in his.")
    lines = hun_lines(result)
    for line in lines:
        st.markdown(f"- {line}")
    if not lines:
        st.markdown(f"- No 混 ({tile_name(rules.tiles.code(result.hun))}) in this hand.")
    pay = payment_rows(result)
    st.table(
        [
            {
                "seat": seat_name(r.seat) + (" 庄" if r.seat == sit.dealer else ""),
                "": r.role,
                "番 (winner + own)": r.fan,
                "share (底/掉底/摇)": r.share,
                "宝": str(r.bao) if r.bao else "",
                "paid by": r.paid_by,
                "payment": f"{r.payment:+d}",
            }
            for r in pay
        ]
    )
    cols = st.columns(4)
    for col, seat in zip(cols, SEATS, strict=True):
        col.metric(f"payment {seat_name(seat)}", f"{result.payments.get(seat, 0):+d}")
    st.caption(
        f"Total: the winner receives {result.payments.get(result.winner, 0)}; the four payments sum to 0."
    )
    _copy_json(hand, result)
    return hand


def _copy_json(hand: dict, result) -> None:
    doc = json.dumps({"hand": hand, "result": result.to_dict()}, ensure_ascii=False, indent=1)
    with st.expander("Copy as hand JSON (for sharing or a bug report)"):
        st.code(json.dumps(hand, ensure_ascii=False, indent=1), language="json")
        st.download_button(
            "Download hand + result JSON", doc, file_name="mahjong-hand.json", mime="application/json"
        )


def save_for_training(photo: dict) -> None:
    """Store the corrected photo and boxes as YOLO training data (never overwriting)."""
    from vision.labelstore import DEFAULT_ROOT, LabelBox, save_example

    st.subheader("7 · Save for training")
    boxes = [b for b in photo["boxes"] if b["role"] != "delete"]
    boxed = [b for b in boxes if b["xyxy"] is not None]
    if photo["rgb"] is None or not boxed:
        st.caption("Saving for training needs a photo with tiles boxed on it.")
        return
    unboxed = len(boxes) - len(boxed)
    changed = changed_count(photo["boxes"])
    st.caption(
        f"Saves the photo and its {len(boxed)} corrected boxes ({changed} changed by you) as labelled data for "
        "`python -m vision train`."
        + (f" {unboxed} tile(s) without a position are left out." if unboxed else "")
    )
    if st.button("Save for training", key=f"save_{_pk(photo)}"):
        root = Path(os.environ.get("MAHJONG_LABELLED_DIR") or DEFAULT_ROOT)
        try:
            res = save_example(
                photo["rgb"],
                [LabelBox(b["cls"], tuple(b["xyxy"])) for b in boxed],
                root,
                source_name=photo["name"],
                model_version=photo.get("model_version"),
                changed=changed,
                extra={
                    "added_boxes_estimated": sum(
                        b["origin"] == "added" and b["xyxy"] is not None for b in boxes
                    )
                },
            )
        except (OSError, ValueError) as exc:
            st.error(f"Could not save: {exc}")
            return
        photo["saved"] = res
    res = photo.get("saved")
    if res is not None:
        if res.duplicate:
            st.info(f"This photo was already saved ({res.split}); the first saved version is kept.")
        else:
            st.success(f"Saved to {res.split}: {res.image.name} with {res.boxes} boxes.")


# ------------------------------------------------------------------------------------------ page


def main() -> None:
    st.set_page_config(page_title="辽宁麻将 · photo scorer", layout="wide")
    st.title("辽宁麻将 photo scorer")
    st.caption("Photo of a winning hand → tiles → 番 → payments. 辽阳 · 辽阳在线 · 鞍山.")
    ss = st.session_state
    for k in [k for k in ss if isinstance(k, str) and k.startswith(("sit_", "opt_"))]:
        ss[k] = ss[k]  # keep the situation when its widgets are not drawn on a run (e.g. a bad photo)
    detector, detector_note = get_detector()
    photo_input(detector)
    photo = st.session_state.photo
    show_reading(photo, detector_note)
    if photo["error"] and not photo["boxes"]:
        type_tiles(photo)
        return
    fix_tiles(photo)
    tiles = confirm_hand(photo)
    sit = situation_inputs(photo)
    show_result(tiles, sit)
    save_for_training(photo)


if __name__ == "__main__":  # streamlit runs the page as __main__; benchmarks import its helpers
    main()
