"""Every candidate reader side by side on the real sets, and the ship rule, from one command.

    python benchmarks/reader_report.py [--model models/model.json] [--seat-test .cache/seat-test]
    python benchmarks/reader_report.py --candidate round5=git:da06b12 --candidate round4=git:da06b12^

Candidates: `--model` (default the shipped models/model.json) is the reader shipped, the base every
`--candidate NAME=SPEC` is judged against. SPEC is a model.json, or `git:REV` for the model files
committed at REV (`git show REV:models/...`, written to runs/candidates/NAME/, git-ignored; nothing
is fetched). Each reader is summarised at its own operating point (its model.json's tile_conf).
`--base NAME` also judges every other candidate against the candidate NAME, by the same rule: a
change made on top of a candidate that would ship (its `tta_below`, say) is judged against that
candidate too, in the same run.

Sets (each read once at a low threshold, then summarised at each reader's operating point):
- the real val photos (`../shared/datasets/chinese-mahjong-v4`), split by kind: "stretched" photos
  are those whose labelled boxes have a median long/short side over STRETCHED_RATIO (Roboflow
  squeezed tall photos of a column of tiles into 640x640, so each tile is a bar 9-12x wider than
  high; no phone photo looks like that), "ordinary" the rest. The split describes; it chooses nothing.
  Of the ordinary ones, "a hand in a row" again apart (`vision.train.rows.in_a_row`: at least ROW_MIN_TILES labelled
  tiles whose centres lie on one straight line): the photo the app is for; a subset, and in the rule.
  `--without-group FILE:GROUP` leaves one session's photos out of these three (for every reader):
  the group a candidate's operating point was chosen on (`vision train --point-group`).
- "meld close-ups": the same real val photos' melds cut as a player photographs a loser's melds
  (benchmarks/loser_melds_report.py: one or two melds, tiles 160 px high, most of the frame), read
  as the page reads them, zoomed out (page.loser_photo.MELD_ZOOM_OUT). Real, and in the rule: the
  reader report had no close-up until stop 53, when a bisect found round 7 had lost half of them.
- `../shared/datasets/riichi-standing-dev` (leomiurarobot, Roboflow Universe, CC BY 4.0): standing
  tiles of a print never trained on, as exported (640x640, stretched) and resized back to the
  camera's 16:9 (RIICHI_CAMERA_ASPECT; labels are normalised, so they follow). Measured only: nothing
  here is tuned on it (its README).
- the "seat test", SYNTHETIC (a separate, labelled line; it never decides): drawn prints only, a
  third seen from the seat, half with clutter (`python -m vision synth --out DIR --n 120 --seed 9050
  --val-fraction 0.9 --drawn-share 1.0`, generated when DIR is missing). Its seed trains nothing.

The ship rule (`ship_verdict`): a candidate ships only if, on EVERY real set, none of tiles returned,
tile precision, faces right and photos fully right is worse than the shipped reader's beyond the
noise. Noise is measured by a paired bootstrap over photos (NOISE_RESAMPLES resamples of each set's
photos, the same resample for both readers): a difference is a loss when even the favourable end
of its one-sided NOISE_LEVEL interval is below zero. The reader is deterministic (the same photo
read twice gives the same boxes), so the photos drawn are the noise. Synthetic sets are printed
apart and never enter the rule.

Tile fates (`tile_fates`, shown, never in the rule): each candidate against the shipped reader,
labelled tile by labelled tile on every real set: tiles newly returned or lost, tiles read right ->
wrong or wrong -> right, and the faces right on the tiles both return. The rule's faces number is a
share of the tiles a reader returns; this says whether a change in it is the same tiles read worse
or new, harder tiles.

Prints markdown tables and writes the same numbers as JSON to --out (default: none).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

os.environ.setdefault("YOLO_OFFLINE", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))  # loser_melds_report: the meld close-ups

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from vision.classes import CLASS_NAMES  # noqa: E402
from vision.labels import fixes as label_fixes  # noqa: E402
from vision.read.boxes import elongation  # noqa: E402
from vision.read.detect import TileModel, load_model  # noqa: E402
from vision.read.imageio import load_image  # noqa: E402
from vision.train import data  # noqa: E402
from vision.train.evaluate import (  # noqa: E402
    ImageResult,
    all_tiles_right,
    collect,
    detections_result,
    image_counts,
    labelled_tile_reads,
    mean_ap,
)
from vision.train.rows import in_a_row  # noqa: E402

#: A photo whose labelled tiles are, at the median, longer than this many times their width was
#: stretched out of its aspect (a tile is 4:3; seen at a slant perhaps 2:1).
STRETCHED_RATIO = 4.0
SEAT_TEST_SYNTH = ["--n", "120", "--seed", "9050", "--val-fraction", "0.9", "--drawn-share", "1.0"]
RIICHI = ROOT.parent / "shared" / "datasets" / "riichi-standing-dev"
#: riichi-standing-dev's frames were 2560x1440 screenshots stretched to 640x640 (its README).
RIICHI_CAMERA_ASPECT = 2560 / 1440
CANDIDATES_DIR = ROOT / "runs" / "candidates"
#: Where --without-group writes the real set without a group (linked photos, git-ignored).
REPORT_GROUPS_DIR = ROOT / "runs" / "report" / "groups"
#: A committed reader's files are every file of models/ at that revision but these (prose).
NOT_MODEL_FILES = (".md",)

#: The numbers the ship rule compares (all "higher is better").
RULE_METRICS = ("tiles_returned", "tile_precision", "faces_right", "all_right")
#: Shown, never in the rule: labelled tiles returned with the right face (returned x faces right).
#: "Faces right" is of the tiles a reader returns, so a reader that returns more (harder) tiles can
#: read a smaller share of them right and still leave fewer faces for the player to fix.
INFO_METRICS = ("read_right",)
COLUMNS = ("map50", *RULE_METRICS, *INFO_METRICS)
NOISE_RESAMPLES = 2000
#: One-sided level: a difference counts as a loss only if its bootstrap 95th percentile is below 0.
NOISE_LEVEL = 0.95


@dataclass
class SetReading:
    """One reader's readings of one set: per photo the counts every shared number is a ratio of."""

    name: str
    real: bool
    images: list[ImageResult]
    conf: float

    def per_photo(self) -> np.ndarray:
        """N x 5 per photo at the operating point: ground-truth tiles, returned boxes, boxes on a
        tile, of those the right face, fully right (0/1). Sums of rows give every share."""
        rows = []
        for im in self.images:
            at = im.above(self.conf)
            c = image_counts(at)
            rows.append((c.n_gt, c.n_pred, c.boxed, c.right, float(all_tiles_right(at))))
        return np.array(rows, dtype=np.float64).reshape(-1, 5)


