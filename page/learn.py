"""学习我的牌: fine-tune a personal model on the player's saved photos, in the background.

Why this module exists: a player's own set is a print the shipped model never saw; after a few
corrected photos, `python -m vision adapt DATA --out DIR` learns it in a few minutes on the CPU.
The page must not wait for that: it starts the command as a background process, polls the progress file the command writes, and when a model is ready offers to
read with it (and to switch back). Which folder, which command, how many photos are needed and which
personal models exist are decisions, so they live here and are tested; the page only draws them.
Everything degrades quietly: without `vision.train.adapt` the action is simply not offered.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENV_DIR = "MAHJONG_PERSONAL_DIR"
DEFAULT_DIR = ROOT / "datasets" / "personal"
FALLBACK_MIN_PHOTOS = 5
PID_FILE = "adapt.pid"
#: Runs started by this server process: their Popen, so a finished child is reaped and seen as ended.
_RUNNING: dict[str, subprocess.Popen] = {}


def available() -> bool:
    """Whether this installation has the adapt command at all."""
    try:
        return importlib.util.find_spec("vision.train.adapt") is not None
    except (ImportError, ValueError):
        return False


def min_photos() -> int:
    """Saved photos needed before the page offers to learn (vision.train.adapt.MIN_PHOTOS)."""
    try:
        return int(importlib.import_module("vision.train.adapt").MIN_PHOTOS)
    except (ImportError, AttributeError, TypeError, ValueError):
        return FALLBACK_MIN_PHOTOS


def personal_root() -> Path:
    return Path(os.environ.get(ENV_DIR) or DEFAULT_DIR)


def saved_photos(labelled: Path) -> int:
    """How many photos the player has saved for training: what `vision.train.adapt` will learn from (the
    newest complete version of each photo), else the images in both splits."""
    try:
        from vision.train.adapt import player_photos
    except ImportError:
        player_photos = None
    if player_photos is not None:
        try:
            return len(player_photos(labelled))
        except (OSError, ValueError):  # no data.yaml yet: nothing saved
            return 0
    n = 0
    for split in ("train", "val"):
        folder = labelled / "images" / split
        if folder.is_dir():
            n += sum(1 for p in folder.iterdir() if p.is_file() and not p.name.startswith("."))
    return n


def start(labelled: Path, root: Path | None = None) -> Path:
    """Start `python -m vision adapt` on the saved photos; returns the run's folder (UTC timestamp)."""
    out = (root or personal_root()) / datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    out.mkdir(parents=True, exist_ok=False)
    cmd = [sys.executable, "-m", "vision", "adapt", str(labelled), "--out", str(out)]
    with open(out / "adapt.log", "wb") as log:
        proc = subprocess.Popen(  # noqa: S603 - our own interpreter and module, no shell
            cmd,
            cwd=ROOT,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    _RUNNING[str(out)] = proc
    (out / PID_FILE).write_text(str(proc.pid), encoding="ascii")
    return out


def status(run: Path) -> str:
    """ "done", "error", "running" or "stopped": a run whose process is gone without finishing (killed,
    the laptop slept, the server restarted) is stopped, so the page offers to start again instead of
    showing its progress bar for ever."""
    prog = progress(run) or {}
    if prog.get("error"):
        return "error"
    if prog.get("done") and model_file(run):
        return "done"
    proc = _RUNNING.get(str(run))
    if proc is not None:
        return "running" if proc.poll() is None else "stopped"
    try:
        pid = int((run / PID_FILE).read_text(encoding="ascii"))
    except (OSError, ValueError):
        return "stopped"
    return "running" if _alive(pid) else "stopped"


def _alive(pid: int) -> bool:
    """A live process with this pid (a zombie, finished but not reaped, is not alive)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        try:
            os.kill(pid, 0)
        except OSError:
            return False
        return True
    return state not in ("Z", "X")


def progress(run: Path) -> dict | None:
    """The run's progress.json as vision.train.adapt reads it (None before the first write)."""
    try:
        reader = importlib.import_module("vision.train.adapt").read_progress
    except (ImportError, AttributeError):
        return None
    try:
        return reader(run)
    except (OSError, ValueError):
        return None


def model_file(run: Path) -> Path | None:
    """The run's model.json once it is finished."""
    path = run / "model.json"
    return path if path.is_file() else None


def learnt_something(model: Path) -> bool:
    """Whether a finished run kept any adapted stage or moved the operating point (adapt keeps the
    base reading when neither read the player's own photos better: switching would change nothing)."""
    try:
        meta = json.loads(model.read_text(encoding="utf-8"))
        run = meta.get("adapt", {})
        moved = "tile_conf_from" in run and meta.get("tile_conf") != run["tile_conf_from"]
        kept = run.get("kept")
    except (OSError, ValueError, AttributeError, TypeError):
        return False
    return kept != "base" or moved  # runs from before the check have no `kept`: they did learn


def latest_model(root: Path | None = None) -> Path | None:
    """The newest finished personal model that learnt something, if any."""
    base = root or personal_root()
    if not base.is_dir():
        return None
    runs = sorted((p for p in base.iterdir() if p.is_dir()), reverse=True)
    return next((m for m in (model_file(r) for r in runs) if m is not None and learnt_something(m)), None)
