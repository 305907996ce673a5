"""`python -m vision synth`: write a synthetic Ultralytics YOLO dataset with layout ground truth.

Layout of DIR:
  images/<name>.jpg, labels/<name>.txt   YOLO boxes (class cx cy w h, normalised; ids of vision.classes)
  layout/<name>.json                     which label lines form the standing hand, melds, winning tile…
  train.txt, val.txt                     image lists (seeded split, `--val-fraction`)
  data.yaml                              path, train, val, nc, names (fixed class order)

Scene i of a run depends only on (seed, i), so output is byte-identical for the same seed and
`--workers` only changes speed.

`--drawn-share F` draws that share of scenes with procedurally drawn faces (vision.train.synth.drawn: one
drawn set per table, in styles of other Chinese, Liaoning and riichi sets) instead of the real
set's faces; it needs a CJK font.

`--vary` / `--no-vary` switch the domain randomisation (vision.train.synth.vary: more drawn prints, tile
body and back colours, automatic-table felt, views from the player's seat, exposure, white balance,
glare, blur, noise, recompression).  All are on by default; `--vary none --drawn-share 0` gives the
output of the versions before them, byte for byte.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from vision.classes import CLASS_NAMES, NUM_CLASSES
from vision.train.synth import seat
from vision.train.synth.drawn import DEFAULT_PER_CLASS, drawn_face_bank, find_cjk_font
from vision.train.synth.faces import DEFAULT_SOURCE, FaceBank, load_face_bank
from vision.train.synth.scene import CLOSEUP_SHARE, Scene, make_scene
from vision.train.synth.vary import ALL, Variations

_BANK: FaceBank | None = None
_DRAWN: FaceBank | None = None


def scene_name(index: int) -> str:
    return f"synth_{index:06d}"


def _init_worker(
    source: str, drawn: tuple[int, int, str, bool] | None = None, mix: tuple[float, float] | None = None
) -> None:
    """Load the banks in a worker: both come from the cache the parent filled."""
    global _BANK, _DRAWN
    if mix is not None:
        seat.set_mix(*mix)
    _BANK = load_face_bank(source)
    _DRAWN = drawn_face_bank(drawn[0], drawn[1], Path(drawn[2]), prints=drawn[3]) if drawn else None


def _render(args: tuple[int, int, float, float, Variations]) -> tuple[int, Scene]:
    seed, index, closeup, drawn_share, vary = args
    assert _BANK is not None
    scene = make_scene(
        _BANK, seed, index, closeup_share=closeup, drawn=_DRAWN, drawn_share=drawn_share, vary=vary
    )
    return index, scene


def write_scene(out: Path, index: int, scene: Scene) -> None:
    """Write one scene's image, labels and layout JSON."""
    name = scene_name(index)
    (out / "images" / f"{name}.jpg").write_bytes(scene.jpeg)
    (out / "labels" / f"{name}.txt").write_text(scene.label_text())
    doc = {"image": f"images/{name}.jpg", "labels": f"labels/{name}.txt", **scene.layout}
    (out / "layout" / f"{name}.json").write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")


def split(n: int, seed: int, val_fraction: float) -> tuple[list[int], list[int]]:
    """Seeded train/val split of scene indices (val has round(n * fraction) scenes, ≥ 1 if asked)."""
    n_val = int(round(n * val_fraction))
    if val_fraction > 0 and n > 1:
        n_val = min(max(n_val, 1), n - 1)
    order = np.random.default_rng([seed, 0x5EED]).permutation(n)
    val = sorted(order[:n_val].tolist())
    train = sorted(order[n_val:].tolist())
    return train, val


def write_data_yaml(out: Path, train: list[int], val: list[int]) -> None:
    """data.yaml with image lists; Ultralytics maps images/ -> labels/ itself.

    With `--val-fraction 0` val.txt is empty (no scene is both trained on and validated on)."""
    (out / "train.txt").write_text("".join(f"./images/{scene_name(i)}.jpg\n" for i in train))
    (out / "val.txt").write_text("".join(f"./images/{scene_name(i)}.jpg\n" for i in val))
    names = "".join(f"  - '{n}'\n" for n in CLASS_NAMES)
    text = (
        "# Synthetic Liaoning mahjong scenes (vision.train.synth); faces cut from chinese-mahjong-v4 train\n"
        "# (Roboflow Universe, CC BY 4.0).\n"
        f"path: {out.resolve()}\n"
        "train: train.txt\n"
        "val: val.txt\n"
        f"nc: {NUM_CLASSES}\n"
        f"names:\n{names}"
    )
    (out / "data.yaml").write_text(text)