def shares(summed: np.ndarray, n_photos: int) -> dict[str, np.ndarray]:
    """The rule's numbers from per-photo counts summed over `n_photos` photos (last axis: the 5
    columns of per_photo; leading axes: any, e.g. resamples), as evaluate's `_shares` defines them."""
    n_gt, n_pred, boxed, right, full = (summed[..., k] for k in range(5))
    return {
        "tiles_returned": boxed / np.maximum(n_gt, 1),
        "tile_precision": boxed / np.maximum(n_pred, 1),
        "faces_right": right / np.maximum(boxed, 1),
        "all_right": full / max(n_photos, 1),
        "read_right": right / np.maximum(n_gt, 1),
    }


def resampled(per_photo: np.ndarray, picks: np.ndarray) -> dict[str, np.ndarray]:
    """The rule's numbers on each resample of photos (`picks`: resamples x photos indices)."""
    return shares(per_photo[picks].sum(axis=1), picks.shape[1])


def point(per_photo: np.ndarray) -> dict[str, float]:
    """The rule's numbers on the set as it is."""
    return {k: float(v) for k, v in shares(per_photo.sum(axis=0), len(per_photo)).items()}


def bootstrap_picks(n: int, seed: int = 0) -> np.ndarray:
    """NOISE_RESAMPLES resamples (with replacement) of n photos; fixed seed, so the noise printed is
    the same on every run of the same readings."""
    return np.random.default_rng(seed).integers(0, n, size=(NOISE_RESAMPLES, n))


