"""Synthetic scene generator: determinism, label validity, layout truth, dataset YAML.

Needs the shared real set (faces are cut from its train split); skipped when it is absent.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
import yaml

from tests.vision.train.synth_marks import needs_font, needs_real
from vision.classes import BACK_ID, CLASS_NAMES, NUM_CLASSES
from vision.train.synth import cli, drawn
from vision.train.synth.faces import FACE_H, FACE_W, load_face_bank
from vision.train.synth.scene import make_scene

pytestmark = needs_real
N = 14
SEED = 3


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Two runs with the same seed, one with another seed."""
    out = {}
    for key, seed, n in (("a", SEED, N), ("b", SEED, N), ("c", SEED + 1, 4)):
        d = tmp_path_factory.mktemp(key)
        assert cli.main(["--out", str(d), "--n", str(n), "--seed", str(seed), "--val-fraction", "0.25"]) == 0
        out[key] = d
    return out


def _files(d: Path) -> dict[str, bytes]:
    return {str(p.relative_to(d)): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}


def _labels(d: Path, name: str) -> np.ndarray:
    rows = [
        [float(v) for v in line.split()] for line in (d / "labels" / f"{name}.txt").read_text().splitlines()
    ]
    return np.array(rows).reshape(-1, 5)


def test_same_seed_same_bytes(runs: dict[str, Path]) -> None:
    a, b = _files(runs["a"]), _files(runs["b"])
    a.pop("data.yaml"), b.pop("data.yaml")  # holds the absolute output path
    assert a.keys() == b.keys()
    assert all(a[k] == b[k] for k in a)
    assert len([k for k in a if k.startswith("images/")]) == N


def test_other_seed_differs(runs: dict[str, Path]) -> None:
    for i in range(4):
        name = cli.scene_name(i)
        assert (runs["a"] / "images" / f"{name}.jpg").read_bytes() != (
            runs["c"] / "images" / f"{name}.jpg"
        ).read_bytes()


def test_workers_do_not_change_output(tmp_path: Path) -> None:
    cli.generate(tmp_path, 3, SEED, workers=2)
    bank = load_face_bank()
    for i in range(3):
        assert (tmp_path / "images" / f"{cli.scene_name(i)}.jpg").read_bytes() == make_scene(
            bank, SEED, i
        ).jpeg


def test_labels_inside_image_and_in_class_range(runs: dict[str, Path]) -> None:
    for i in range(N):
        name = cli.scene_name(i)
        img = cv2.imread(str(runs["a"] / "images" / f"{name}.jpg"))
        layout = json.loads((runs["a"] / "layout" / f"{name}.json").read_text())
        h, w = img.shape[:2]
        assert (layout["width"], layout["height"]) == (w, h)
        assert 640 <= max(w, h) <= 960
        lab = _labels(runs["a"], name)
        assert len(lab) >= (4 if layout["partial"] else 14)
        cls, cx, cy, bw, bh = lab.T
        assert np.all(cls == cls.round()) and cls.min() >= 0 and cls.max() < NUM_CLASSES
        assert np.all(bw * w >= 3) and np.all(bh * h >= 3)
        assert np.all(cx - bw / 2 >= -1e-6) and np.all(cx + bw / 2 <= 1 + 1e-6)
        assert np.all(cy - bh / 2 >= -1e-6) and np.all(cy + bh / 2 <= 1 + 1e-6)


def test_boxes_fit_tiles(runs: dict[str, Path]) -> None:
    """A tight box: the tile covers its box edges (the box does not include much table)."""
    name = cli.scene_name(0)
    img = cv2.imread(str(runs["a"] / "images" / f"{name}.jpg"))
    h, w = img.shape[:2]
    lab = _labels(runs["a"], name)
    layout = json.loads((runs["a"] / "layout" / f"{name}.json").read_text())
    for li in layout["standing"]:
        _, cx, cy, bw, bh = lab[li]
        x0, y0, x1, y1 = (
            int(round(v))
            for v in ((cx - bw / 2) * w, (cy - bh / 2) * h, (cx + bw / 2) * w, (cy + bh / 2) * h)
        )
        assert x1 - x0 < 0.25 * w and y1 - y0 < 0.4 * h


