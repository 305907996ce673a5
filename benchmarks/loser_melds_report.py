"""How well a photo of a loser's melds is read: melds right per photo and fixes per photo.

    python benchmarks/loser_melds_report.py [--real DIR] [--synthetic N] [--max 200] [--model models/model.json]

Meld photos are cut from labelled photos: every run of 3 labelled tiles side by side in one row
that is a 碰 or a 吃 by its labels (4 alike: a 杠), one or two such melds per crop, the crop's edges
halfway to the next tile so no neighbour shows. Real: the val split of chinese-mahjong-v4 (never
trained on by the detector's val checks; CC BY 4.0). Synthetic: scenes of `vision.train.synth`,
a separate, labelled line (a synthetic result never decides anything). Each crop goes through the
page's own path, `page.loser_photo.melds_from_photo` with the shipped reader.

A photo is right when the proposed melds equal the labelled ones (kinds and tiles, in order).
Fixes per photo: the player's steps to correct the proposal — a wrong meld is one fix (tap a tile,
tap its face: a 碰 changes as a whole; a 吃 takes the run), a missing meld one (typed), an extra
one one (删掉); counted as the edit distance between the two meld lists with those costs.
"""

from __future__ import annotations

import argparse
import io
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from page.detector_loader import model_detector  # noqa: E402
from page.loser_photo import melds_from_photo  # noqa: E402
from vision.classes import CLASS_NAMES  # noqa: E402
from vision.read.layout import _kind  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
REAL = ROOT.parent / "shared" / "datasets" / "chinese-mahjong-v4" / "val"
TILE_PX = 160  # tile height in a close photo of a loser's melds (a phone at arm's length)


def _boxes(label: Path, w: int, h: int) -> list[tuple[str, float, float, float, float]]:
    out = []
    for line in label.read_text().split("\n"):
        parts = line.split()
        if len(parts) != 5:
            continue
        c, x, y, bw, bh = int(parts[0]), *map(float, parts[1:])
        out.append((CLASS_NAMES[c], (x - bw / 2) * w, (y - bh / 2) * h, (x + bw / 2) * w, (y + bh / 2) * h))
    return out


def _rows(boxes):
    """Boxes in rows (centres within half a tile height), each row left to right."""
    rows: list[list] = []
    for b in sorted(boxes, key=lambda b: (b[2] + b[4]) / 2):
        cy, hh = (b[2] + b[4]) / 2, b[4] - b[2]
        for row in rows:
            r = row[-1]
            if abs((r[2] + r[4]) / 2 - cy) < 0.5 * min(hh, r[4] - r[2]):
                row.append(b)
                break
        else:
            rows.append([b])
    return [sorted(r, key=lambda b: b[1]) for r in rows]


def _touching(a, b) -> bool:
    return b[1] - a[3] < 0.5 * min(a[3] - a[1], b[3] - b[1])


def _meld_runs(row) -> list[tuple[int, int, str, list[str]]]:
    """Non-overlapping runs (start, end, kind, faces) of touching tiles that are a clean meld."""
    out, i = [], 0
    while i < len(row):
        found = None
        for size in (4, 3):
            piece = row[i : i + size]
            if len(piece) < size or not all(_touching(piece[k], piece[k + 1]) for k in range(size - 1)):
                continue
            faces = [b[0] for b in piece]
            if "back" in faces or (size == 4 and len(set(faces)) != 1):
                continue
            kind, fit = _kind(faces, [1.0] * size)
            if fit >= 0.99:
                found = (i, i + size, kind, faces)
                break
        if found:
            out.append(found)
            i = found[1]
        else:
            i += 1
    return out


def meld_crops(image: Path, label: Path) -> list[tuple[bytes, list[tuple[str, list[str]]]]]:
    """(JPEG bytes, labelled melds) of each crop of one or two melds side by side in this photo."""
    return [(data, truth) for data, truth, _ in meld_crops_with_tiles(image, label)]


