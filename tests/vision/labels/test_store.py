"""vision.labels.store: saved photos form a valid YOLO dataset that vision.train.data reads; never overwritten."""

from __future__ import annotations

import hashlib
import io
import json
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
import yaml
from PIL import Image

from vision.classes import CLASS_NAMES
from vision.labels.store import (
    LabelBox,
    complete_examples,
    content_hash,
    ensure_dataset,
    read_manifest,
    safe_stem,
    save_example,
    split_for,
    yolo_rows,
)
from vision.read.imageio import load_image
from vision.train import data as vdata


def _photo(seed: int = 0, h: int = 60, w: int = 80) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 255, (h, w, 3), dtype=np.uint8)


BOXES = [LabelBox("5m", (10, 10, 20, 30)), LabelBox("C", (30, 5, 45, 25)), LabelBox("back", (50, 10, 70, 40))]


def test_saved_photo_is_a_dataset_vision_data_reads(tmp_path: Path):
    root = tmp_path / "labelled"
    res = save_example(_photo(), BOXES, root, source_name="IMG_0001.HEIC", model_version="m1", changed=2)
    assert not res.duplicate and res.image.is_file() and res.label.is_file()
    assert res.image.parent == root.resolve() / "images" / res.split
    assert res.label.parent == root.resolve() / "labels" / res.split
    cfg = yaml.safe_load((root / "data.yaml").read_text())
    assert [cfg["names"][i] for i in range(len(CLASS_NAMES))] == list(CLASS_NAMES)
    assert cfg["train"] == "images/train" and cfg["val"] == "images/val" and "path" not in cfg
    # the colleague's reader sees the photo in its split and the boxes in the right classes
    imgs = vdata.split_images(root, res.split)
    assert [p.resolve() for p in imgs] == [res.image]
    boxes = vdata.read_labels(vdata.label_path_for(imgs[0]))
    assert [CLASS_NAMES[b.cls] for b in boxes] == ["5m", "C", "back"]
    x1, y1, x2, y2 = boxes[0].xyxy(80, 60)
    assert (round(x1), round(y1), round(x2), round(y2)) == (10, 10, 20, 30)
    rec = read_manifest(root)
    assert len(rec) == 1
    assert rec[0]["hash"] == res.hash and rec[0]["model_version"] == "m1" and rec[0]["changed"] == 2
    assert rec[0]["saved_utc"].endswith("Z") and rec[0]["boxes"] == 3


def test_same_photo_twice_is_stored_once_and_not_overwritten(tmp_path: Path):
    root = tmp_path / "ds"
    first = save_example(_photo(), BOXES, root, source_name="a.jpg")
    before = first.label.read_bytes(), first.image.read_bytes(), first.image.stat().st_mtime_ns
    again = save_example(_photo(), BOXES, root, source_name="b.jpg")
    assert again.duplicate and again.image == first.image and again.version == 1
    assert (first.label.read_bytes(), first.image.read_bytes(), first.image.stat().st_mtime_ns) == before
    assert len(read_manifest(root)) == 1
    other = save_example(_photo(1), BOXES, root)
    assert not other.duplicate and len(read_manifest(root)) == 2
    assert len(list(root.rglob("*.jpg"))) == 2
    assert not list((root / "images").rglob(".*")) and not list((root / ".staging").iterdir())


def test_saving_again_after_a_fix_keeps_both_versions_and_the_newest_wins(tmp_path: Path):
    root = tmp_path / "ds"
    first = save_example(_photo(), BOXES, root, changed=0)
    fixed = save_example(_photo(), BOXES[:2], root, changed=1)
    assert not fixed.duplicate and fixed.version == 2 and fixed.supersedes == first.image
    assert fixed.image != first.image and fixed.split == first.split
    assert first.image.is_file() and len(vdata.read_labels(first.label)) == 3  # the old one is kept
    assert [r["version"] for r in read_manifest(root)] == [1, 2]
    # training sees one example of the photo: the fixed one
    assert [e.image for e in complete_examples(root)] == [fixed.image]
    assert vdata.split_images(root, fixed.split) == [fixed.image]
    assert len(vdata.read_labels(vdata.label_path_for(fixed.image))) == 2
    # the fix saved twice is a duplicate; going back to the first boxes is a third version
    assert save_example(_photo(), BOXES[:2], root).duplicate
    back = save_example(_photo(), BOXES, root)
    assert not back.duplicate and back.version == 3 and back.image == first.image
    assert [e.image for e in complete_examples(root)] == [first.image]
    assert len(list(root.rglob("*.jpg"))) == 2 and len(read_manifest(root)) == 3


def test_existing_file_is_never_replaced(tmp_path: Path):
    """A foreign file squatting on the target name survives, and the save takes the next name."""
    root = tmp_path / "ds"
    ensure_dataset(root)
    rgb = _photo(3)
    digest = content_hash(rgb)
    label_bytes = "".join(r + "\n" for r in yolo_rows(BOXES, 80, 60)).encode()
    name = f"photo_{digest[:16]}_{hashlib.sha256(label_bytes).hexdigest()[:8]}"
    squatter = root / "labels" / split_for(digest) / f"{name}.txt"
    squatter.write_text("keep me\n")
    res = save_example(rgb, BOXES, root)
    assert squatter.read_text() == "keep me\n"
    assert res.label.name == f"{name}-2.txt" and res.image.name == f"{name}-2.jpg"
    assert [e.image for e in complete_examples(root)] == [res.image]