def test_backs_present(runs: dict[str, Path]) -> None:
    """Face-down tiles appear: in the wall and in every concealed kong."""
    n_back, n_ck = 0, 0
    for i in range(N):
        name = cli.scene_name(i)
        lab = _labels(runs["a"], name)
        layout = json.loads((runs["a"] / "layout" / f"{name}.json").read_text())
        n_back += int((lab[:, 0] == BACK_ID).sum())
        assert all(lab[k, 0] == BACK_ID for k in layout["wall"])
        for m in layout["melds"]:
            if m["kind"] == "concealed_kong":
                n_ck += 1
                assert 2 <= sum(lab[k, 0] == BACK_ID for k in m["tiles"]) <= 4
    assert n_back > 20


def test_layout_truth_consistent_with_labels(runs: dict[str, Path]) -> None:
    seen_kinds = set()
    for i in range(N):
        name = cli.scene_name(i)
        lab = _labels(runs["a"], name)
        t = json.loads((runs["a"] / "layout" / f"{name}.json").read_text())
        names = [CLASS_NAMES[int(c)] for c in lab[:, 0]]
        used = list(t["standing"]) + list(t["wall"])
        used += [t["winning"]] if t["winning"] is not None else []
        used += [t["indicator"]] if t["indicator"] is not None else []
        n_meld_tiles = 0
        for m in t["melds"]:
            seen_kinds.add(m["kind"])
            used += m["tiles"]
            faces = [names[k] for k in m["tiles"]]
            if t["partial"]:
                continue
            assert len(faces) == (3 if m["kind"] in ("chi", "pong") else 4)
            n_meld_tiles += 3
            shown = [f for f in faces if f != "back"]
            if m["kind"] == "chi":
                ranks = sorted(int(f[0]) for f in faces)
                assert len({f[1] for f in faces}) == 1 and ranks == list(range(ranks[0], ranks[0] + 3))
            elif m["kind"] in ("pong", "kong"):
                assert len(set(faces)) == 1 and "back" not in faces
            else:
                assert len(set(shown)) <= 1 and len(shown) < 4
            if m["stacked"] is not None:
                assert m["stacked"] == m["tiles"][-1] and len(m["tiles"]) == 4
        assert len(used) == len(set(used)), "a label line has two roles"
        assert all(0 <= k < len(lab) for k in used)
        # a winning hand: 14 tiles with kongs counted as three (close-ups show only part of it)
        total = len(t["standing"]) + (t["winning"] is not None) + n_meld_tiles
        assert total <= 14 if t["partial"] else total == 14
        if t["winning"] is not None:
            assert names[t["winning"]] == t["winning_face"]
    assert seen_kinds, "some scene should have melds"


def test_data_yaml_follows_ultralytics_conventions(runs: dict[str, Path]) -> None:
    d = runs["a"]
    doc = yaml.safe_load((d / "data.yaml").read_text())
    assert doc["names"] == list(CLASS_NAMES) and doc["nc"] == NUM_CLASSES
    assert Path(doc["path"]) == d.resolve()
    train = (d / doc["train"]).read_text().split()
    val = (d / doc["val"]).read_text().split()
    assert len(val) == round(N * 0.25) and not set(train) & set(val) and len(train) + len(val) == N
    assert all((d / p).is_file() for p in train + val)
    utils = pytest.importorskip("ultralytics.data.utils")
    for p in train[:3]:
        im = str((d / p).resolve())
        (lb,) = utils.img2label_paths([im])
        out = utils.verify_image_label((im, lb, "", False, NUM_CLASSES, 0, 0, False))
        assert out[0] is not None and len(out[1]) == len(_labels(d, Path(p).stem)), out[-1]


def test_closeups_can_be_switched_off(tmp_path: Path) -> None:
    bank = load_face_bank()
    assert any(make_scene(bank, SEED, i, closeup_share=1.0).layout["partial"] for i in range(2))
    assert not any(make_scene(bank, SEED, i, closeup_share=0.0).layout["partial"] for i in range(2))