def meld_crops_with_tiles(image: Path, label: Path) -> list[tuple[bytes, list, list]]:
    """meld_crops, each with its labelled tiles as (face, x0, y0, x1, y1) in the crop's pixels: the
    ship rule reads the crops as a real set of close-ups (benchmarks/reader_report.py)."""
    im = Image.open(image).convert("RGB")
    W, H = im.size
    out = []
    for row in _rows(_boxes(label, W, H)):
        runs = _meld_runs(row)
        k = 0
        while k < len(runs):
            group = [runs[k]]
            if k + 1 < len(runs) and runs[k + 1][0] == runs[k][1]:  # two melds laid touching
                group.append(runs[k + 1])
            k += len(group)
            first, last = row[group[0][0]], row[group[-1][1] - 1]
            before = row[group[0][0] - 1] if group[0][0] > 0 else None
            after = row[group[-1][1]] if group[-1][1] < len(row) else None
            tw = first[3] - first[1]
            x0 = (before[3] + first[1]) / 2 if before else first[1] - 0.4 * tw
            x1 = (last[3] + after[1]) / 2 if after else last[3] + 0.4 * tw
            tiles = row[group[0][0] : group[-1][1]]
            y0 = min(b[2] for b in tiles)
            y1 = max(b[4] for b in tiles)
            pad = 0.3 * (y1 - y0)
            box = (max(0, int(x0)), max(0, int(y0 - pad)), min(W, int(x1)), min(H, int(y1 + pad)))
            if box[2] - box[0] < 20 or box[3] - box[1] < 20:
                continue
            crop = im.crop(box)
            # as a phone photographs melds close up: tiles about TILE_PX high, not 40 px of a table photo
            scale = max(1.0, TILE_PX / max(1.0, y1 - y0))
            crop = crop.resize(
                (round(crop.width * scale), round(crop.height * scale)), Image.Resampling.LANCZOS
            )
            buf = io.BytesIO()
            crop.save(buf, format="JPEG", quality=92)
            truth = [(kind, sorted(faces) if kind == "chi" else faces) for _, _, kind, faces in group]
            tiles_px = [
                (
                    t[0],
                    (t[1] - box[0]) * scale,
                    (t[2] - box[1]) * scale,
                    (t[3] - box[0]) * scale,
                    (t[4] - box[1]) * scale,
                )
                for t in tiles
            ]
            out.append((buf.getvalue(), truth, tiles_px))
    return out


def fixes(got: list, want: list) -> int:
    """Edit distance between meld lists: substitute, insert (type it) or delete (删掉), 1 each."""
    n, m = len(got), len(want)
    d = np.zeros((n + 1, m + 1), dtype=int)
    d[:, 0] = range(n + 1)
    d[0, :] = range(m + 1)
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            same = tuple(got[i - 1][1]) == tuple(want[j - 1][1]) and got[i - 1][0] == want[j - 1][0]
            d[i, j] = min(d[i - 1, j] + 1, d[i, j - 1] + 1, d[i - 1, j - 1] + (0 if same else 1))
    return int(d[n, m])


def measure(folder: Path, detector, limit: int) -> dict:
    crops = []
    for image in sorted((folder / "images").glob("*.jpg")):
        label = folder / "labels" / f"{image.stem}.txt"
        if label.is_file():
            crops.extend(meld_crops(image, label))
        if len(crops) >= limit:
            break
    crops = crops[:limit]
    right, fix, secs = 0, [], []
    for data, truth in crops:
        t0 = time.perf_counter()
        proposal = melds_from_photo(data, "melds.jpg", detector)
        secs.append(time.perf_counter() - t0)
        got = [(k, list(t)) for k, t in proposal.melds]
        right += got == truth
        fix.append(fixes(got, truth))
    n = len(crops)
    return {
        "photos": n,
        "melds": sum(len(t) for _, t in crops),
        "right": right / n if n else float("nan"),
        "fixes": sum(fix) / n if n else float("nan"),
        "median_s": statistics.median(secs) if secs else float("nan"),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--real", type=Path, default=REAL)
    ap.add_argument("--synthetic", type=int, default=40, help="synthetic scenes to cut melds from (0: none)")
    ap.add_argument("--max", type=int, default=200, help="at most this many meld photos per set")
    ap.add_argument("--model", default=str(ROOT / "models" / "model.json"))
    args = ap.parse_args(argv)
    detector = model_detector(args.model)
    rows = []
    if args.real.is_dir():
        rows.append(("real: chinese-mahjong-v4 val", measure(args.real, detector, args.max)))
    if args.synthetic:
        from vision.train.synth.cli import generate

        with tempfile.TemporaryDirectory() as tmp:
            generate(Path(tmp), args.synthetic, seed=20261201, val_fraction=0.0, closeup_share=0.0)
            rows.append(("synthetic scenes (guide only)", measure(Path(tmp), detector, args.max)))
    print("| set | meld photos | melds | melds right per photo | fixes per photo | median s |")
    print("|---|---|---|---|---|---|")
    for name, r in rows:
        print(
            f"| {name} | {r['photos']} | {r['melds']} | {r['right']:.3f} | {r['fixes']:.2f} | {r['median_s']:.3f} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
