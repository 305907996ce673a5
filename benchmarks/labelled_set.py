"""The labelled set a diagnosis reads (misses_report, view_report): its command-line arguments and
its photos with the loader that resizes them to a camera's aspect. One place, so both reports read
a set the same way."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

import numpy as np
from reader_report import RIICHI, camera_aspect

from vision.read.imageio import load_image
from vision.train import data


def add_set_arguments(ap: argparse.ArgumentParser, aspect: float) -> None:
    """--data (riichi-standing-dev by default) and --camera-aspect (`aspect` by default; 0: as stored)."""
    ap.add_argument("--data", type=Path, default=RIICHI, help="labelled set (data.yaml or folder)")
    ap.add_argument(
        "--camera-aspect",
        type=float,
        default=aspect,
        help=f"resize to this W/H first (0: as stored; default {aspect:g})",
    )


def set_photos(args: argparse.Namespace) -> tuple[list[Path], Callable[[Path], np.ndarray]]:
    """The set's val photos (its train photos where it has no val split) and how to load each."""
    load = camera_aspect(args.camera_aspect) if args.camera_aspect else load_image
    return data.split_images(args.data, "val") or data.split_images(args.data, "train"), load