@dataclass
class Finding:
    """One metric on one set: the candidate's difference from the shipped reader and its noise."""

    set: str
    metric: str
    diff: float
    favourable: float  # the one-sided NOISE_LEVEL bound of the difference (its best plausible value)
    noise_sd: float

    @property
    def loss(self) -> bool:
        """Worse beyond the noise: even the favourable end of the interval is below zero."""
        return self.favourable < 0.0


def compare(base: SetReading, cand: SetReading) -> list[Finding]:
    """The candidate's differences on one set, with a paired bootstrap over the same photos."""
    pb, pc = base.per_photo(), cand.per_photo()
    picks = bootstrap_picks(len(pb))
    rb, rc = resampled(pb, picks), resampled(pc, picks)
    b, c = point(pb), point(pc)
    out = []
    for m in RULE_METRICS:
        d = rc[m] - rb[m]
        out.append(Finding(base.name, m, c[m] - b[m], float(np.quantile(d, NOISE_LEVEL)), float(d.std())))
    return out


def ship_verdict(base: list[SetReading], cand: list[SetReading]) -> tuple[bool, list[Finding]]:
    """The ship rule: (ships, findings over every real set). Synthetic sets are left out entirely,
    so no synthetic gain can outweigh a real loss."""
    findings = []
    for b, c in zip(base, cand, strict=True):
        if b.name != c.name:
            raise ValueError(f"sets differ: {b.name} vs {c.name}")
        if b.real:
            findings += compare(b, c)
    return not any(f.loss for f in findings), findings


#: tile_fates' counts: the keys of its dict and of the report's JSON "fates".
FATES = (
    "new_right",
    "new_wrong",
    "lost_right",
    "lost_wrong",
    "right_to_wrong",
    "wrong_to_right",
    "both",
    "both_right_base",
    "both_right_cand",
)


def tile_fates(base: SetReading, cand: SetReading) -> dict[str, int]:
    """Labelled tile by labelled tile, what `cand` reads that `base` did not (each at its own
    point): tiles newly returned (right or wrong face), lost (were right or wrong), the same tile
    read right -> wrong and wrong -> right, and of the tiles both return how many each reads right.
    Why: the rule's faces number is a share of the tiles a reader returns, so a reader that
    returns more, harder tiles can lose it while the player fixes fewer (stops 59 and 60); this
    says where a difference comes from. Shown, never in the rule."""
    fates = dict.fromkeys(FATES, 0)
    for b_im, c_im in zip(base.images, cand.images, strict=True):
        if b_im.name != c_im.name:
            raise ValueError(
                f"{base.name}: the two readings are of different photos ({b_im.name}, {c_im.name})"
            )
        b = labelled_tile_reads(b_im.above(base.conf))
        c = labelled_tile_reads(c_im.above(cand.conf))
        gained, lost, both = (b < 0) & (c >= 0), (b >= 0) & (c < 0), (b >= 0) & (c >= 0)
        fates["new_right"] += int((gained & (c == 1)).sum())
        fates["new_wrong"] += int((gained & (c == 0)).sum())
        fates["lost_right"] += int((lost & (b == 1)).sum())
        fates["lost_wrong"] += int((lost & (b == 0)).sum())
        fates["right_to_wrong"] += int((both & (b == 1) & (c == 0)).sum())
        fates["wrong_to_right"] += int((both & (b == 0) & (c == 1)).sum())
        fates["both"] += int(both.sum())
        fates["both_right_base"] += int((both & (b == 1)).sum())
        fates["both_right_cand"] += int((both & (c == 1)).sum())
    return fates


def stretched(im: ImageResult) -> bool:
    """Whether a labelled photo was stretched out of its aspect (see STRETCHED_RATIO)."""
    if len(im.gt_boxes) == 0:
        return False
    return float(np.median(elongation(im.gt_boxes))) > STRETCHED_RATIO


def camera_aspect(aspect: float) -> Callable[[Path], np.ndarray]:
    """A loader that resizes a square-stretched export back to `aspect` (width / height), keeping
    its height: the source frames' proportions, so the tiles are as narrow as the camera saw them."""

    def load(path: Path) -> np.ndarray:
        rgb = load_image(path)
        h = rgb.shape[0]
        return cv2.resize(rgb, (round(h * aspect), h), interpolation=cv2.INTER_CUBIC)

    return load