@pytest.mark.parametrize(
    "name", ["../../evil.jpg", "..", "/etc/passwd", "a/../../b.png", "..\\..\\x.jpg", "", None, "中文 名.jpg"]
)
def test_names_from_input_cannot_escape(tmp_path: Path, name):
    root = tmp_path / "ds"
    res = save_example(_photo(7), BOXES, root, source_name=name)
    for p in (res.image, res.label):
        assert root.resolve() in p.parents
    assert {p.name for p in tmp_path.iterdir()} == {"ds"}
    assert safe_stem(name) and "/" not in safe_stem(name) and ".." not in safe_stem(name)


def test_split_is_deterministic_and_both_splits_occur():
    digests = [content_hash(_photo(i, 8, 8)) for i in range(200)]
    splits = [split_for(d) for d in digests]
    assert splits == [split_for(d) for d in digests]
    assert 10 < splits.count("val") < 70


def test_boxes_are_saved_in_upright_coordinates(tmp_path: Path):
    """A sideways phone JPEG (EXIF orientation 6): the saved image is upright and the boxes match it."""
    upright = np.zeros((40, 30, 3), np.uint8)
    upright[5:15, 20:28] = 255  # a white "tile" near the top right of the upright photo
    stored = Image.fromarray(upright).rotate(90, expand=True)  # what the camera wrote (landscape)
    exif = Image.Exif()
    exif[0x0112] = 6
    path = tmp_path / "phone.jpg"
    stored.save(path, exif=exif, quality=100)
    rgb = load_image(path)
    assert rgb.shape[:2] == (40, 30)
    ys, xs = np.nonzero(rgb[:, :, 0] > 128)
    box = LabelBox("1s", (xs.min(), ys.min(), xs.max() + 1, ys.max() + 1))
    res = save_example(rgb, [box], tmp_path / "ds")
    saved = np.asarray(Image.open(res.image))
    assert saved.shape[:2] == (40, 30)
    assert (Image.open(res.image).getexif().get(0x0112) or 1) == 1
    b = vdata.read_labels(res.label)[0]
    x1, y1, x2, y2 = b.xyxy(30, 40)
    assert saved[int((y1 + y2) / 2), int((x1 + x2) / 2)].mean() > 200


def test_bad_inputs(tmp_path: Path):
    with pytest.raises(ValueError):
        save_example(np.zeros((5, 5), np.uint8), BOXES, tmp_path)
    with pytest.raises(ValueError, match="unknown tile class"):
        save_example(_photo(), [LabelBox("9z", (1, 1, 5, 5))], tmp_path / "x")
    # out-of-image and empty boxes are clipped or dropped, never written as invalid rows
    res = save_example(
        _photo(9), [LabelBox("1m", (-10, -10, 5, 5)), LabelBox("2m", (3, 3, 3.2, 9))], tmp_path / "y"
    )
    rows = res.label.read_text().split()
    assert len(vdata.read_labels(res.label)) == 1 and all(0 <= float(v) <= 1 for v in rows[1:])


def test_foreign_data_yaml_is_refused(tmp_path: Path):
    root = tmp_path / "ds"
    root.mkdir()
    (root / "data.yaml").write_text("names: ['a', 'b']\n")
    with pytest.raises(ValueError, match="class names differ"):
        ensure_dataset(root)
    assert (root / "data.yaml").read_text() == "names: ['a', 'b']\n"


def test_manifest_survives_a_bad_line(tmp_path: Path):
    root = tmp_path / "ds"
    save_example(_photo(), BOXES, root)
    with open(root / "manifest.jsonl", "a") as f:
        f.write("{truncated\n")
    save_example(_photo(2), BOXES, root)
    assert len(read_manifest(root)) == 2
    assert all(json.loads(json.dumps(r)) for r in read_manifest(root))


def test_saved_jpeg_decodes(tmp_path: Path):
    res = save_example(_photo(4), BOXES, tmp_path / "ds")
    with Image.open(io.BytesIO(res.image.read_bytes())) as im:
        assert im.size == (80, 60) and im.format == "JPEG"
    assert oct(os.stat(res.image).st_mode)[-3:] == "644"


def test_a_save_interrupted_before_its_manifest_line_is_completed(tmp_path: Path):
    root = tmp_path / "ds"
    first = save_example(_photo(5), BOXES, root)
    (root / "manifest.jsonl").unlink()  # as if the process died just before the commit line
    assert complete_examples(root) == [] and vdata.split_images(root, first.split) == []
    again = save_example(_photo(5), BOXES, root)  # not "duplicate": the line is written now
    assert not again.duplicate and again.image == first.image and len(read_manifest(root)) == 1
    assert [e.image for e in complete_examples(root)] == [first.image]