def test_split_is_seeded() -> None:
    assert cli.split(50, 1, 0.2) == cli.split(50, 1, 0.2)
    assert cli.split(50, 1, 0.2) != cli.split(50, 2, 0.2)
    train, val = cli.split(50, 1, 0.2)
    assert len(val) == 10 and sorted(train + val) == list(range(50))


def test_missing_source_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["--out", str(tmp_path / "o"), "--n", "1", "--source", str(tmp_path / "nope")]) == 2
    assert "not found" in capsys.readouterr().err


# --- drawn face bank (vision.train.synth.drawn) --------------------------------------------------------


@pytest.fixture(scope="module")
def small_drawn(tmp_path_factory: pytest.TempPathFactory) -> drawn.FaceBank:
    """A small drawn bank (6 sets), drawn afresh into a temporary cache."""
    return drawn.drawn_face_bank(seed=5, per_class=6, cache_dir=tmp_path_factory.mktemp("drawn"))


@needs_font
def test_drawn_bank_is_seeded_and_shaped(small_drawn: drawn.FaceBank, tmp_path: Path) -> None:
    again = drawn.drawn_face_bank(seed=5, per_class=6, cache_dir=tmp_path / "a")  # drawn, not cached
    other = drawn.drawn_face_bank(seed=6, per_class=6, cache_dir=tmp_path / "b")
    cached = drawn.drawn_face_bank(seed=5, per_class=6, cache_dir=tmp_path / "a")
    assert len(small_drawn.faces) == NUM_CLASSES - 1 == 34
    for c, arr in enumerate(small_drawn.faces):
        assert arr.shape == (6, FACE_H, FACE_W, 3) and arr.dtype == np.uint8
        assert arr.tobytes() == again.faces[c].tobytes() == cached.faces[c].tobytes()
    assert any(a.tobytes() != b.tobytes() for a, b in zip(small_drawn.faces, other.faces, strict=True))


@needs_font
def test_drawn_faces_tell_classes_apart(small_drawn: drawn.FaceBank) -> None:
    """Neighbouring classes differ clearly on average; no face is blank except maybe 白."""
    mean = {n: small_drawn.faces[i].astype(np.float32).mean(0) for i, n in enumerate(CLASS_NAMES[:34])}
    for a, b in (("2m", "3m"), ("5p", "6p"), ("2s", "3s"), ("E", "S"), ("N", "W"), ("C", "F"), ("1m", "1p")):
        assert float(np.abs(mean[a] - mean[b]).mean()) > 4.0, (a, b)
    for i, arr in enumerate(small_drawn.faces[:33]):
        grey = arr.astype(np.float32).mean(-1)
        assert grey.reshape(len(arr), -1).std(1).min() > 15, CLASS_NAMES[i]
        assert np.median(grey) > 180, CLASS_NAMES[i]  # white/ivory background


@needs_font
def test_red_fives_print_the_fives_in_red() -> None:
    """Riichi sets print 5m/5p/5s in red: the same style with red fives has clearly more red ink on the
    fives and the same faces elsewhere."""
    import dataclasses

    st = drawn._random_set(np.random.default_rng(3), str(drawn.find_cjk_font()), prints=False)

    def face(name: str, red: bool) -> np.ndarray:
        style = dataclasses.replace(st, red_fives=red)
        return drawn._draw_face(CLASS_NAMES.index(name), style, np.random.default_rng(7)).astype(int)

    def red_ink(img: np.ndarray) -> int:  # BGR: red clearly above green and blue
        return int(((img[..., 2] - img[..., 1] > 60) & (img[..., 2] - img[..., 0] > 60)).sum())

    for name in ("5m", "5p", "5s"):
        assert red_ink(face(name, True)) > 1.25 * red_ink(face(name, False)) + 20, name
    for name in ("4p", "6s", "C"):
        assert np.array_equal(face(name, True), face(name, False)), name


def test_missing_font_is_a_clear_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("VISION_CJK_FONT", str(tmp_path / "nope.ttc"))
    with pytest.raises(FileNotFoundError, match="VISION_CJK_FONT"):
        drawn.find_cjk_font()
    assert cli.main(["--out", str(tmp_path / "o"), "--n", "1", "--drawn-share", "0.5"]) == 2
    assert "VISION_CJK_FONT" in capsys.readouterr().err
    monkeypatch.delenv("VISION_CJK_FONT")
    monkeypatch.setattr(drawn, "shipped_cjk_font", lambda: None)
    with pytest.raises(FileNotFoundError, match="shipped CJK font .* is missing"):
        drawn.find_cjk_font()