def materialise(name: str, spec: str) -> Path:
    """The model.json of a candidate: a path as given, or `git:REV`'s committed model files (every
    file of models/ there but the card: the flower gate, the ONNX export and whatever a later
    model.json names) written to runs/candidates/NAME/ (git-ignored) from the local repository."""
    if not spec.startswith("git:"):
        return Path(spec)
    rev = spec[4:]
    out = CANDIDATES_DIR / name
    out.mkdir(parents=True, exist_ok=True)
    listed = subprocess.run(
        ["git", "-C", str(ROOT), "ls-tree", "--name-only", f"{rev}:models"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    for f in (f for f in listed if not f.endswith(NOT_MODEL_FILES)):
        blob = subprocess.run(
            ["git", "-C", str(ROOT), "show", f"{rev}:models/{f}"], check=True, capture_output=True
        ).stdout
        (out / f).write_bytes(blob)
    return out / "model.json"


def without_group(spec: str, real: Path) -> Path:
    """The real set without one group's photos (vision.train.groups), written under runs/report/:
    the group whose val photos chose a candidate's operating point is not what judges it."""
    from vision.train import groups

    name, without, _ = groups.split_by_spec(real, spec, REPORT_GROUPS_DIR)
    print(f"real val without group {name}: {without}", flush=True)
    return without


def read_sets(model: TileModel, args: argparse.Namespace) -> list[SetReading]:
    """Every set read by one reader, in the report's order."""
    conf = model.tile_conf
    real = collect(Path(args.real), model)
    ordinary, exports = [], []
    for im in real:  # each photo judged once, for both sides of the split
        (exports if stretched(im) else ordinary).append(im)
    sets = [
        SetReading("real val, ordinary", True, ordinary, conf),
        SetReading("real val, a hand in a row", True, [im for im in ordinary if in_a_row(im.gt_boxes)], conf),
        SetReading("real val, stretched", True, exports, conf),
    ]
    closeups = meld_closeups(Path(args.real), model)
    if closeups:
        sets.append(SetReading("real val, meld close-ups", True, closeups, conf))
    riichi = Path(args.riichi)
    if (riichi / "data.yaml").is_file():
        yaml = riichi / "data.yaml"
        sets.append(SetReading("riichi standing, as exported", True, collect(yaml, model), conf))
        at_aspect = collect(yaml, model, load=camera_aspect(RIICHI_CAMERA_ASPECT))
        sets.append(SetReading("riichi standing, camera 16:9", True, at_aspect, conf))
    if not args.no_seat_test:
        seat = Path(args.seat_test)
        if not (seat / "data.yaml").is_file():
            cmd = [sys.executable, "-m", "vision", "synth", "--out", str(seat), *SEAT_TEST_SYNTH]
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        sets.append(SetReading("seat test (SYNTHETIC)", False, collect(seat / "data.yaml", model), conf))
    return sets


def meld_closeups(real: Path, model: TileModel) -> list[ImageResult]:
    """The real val photos' melds cut as a player photographs a loser's melds, close (benchmarks/
    loser_melds_report.py: tiles 160 px high, filling most of the frame), read as the page reads
    them: zoomed out on a canvas (page.loser_photo.MELD_ZOOM_OUT, PhotoPixels.zoomed_out), the
    boxes mapped back. Why in the rule: round 7's detector lost half of these reads and no set
    here showed it (models/MODEL_CARD.md, stop 53)."""
    from loser_melds_report import meld_crops_with_tiles

    from page.loser_photo import MELD_ZOOM_OUT
    from vision.read.detect import PhotoPixels, detect, off_canvas

    out = []
    for image in data.split_images(real, "val"):
        label = data.label_path_for(image)
        if not label.is_file():
            continue
        for k, (jpeg, _, tiles) in enumerate(meld_crops_with_tiles(image, label)):
            pixels = PhotoPixels.decode(jpeg, model.det_imgsz)
            canvas, offset = pixels.zoomed_out(MELD_ZOOM_OUT)
            dets = detect(canvas, conf=0.001, model=model)
            boxes = off_canvas(np.array([d.xyxy for d in dets]), offset, pixels.scale, pixels.size)
            gt_boxes = np.array([t[1:] for t in tiles], dtype=np.float64)
            gt_cls = np.array([CLASS_NAMES.index(t[0]) for t in tiles], dtype=int)
            out.append(detections_result(gt_boxes, gt_cls, dets, f"{image.name}#{k}", boxes))
    return out


def set_row(reader: str, s: SetReading) -> dict:
    """One reader on one set: size, mAP50 and the rule's numbers, with each number's bootstrap sd."""
    pp = s.per_photo()
    picks = bootstrap_picks(len(pp))
    boot = resampled(pp, picks)
    row = {"reader": reader, "set": s.name, "real": s.real, "images": len(s.images), "tile_conf": s.conf}
    row["map50"] = float(mean_ap(s.images))
    row.update(point(pp))
    row["sd"] = {m: float(boot[m].std()) for m in (*RULE_METRICS, *INFO_METRICS)}
    row["errors"] = error_counts(pp)
    return row


def error_counts(per_photo: np.ndarray) -> dict[str, int]:
    """What stands between a set and every photo fully right, in tiles: labelled tiles no box
    covers, boxes on no labelled tile, boxes on a tile with the wrong face; and the photos that
    are not fully right. Where a reader's errors are is where the next change should look."""
    n_gt, n_pred, boxed, right, full = per_photo.sum(axis=0) if len(per_photo) else np.zeros(5)
    return {
        "missed": int(n_gt - boxed),
        "extra": int(n_pred - boxed),
        "wrong_face": int(boxed - right),
        "photos_not_right": int(len(per_photo) - full),
    }


def print_fates(fates: dict[str, dict[str, dict[str, int]]]) -> None:
    """Markdown: per candidate and real set, its tile_fates against the shipped reader."""
    print("\nTile fates against the shipped reader (labelled tiles; shown, never in the rule):")
    print(
        "| set | reader | newly returned: right / wrong | lost: were right / wrong | right → wrong | "
        "wrong → right | faces on the tiles both return: shipped → reader |"
    )
    print("|---|---|---|---|---|---|---|")
    for name, by_set in fates.items():
        for set_name, f in by_set.items():
            both = max(f["both"], 1)
            print(
                f"| {set_name} | {name} | {f['new_right']} / {f['new_wrong']} | {f['lost_right']} / "
                f"{f['lost_wrong']} | {f['right_to_wrong']} | {f['wrong_to_right']} | "
                f"{f['both_right_base'] / both:.4f} → {f['both_right_cand'] / both:.4f} ({f['both']}) |"
            )


def print_tables(rows: list[dict], verdicts: dict[tuple[str, str], tuple[bool, list[Finding]]]) -> None:
    """Markdown: one table of every reader on every set, then each verdict's findings (keys:
    (candidate, the reader it is judged against))."""
    print("| set | reader | images | " + " | ".join(COLUMNS) + " |")
    print("|---|---|---|" + "---|" * len(COLUMNS))
    for r in rows:
        cells = [f"{r['map50']:.4f}"] + [f"{r[m]:.4f} ±{r['sd'][m]:.4f}" for m in COLUMNS[1:]]
        print(
            f"| {r['set']} | {r['reader']} (tile_conf {r['tile_conf']}) | {r['images']} | "
            + " | ".join(cells)
            + " |"
        )
    print("\nErrors at the point, in tiles (photos not fully right):")
    print("| set | reader | missed | extra boxes | wrong faces | photos |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        e = r["errors"]
        print(
            f"| {r['set']} | {r['reader']} | {e['missed']} | {e['extra']} | {e['wrong_face']} | "
            f"{e['photos_not_right']} of {r['images']} |"
        )
    for (name, base), (ships, findings) in verdicts.items():
        if base == "shipped":
            print(f"\n{name} against the shipped reader: {'SHIPS' if ships else 'does NOT ship'}")
        else:
            print(f"\n{name} against {base}: {'not worse on any real set' if ships else 'WORSE'}")
        print(f"| set | metric | difference | favourable end ({NOISE_LEVEL:.0%}) | noise sd | loss |")
        print("|---|---|---|---|---|---|")
        for f in findings:
            mark = "LOSS" if f.loss else ""
            print(
                f"| {f.set} | {f.metric} | {f.diff:+.4f} | {f.favourable:+.4f} | {f.noise_sd:.4f} | {mark} |"
            )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--model", default=None, help="the shipped reader's model.json (default: models/model.json)"
    )
    ap.add_argument(
        "--candidate",
        action="append",
        default=[],
        metavar="NAME=SPEC",
        help="model.json or git:REV; repeatable",
    )
    ap.add_argument("--real", default=str(data.REAL_DATASET), help="real dataset (data.yaml or folder)")
    ap.add_argument(
        "--without-group",
        default=None,
        metavar="FILE:GROUP",
        help="leave this group's photos out of the real val sets (the group a candidate's point was "
        "chosen on: vision train --point-group)",
    )
    ap.add_argument("--riichi", default=str(RIICHI), help="riichi-standing-dev folder (skipped if missing)")
    ap.add_argument("--seat-test", default=".cache/seat-test", help="seat-test scenes (made if missing)")
    ap.add_argument("--no-seat-test", action="store_true", help="real sets only")
    ap.add_argument("--out", default=None, help="also write the rows and findings as JSON here")
    ap.add_argument(
        "--as-labelled",
        action="store_true",
        help="judge on the labels exactly as the dataset has them, without the reviewed fixes of "
        "datasets/label_fixes.json (vision/labels/fixes.py)",
    )
    ap.add_argument(
        "--base",
        default="shipped",
        metavar="NAME",
        help="also judge every other candidate against this one (default: only against the shipped "
        "reader); e.g. a candidate that would ship, to judge a change made on top of it",
    )
    args = ap.parse_args()
    if args.as_labelled:  # before any label is read, the split by group included
        os.environ[label_fixes.ENV_OFF] = "0"
    if args.without_group:
        try:
            args.real = str(without_group(args.without_group, Path(args.real)))
        except (OSError, ValueError) as exc:
            ap.error(f"--without-group: {exc}")

    readers = [("shipped", Path(args.model or ROOT / "models" / "model.json"))]
    for c in args.candidate:
        name, _, spec = c.partition("=")
        if not spec:
            ap.error(f"--candidate {c!r}: expected NAME=SPEC")
        readers.append((name, materialise(name, spec)))
    if args.base not in dict(readers):
        ap.error(f"--base {args.base!r}: no reader of that name (shipped or a --candidate)")
    # Every reader loaded before any set is read: a candidate that cannot load (a missing or linked
    # weights file) stops the report at once, not after the readers before it took minutes each.
    models = {}
    for name, path in readers:
        try:
            models[name] = load_model(path)
        except (OSError, ValueError) as exc:  # ModelFileError is a ValueError
            ap.error(f"reader {name!r} cannot be loaded: {exc}")
    readings = {name: read_sets(model, args) for name, model in models.items()}
    rows = [set_row(name, s) for name, sets in readings.items() for s in sets]
    rows.sort(key=lambda r: [s.name for s in readings["shipped"]].index(r["set"]))
    bases = ["shipped"] if args.base == "shipped" else ["shipped", args.base]
    verdicts = {
        (name, base): ship_verdict(readings[base], readings[name])
        for base in bases
        for name in readings
        if name not in (base, "shipped")
    }

    print(" · ".join(f"{name}: {path}" for name, path in readers))
    n_fixes = sum(len(v) for v in label_fixes.load().values())
    print(
        f"labels: {'as the dataset has them' if args.as_labelled else f'{n_fixes} reviewed fixes applied'}\n"
    )
    print_tables(rows, verdicts)
    fates = {
        name: {c.name: tile_fates(b, c) for b, c in zip(readings["shipped"], sets, strict=True) if c.real}
        for name, sets in readings.items()
        if name != "shipped"
    }
    if fates:
        print_fates(fates)
    if args.out:
        doc = {
            "readers": {name: str(path) for name, path in readers},
            "labels": "as labelled" if args.as_labelled else f"{n_fixes} reviewed fixes",
            "rows": rows,
            "verdicts": {
                n: {"ships": s, "findings": [f.__dict__ for f in fs]}
                for (n, base), (s, fs) in verdicts.items()
                if base == "shipped"
            },
            "fates": fates,
            "against": {
                f"{n} vs {base}": {"not_worse": s, "findings": [f.__dict__ for f in fs]}
                for (n, base), (s, fs) in verdicts.items()
                if base != "shipped"
            },
        }
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)  # runs/report/ on a fresh clone
        Path(args.out).write_text(json.dumps(doc, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
