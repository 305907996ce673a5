"""Process environment for ultralytics: set before it is first imported.

Ultralytics reads `YOLO_OFFLINE` and `YOLO_CONFIG_DIR` at import time; without them it writes settings
under the user's home and may try to download fonts or weights. Every vision module that touches
ultralytics imports this module first, so the whole package stays offline and writes only to
`<repo>/.cache/ultralytics` (gitignored).
"""

from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
CACHE_DIR = REPO_ROOT / ".cache"

os.environ.setdefault("YOLO_OFFLINE", "1")
os.environ.setdefault("YOLO_CONFIG_DIR", str(CACHE_DIR / "ultralytics"))
Path(os.environ["YOLO_CONFIG_DIR"]).mkdir(parents=True, exist_ok=True)


def keep_pil_open_offline() -> None:
    """Undo the one side effect of importing ultralytics that reaches users: it wraps PIL's Image.open
    so that an unidentified file triggers a `pip install pi-heif` check (refused offline) and then
    raises ModuleNotFoundError instead of "not an image". HEIC is already handled by pillow-heif
    (vision.read.imageio), so mark ultralytics' lazy plugin as registered and its wrapper calls Pillow as is.
    Called right where ultralytics is imported (vision.read.detect), so every caller gets it.
    """
    try:
        from ultralytics.utils import patches
    except ImportError:  # pragma: no cover - ultralytics is a dependency
        return
    patches._pil_plugins_registered = True


def use_every_core() -> None:
    """Let torch use every core when ultralytics picks the CPU: it sets one thread fewer than the
    machine has (leaving one to its data loaders), which on a 2-core laptop makes reading a photo,
    the only work on the machine while the player waits for it, far slower — and trains on one
    core of two (its CPU trainer loads data in the same process, so the second core sat idle).
    Also sets torch's own count now: a classifier trained after a detector in one process would
    otherwise inherit the single thread ultralytics left behind."""
    import torch
    from ultralytics.utils import torch_utils

    cores = max(1, os.cpu_count() or 1)
    torch_utils.NUM_THREADS = cores
    torch.set_num_threads(cores)