def generate(
    out: Path,
    n: int,
    seed: int,
    val_fraction: float = 0.1,
    source: Path | str = DEFAULT_SOURCE,
    workers: int = 1,
    start: int = 0,
    closeup_share: float = CLOSEUP_SHARE,
    drawn_share: float = 0.0,
    vary: Variations = ALL,
    seat_mix: tuple[float, float] | None = None,
) -> None:
    """Generate scenes start..start+n-1 into `out` (creating the folders).

    `seat_mix` (seat share, low share): see vision.train.synth.seat.set_mix (default: the module's).

    `drawn_share` of the scenes use a set of the drawn bank for `seed` (`DEFAULT_PER_CLASS` sets);
    `vary` switches the domain randomisation (`vary.prints` chooses the drawn bank's version).
    """
    if not 0.0 <= drawn_share <= 1.0:
        raise ValueError("drawn_share must lie in [0, 1]")
    out = Path(out)
    for sub in ("images", "labels", "layout"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    bank = load_face_bank(source)  # builds the cache once, before workers start
    drawn, drawn_args = None, None
    if drawn_share > 0:
        font = find_cjk_font()
        drawn = drawn_face_bank(seed, DEFAULT_PER_CLASS, font, prints=vary.prints)  # cached for the workers
        drawn_args = (seed, DEFAULT_PER_CLASS, str(font), vary.prints)
    jobs = [(seed, i, closeup_share, drawn_share, vary) for i in range(start, start + n)]
    if workers > 1:
        with ProcessPoolExecutor(
            workers, initializer=_init_worker, initargs=(str(source), drawn_args, seat_mix)
        ) as ex:
            for index, scene in ex.map(_render, jobs, chunksize=8):
                write_scene(out, index, scene)
    else:
        with seat.mix(seat_mix):  # this process's scenes; the module's mix is put back after
            for s, i, c, d, v in jobs:
                write_scene(
                    out, i, make_scene(bank, s, i, closeup_share=c, drawn=drawn, drawn_share=d, vary=v)
                )
    train, val = split(n, seed, val_fraction)
    write_data_yaml(out, [start + i for i in train], [start + i for i in val])


def main(argv: list[str] | None = None) -> int:
    """Entry point for `python -m vision synth ...`; returns a process exit code."""
    p = argparse.ArgumentParser(
        prog="vision synth", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--out", type=Path, required=True, help="output dataset folder")
    p.add_argument("--n", type=int, default=1000, help="number of scenes")
    p.add_argument("--seed", type=int, default=0, help="run seed (same seed -> same bytes)")
    p.add_argument("--val-fraction", type=float, default=0.1, help="share of scenes listed in val.txt")
    p.add_argument(
        "--source", type=Path, default=DEFAULT_SOURCE, help="real set whose train split gives the faces"
    )
    p.add_argument("--workers", type=int, default=1, help="processes (output does not depend on it)")
    p.add_argument(
        "--closeup-share",
        type=float,
        default=CLOSEUP_SHARE,
        help="share of close-ups cutting off part of the hand (their layout truth is marked partial)",
    )
    p.add_argument(
        "--drawn-share",
        type=float,
        default=0.0,
        help="share of scenes whose faces all come from one procedurally drawn set instead of the "
        "real set (drawn with the shipped CJK font, or $VISION_CJK_FONT); 0 = real faces only",
    )
    p.add_argument(
        "--vary",
        default="all",
        help="domain randomisation: all (default), none, or a comma-separated list of "
        + ", ".join(Variations.names()),
    )
    p.add_argument("--no-vary", default="", help="comma-separated variations to leave out of --vary")
    p.add_argument("--seat-share", type=float, default=None, help="share of scenes seen from the seat")
    p.add_argument(
        "--low-share",
        type=float,
        default=None,
        help="share of seat scenes shot low, the shelf behind (round 6: 0.5)",
    )
    args = p.parse_args(argv)
    if args.n < 1 or not 0 <= args.val_fraction < 1 or not 0 <= args.drawn_share <= 1:
        p.error("need --n >= 1, 0 <= --val-fraction < 1 and 0 <= --drawn-share <= 1")
    try:
        vary = Variations.parse(args.vary, args.no_vary)
    except ValueError as e:
        p.error(str(e))
    t0 = time.perf_counter()
    try:
        generate(
            args.out,
            args.n,
            args.seed,
            args.val_fraction,
            args.source,
            max(1, args.workers),
            closeup_share=args.closeup_share,
            drawn_share=args.drawn_share,
            vary=vary,
            seat_mix=None
            if args.seat_share is None and args.low_share is None
            else (
                seat.SEAT_SHARE if args.seat_share is None else args.seat_share,
                seat.LOW_SHARE if args.low_share is None else args.low_share,
            ),
        )
    except (FileNotFoundError, ValueError) as e:
        print(f"vision synth: {e}", file=sys.stderr)
        return 2
    dt = time.perf_counter() - t0
    print(
        f"wrote {args.n} scenes to {args.out} in {dt:.1f} s ({args.n / dt:.1f} scenes/s; vary {vary.label()})",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    raise SystemExit(main())