@needs_font
def test_generate_with_drawn_faces_is_deterministic(tmp_path: Path) -> None:
    cli.generate(tmp_path / "a", 2, SEED, drawn_share=1.0)
    cli.generate(tmp_path / "b", 2, SEED, drawn_share=1.0, workers=2)
    a, b = _files(tmp_path / "a"), _files(tmp_path / "b")
    a.pop("data.yaml"), b.pop("data.yaml")
    assert a.keys() == b.keys() and all(a[k] == b[k] for k in a)
    bank = load_face_bank()
    for i in range(2):
        name = cli.scene_name(i)
        assert len(_labels(tmp_path / "a", name)) >= 4
        assert a[f"images/{name}.jpg"] != make_scene(bank, SEED, i).jpeg


@needs_font
def test_drawn_share_leaves_real_scenes_alone(runs: dict[str, Path], tmp_path: Path) -> None:
    """Share 0 gives the default run's bytes; with a share, the scenes that keep real faces do too."""
    cli.generate(tmp_path, 2, SEED, drawn_share=0.0)
    for i in range(2):
        name = cli.scene_name(i)
        assert (tmp_path / "images" / f"{name}.jpg").read_bytes() == (
            runs["a"] / "images" / f"{name}.jpg"
        ).read_bytes()
    bank, bank_d = load_face_bank(), drawn.drawn_face_bank(SEED)
    same = [
        make_scene(bank, SEED, i, drawn=bank_d, drawn_share=0.5).jpeg == make_scene(bank, SEED, i).jpeg
        for i in range(6)
    ]
    assert any(same) and not all(same)


def test_a_meld_the_hand_s_suits_cannot_give_is_drawn_from_what_is_left() -> None:
    """Scene seed 30 stopped `vision synth` ("could not draw a meld"): a chi in 饼 alone with every
    3p, 4p and 7p gone. The meld now comes from any suit the pool still holds, four copies at most;
    a pool that holds no such meld at all is still said in words."""
    from vision.train.synth import content

    pool = content._Pool(np.random.default_rng(0))
    for code in ("3p", "4p", "7p"):
        pool.take(code, 4)
    meld = content._meld("chi", pool, np.random.default_rng(1), ["p", "z"])
    suit = meld.faces[0][1]
    assert (
        meld.kind == "chi"
        and suit != "p"
        and [int(f[0]) for f in meld.faces] == list(range(int(meld.faces[0][0]), int(meld.faces[0][0]) + 3))
    )
    assert all(pool.left[f] == 3 for f in meld.faces)
    empty = content._Pool(np.random.default_rng(0))
    for code in empty.left:
        empty.left[code] = 2
    with pytest.raises(RuntimeError, match="could not draw a pong"):
        content._meld("pong", empty, np.random.default_rng(1), ["p", "z"])


def test_the_hands_of_scene_seed_30_are_drawn(monkeypatch: pytest.MonkeyPatch) -> None:
    """The hands of `vision synth --seed 30`'s 600 scenes, drawn as scene.render draws them (its
    size first): one of them needs the fallback, and every hand holds 13 tiles besides its
    winning tile. The fallback is reached only where 200 random draws failed, so a hand that drew
    its melds before draws the same ones."""
    from vision.train.synth import content, scene

    used = []
    fallback = content._meld_from_what_is_left
    monkeypatch.setattr(content, "_meld_from_what_is_left", lambda *a: used.append(a[0]) or fallback(*a))
    for i in range(600):
        rng = np.random.default_rng([30, i])
        rng.integers(len(scene.SIZES))
        hand = content.random_hand(rng)
        counted = sum(3 for m in hand.melds) + len(hand.standing) - (0 if hand.winning_apart else 1)
        assert counted == 13, i
    assert used, "seed 30 no longer reaches the fallback: find another seed that does"
