"""Group a labelled photo set by session (table, light, camera) for leave-one-group-out measures.

Why: a player's set is always a print and a table the model never saw, so the honest number is
what the reader does on a group of photos it was not trained on. The shared real set
(chinese-mahjong-v4) carries no session labels and its file names are opaque ids; it shows one
printing style of tiles photographed in several sessions (a black tray on a grey floor, a green
table with a wooden edge, an automatic table with blue backs, ...). Sessions differ above all in
their background colours, so photos are grouped by k-means over a coarse colour histogram, with a
fixed seed; every augmented variant of one source photo (`<id>_jpg.rf.<hash>`) is put in the group
where most of its variants fall, so no source photo is on both sides of a split.

The grouping is written once to a JSON file (committed under datasets/groups/) so that training
(`python -m vision train --hold-out FILE:GROUP`) and evaluation (`evaluate --group FILE:GROUP`)
read exactly the same split, and a reviewer can see which photos are in which group.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

#: Roboflow export names: `<source id>_<ext>.rf.<hash>.jpg`; variants of one photo share the id.
_RF = re.compile(r"^(?P<src>.+?)_(?:jpe?g|png|JPE?G|PNG)\.rf\.[0-9a-f]+$")


def source_id(path: str | Path) -> str:
    """The source photo a (possibly augmented) image was exported from."""
    stem = Path(path).stem
    m = _RF.match(stem)
    return m.group("src") if m else stem


def colour_features(path: Path) -> np.ndarray:
    """Hue x saturation (12 x 4) and value (4) histograms of a 64 x 64 thumbnail, square-rooted
    (Hellinger), so that large uniform backgrounds dominate as they do to the eye."""
    image = cv2.imread(str(path))
    if image is None:
        raise ValueError(f"cannot read image {path}")
    hsv = cv2.cvtColor(cv2.resize(image, (64, 64), interpolation=cv2.INTER_AREA), cv2.COLOR_BGR2HSV)
    hs = cv2.calcHist([hsv], [0, 1], None, [12, 4], [0, 180, 0, 256]).ravel()
    v = cv2.calcHist([hsv], [2], None, [4], [0, 256]).ravel()
    return np.concatenate([np.sqrt(hs / hs.sum()), np.sqrt(v / v.sum())]).astype(np.float32)


def kmeans_groups(features: np.ndarray, k: int, seed: int = 0) -> np.ndarray:
    """Cluster label per row (OpenCV k-means++, 10 restarts, fixed RNG seed: repeatable)."""
    cv2.setRNGSeed(seed)
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 100, 1e-4)
    _, labels, _ = cv2.kmeans(features, k, None, criteria, 10, cv2.KMEANS_PP_CENTERS)
    return labels.ravel().astype(int)


@dataclass
class Grouping:
    """Source id -> group name, for one dataset."""

    dataset: str
    groups: dict[str, str]

    def group_of(self, path: str | Path) -> str | None:
        """The group of an image (by its source id), or None when it was not grouped."""
        return self.groups.get(source_id(path))

    def members(self, name: str) -> set[str]:
        """Source ids of one group."""
        return {s for s, g in self.groups.items() if g == name}

    def to_json(self) -> str:
        counts = Counter(self.groups.values())
        body = {"dataset": self.dataset, "sizes": dict(sorted(counts.items())), "groups": self.groups}
        return json.dumps(body, indent=1, sort_keys=False, ensure_ascii=False) + "\n"


def group_photos(images: list[Path], k: int = 6, seed: int = 0, dataset: str = "") -> Grouping:
    """Group images by session: k-means on colours, then one group per source photo (majority of
    its variants; ties to the lowest group number)."""
    labels = kmeans_groups(np.stack([colour_features(p) for p in images]), k, seed)
    votes: dict[str, Counter] = {}
    for path, label in zip(images, labels, strict=True):
        votes.setdefault(source_id(path), Counter())[int(label)] += 1
    groups = {src: f"g{min(c, key=lambda g: (-c[g], g))}" for src, c in sorted(votes.items())}
    return Grouping(dataset, groups)


def read_grouping(path: str | Path) -> Grouping:
    """Load a grouping file written by `group_photos(...).to_json()`."""
    d = json.loads(Path(path).read_text(encoding="utf-8"))
    return Grouping(str(d.get("dataset", "")), dict(d["groups"]))


def parse_spec(spec: str) -> tuple[Grouping, str]:
    """`FILE:GROUP` -> (grouping, group name); the group must exist in the file."""
    file, sep, name = spec.rpartition(":")
    if not sep or not file or not name:
        raise ValueError(f"expected FILE:GROUP, got {spec!r}")
    grouping = read_grouping(file)
    if name not in set(grouping.groups.values()):
        raise ValueError(f"{file}: no group {name!r} (groups: {sorted(set(grouping.groups.values()))})")
    return grouping, name


def photos_of(real: Path, split: str, grouping: Grouping, name: str, inside: bool = True) -> list[Path]:
    """The photos of one split of `real` inside one group (or, `inside=False`, outside it). One
    selection for every caller (the held-out and point datasets below, benchmarks/adapt_trial.py
    --group), so a group means the same photos wherever it is named."""
    from vision.train import data

    return [p for p in data.split_images(real, split) if (grouping.group_of(p) == name) == inside]


def split_by_group(real: Path, grouping: Grouping, name: str, out_dir: Path) -> tuple[Path, Path]:
    """Write two linked datasets (vision.train.data.write_dataset, 35 classes) and return their data.yaml:

    - `without-<name>`: train and val photos of every OTHER group (what a held-out run trains on;
      its val is the in-distribution number);
    - `only-<name>`: the group's photos (val: what is reported as held-out; train: its augmented
      variants, never used for training by a held-out run).
    """
    from vision.train import data

    def pick(split: str, inside: bool) -> list[tuple[str, Path]]:
        return [("r", p) for p in photos_of(real, split, grouping, name, inside)]

    without = data.write_dataset(
        out_dir / f"without-{name}", {"train": pick("train", False), "val": pick("val", False)}
    )
    only = data.write_dataset(
        out_dir / f"only-{name}", {"train": pick("train", True), "val": pick("val", True)}
    )
    return without, only


def split_by_spec(real: Path, spec: str, out_dir: Path) -> tuple[str, Path, Path]:
    """`split_by_group` for a `FILE:GROUP` spec: (group name, without-<name>, only-<name>). One path
    for every caller that names a group on its command line (train --hold-out and --point-group,
    reader_report --without-group), so each reads exactly the same split."""
    grouping, name = parse_spec(spec)
    without, only = split_by_group(real, grouping, name, out_dir)
    return name, without, only