def test_an_orphan_label_does_not_block_a_save(tmp_path: Path):
    root = tmp_path / "ds"
    first = save_example(_photo(5), BOXES, root)
    first.image.unlink()  # a save that died between its label and its image
    (root / "manifest.jsonl").unlink()
    again = save_example(_photo(5), BOXES, root)
    assert not again.duplicate and again.image.is_file() and again.label == first.label


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf"), "x", None])
def test_non_finite_or_non_numeric_boxes_are_refused(tmp_path: Path, bad):
    root = tmp_path / "ds"
    with pytest.raises(ValueError, match="box 2 \\(C\\)"):
        save_example(_photo(), [BOXES[0], LabelBox("C", (1, 2, bad, 9))], root)
    assert not list(root.rglob("*.jpg")) and not list(root.rglob("*.txt")) and read_manifest(root) == []


def test_readers_skip_nan_labels_and_hidden_files(tmp_path: Path):
    root = tmp_path / "ds"
    good = save_example(_photo(1), BOXES, root)
    bad = save_example(_photo(2), BOXES, root)
    bad.label.write_text("3 nan 0.5 0.1 0.1\n")  # damaged after saving
    (good.image.parent / ".tmp-abc.jpg").write_bytes(b"\xff\xd8 half a photo")
    assert [e.image for e in complete_examples(root)] == [good.image]
    with pytest.raises(ValueError, match="non-finite"):
        vdata.read_labels(bad.label)
    listed = vdata._list_images("images/" + good.split, root)  # the plain folder listing
    assert good.image in listed and not any(p.name.startswith(".") for p in listed)


def test_a_torn_manifest_line_is_not_glued_to_the_next(tmp_path: Path):
    root = tmp_path / "ds"
    save_example(_photo(1), BOXES, root)
    with open(root / "manifest.jsonl", "ab") as f:
        f.write(b'{"hash": "abc", "ima')  # a crash or full disk mid-line (older versions)
    res = save_example(_photo(2), BOXES, root)
    lines = (root / "manifest.jsonl").read_bytes().split(b"\n")
    assert lines[-1] == b"" and json.loads(lines[-2])["hash"] == res.hash
    assert len(read_manifest(root)) == 2 and len(complete_examples(root)) == 2


def test_a_store_written_by_the_previous_version_is_still_read(tmp_path: Path):
    """Before versions: names without the label hash, manifest lines without checksums."""
    root = tmp_path / "ds"
    res = save_example(_photo(1), BOXES, root)
    old_image = res.image.with_name(res.image.name.rsplit("_", 1)[0] + ".jpg")
    old_label = vdata.label_path_for(old_image)
    os.rename(res.image, old_image)
    os.rename(res.label, old_label)
    rec = read_manifest(root)[0]
    for k in ("version", "label_sha256", "image_sha256", "image_bytes"):
        del rec[k]
    rec["image"], rec["label"] = (p.relative_to(root.resolve()).as_posix() for p in (old_image, old_label))
    (root / "manifest.jsonl").write_text(json.dumps(rec) + "\n")
    assert [e.image for e in complete_examples(root)] == [old_image]
    assert save_example(_photo(1), BOXES, root).duplicate
    assert save_example(_photo(1), BOXES[:1], root).version == 2


def test_manifest_paths_outside_the_folder_are_ignored(tmp_path: Path):
    root = tmp_path / "ds"
    res = save_example(_photo(1), BOXES, root, extra={"hash": "forged", "note": "kept"})
    rec = read_manifest(root)[0]
    assert rec["hash"] == res.hash and rec["note"] == "kept"  # extra never replaces our fields
    outside = tmp_path / "images" / "train" / "x.jpg"
    outside.parent.mkdir(parents=True)
    outside.write_bytes(res.image.read_bytes())
    rec.update(hash="f" * 64, image="../images/train/x.jpg", label="../labels/train/x.txt", split="train")
    with open(root / "manifest.jsonl", "a") as f:
        f.write(json.dumps(rec) + "\n")
    assert [e.image for e in complete_examples(root)] == [res.image]


def test_concurrent_threads_store_a_photo_once(tmp_path: Path):
    root = tmp_path / "ds"
    with ThreadPoolExecutor(6) as pool:
        results = list(pool.map(lambda _: save_example(_photo(8), BOXES, root), range(12)))
    assert sum(not r.duplicate for r in results) == 1
    assert len(read_manifest(root)) == 1 and len(list(root.rglob("*.jpg"))) == 1


def test_write_dataset_skips_temp_files(tmp_path: Path):
    res = save_example(_photo(1), BOXES, tmp_path / "ds")
    temp = res.image.parent / ".tmp-x.jpg"
    temp.write_bytes(b"partial")
    out = vdata.write_dataset(tmp_path / "out", {"train": [("a", res.image), ("a", temp)]})
    assert [p.name for p in (out.parent / "train" / "images").iterdir()] == [f"a_{res.image.name}"]
