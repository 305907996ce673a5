"""Fault-injection driver for tests/vision/labels/test_faults.py (run as a script, prints one JSON object).

Why a separate process: the scenarios fork children and kill them with SIGKILL, race several
processes, lower the file-size limit or run inside a tiny tmpfs. Forking pytest itself (threads,
capture) would be unsafe; this fresh interpreter imports only the label store, then forks.

    python tests/vision/labels/faults_driver.py kill ROOT TRIALS SEED      random kill -9 during saves
    python tests/vision/labels/faults_driver.py crashpoints ROOT           kill -9 at every syscall of a save
    python tests/vision/labels/faults_driver.py race ROOT PROCS ROUNDS     processes saving the same photo
    python tests/vision/labels/faults_driver.py fsize ROOT                 a real short write (RLIMIT_FSIZE)
    python tests/vision/labels/faults_driver.py fill ROOT                  save until the disk is full
"""

from __future__ import annotations

import json
import multiprocessing
import os
import random
import resource
import signal
import sys
import time
from pathlib import Path

import numpy as np
from PIL import Image

from vision.durable import SaveError
from vision.labels.check import check
from vision.labels.store import (
    MANIFEST,
    SPLITS,
    STAGING,
    LabelBox,
    complete_examples,
    manifest_lines,
    save_example,
)
from vision.train.data import read_labels, split_images

BOXES = [LabelBox("1m", (4, 4, 20, 30)), LabelBox("E", (30, 6, 44, 28)), LabelBox("9s", (50, 10, 70, 40))]
#: Box variants: the same photo saved with each is a new version (a fix), with the same a duplicate.
VARIANTS = [BOXES, BOXES[:2], [*BOXES[:2], LabelBox("2p", (50, 10, 70, 40))]]


def photo(seed: int, h: int = 48, w: int = 80) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 255, (h, w, 3), dtype=np.uint8)


def observe(root: Path) -> dict:
    """What training would see now, and whether any of it is partial or the manifest is broken."""
    examples = complete_examples(root)
    partial = 0
    for e in examples:
        try:
            with Image.open(e.image) as im:
                im.load()
            read_labels(e.label)
        except Exception:  # noqa: BLE001 - any failure = a partial example reached a reader
            partial += 1
    listed = {p.resolve() for split in SPLITS for p in split_images(root, split)}
    hidden = sum(p.name.startswith(".") for p in listed)
    lines = manifest_lines(root)
    return {
        "examples": len(examples),
        "partial_visible": partial + hidden + len(listed - {e.image for e in examples}),
        "bad_lines": sum(m.record is None or not m.terminated for m in lines),
        "lines": len(lines),
        "debris": sorted(f"{f.kind} {f.path}" for f in check(root)) if root.is_dir() else [],
    }


def _saver_forever(root: Path, seed: int) -> None:
    """Mostly new photos (the whole write path), some fixes (new versions), some duplicates."""
    rng = random.Random(seed)
    while True:
        save_example(photo(rng.randrange(60)), VARIANTS[rng.randrange(3)], root)


def scenario_kill(root: Path, trials: int, seed: int) -> dict:
    """Fork a saver, kill -9 it after a random delay, observe; repeat. Then repair and observe."""
    rng = random.Random(seed)
    save_example(photo(99), BOXES, root)  # the layout exists; every code path is imported
    _slow_disk(0.003)
    t0 = time.perf_counter()
    save_example(photo(98), BOXES, root)
    one_save = time.perf_counter() - t0
    _fast_disk()
    out: list[dict] = []
    for i in range(trials):
        pid = os.fork()
        if pid == 0:  # child: save until killed, on a disk slowed to make the write steps dominate
            try:
                _slow_disk(0.003)
                _saver_forever(root, seed * 1000 + i)
            finally:
                os._exit(3)
        time.sleep(rng.uniform(0, 3 * one_save))
        os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        seen = observe(root)
        previous = set(out[-1]["debris"]) if out else set()
        out.append(
            {"killed": os.WIFSIGNALED(status), "mid_save": bool(set(seen["debris"]) - previous), **seen}
        )
    repaired = check(root, repair=True)
    after = observe(root)
    res = save_example(photo(97), BOXES, root)
    return {
        "one_save_s": one_save,
        "trials": out,
        "repaired": len(repaired),
        "after_repair": after,
        "save_after": not res.duplicate,
    }


_PATCHED = ("open", "write", "fsync", "link", "rename", "replace", "unlink", "ftruncate", "mkdir")
_REAL = {name: getattr(os, name) for name in _PATCHED}


def _wrap_calls(before) -> None:
    """Route every file-system call made through `os` via `before()` first."""

    def wrap(fn):
        def inner(*a, **kw):
            before()
            return fn(*a, **kw)

        return inner

    for name in _PATCHED:
        setattr(os, name, wrap(_REAL[name]))


def _slow_disk(seconds: float) -> None:
    """Make each file-system call take `seconds` longer, like a slow SD card or network disk:
    then a kill at a random time lands between write steps as often as it would there."""
    _wrap_calls(lambda: time.sleep(seconds))


def _fast_disk() -> None:
    for name, fn in _REAL.items():
        setattr(os, name, fn)


def _die_at(k: int) -> None:
    """In a child: SIGKILL ourselves at the k-th file-system call made through `os`."""
    count = [0]

    def before() -> None:
        count[0] += 1
        if count[0] == k:
            os.kill(os.getpid(), signal.SIGKILL)

    _wrap_calls(before)


def scenario_crashpoints(root: Path) -> dict:
    """For each case (new photo, new version, duplicate after a lost line), crash at call 1, 2, ...
    until the save completes; observe after every crash, then repair and save again."""
    cases = []
    for case, (seed, boxes) in enumerate([(1, BOXES), (2, BOXES[:2]), (3, BOXES)]):
        for k in range(1, 400):
            folder = root / f"case{case}_k{k}"
            save_example(photo(2), BOXES, folder)  # an earlier version of photo 2
            if case == 2:  # photo 3 saved, then its line lost (a crash before the commit line)
                save_example(photo(3), BOXES, folder)
                (folder / MANIFEST).write_bytes((folder / MANIFEST).read_bytes().splitlines(True)[0])
            pid = os.fork()
            if pid == 0:
                _die_at(k)
                try:
                    save_example(photo(seed), boxes, folder)
                finally:
                    os._exit(0)
            _, status = os.waitpid(pid, 0)
            seen = observe(folder)
            fixed = check(folder, repair=True)
            again = save_example(photo(seed), boxes, folder)
            clean = not check(folder)
            cases.append(
                {
                    "case": case,
                    "k": k,
                    "crashed": os.WIFSIGNALED(status),
                    **seen,
                    "repaired": len(fixed),
                    "resave_version": again.version,
                    "clean_after": clean,
                    "examples_after": len(complete_examples(folder)),
                }
            )
            if not os.WIFSIGNALED(status):
                break
    return {"cases": cases}


def _racer(root: str, barrier, rounds: int, queue) -> None:
    flags = []
    for r in range(rounds):
        barrier.wait()
        flags.append(save_example(photo(1000 + r), BOXES, root).duplicate)
    queue.put(flags)


def scenario_race(root: Path, procs: int, rounds: int) -> dict:
    ctx = multiprocessing.get_context("fork")
    barrier, queue = ctx.Barrier(procs), ctx.Queue()
    workers = [ctx.Process(target=_racer, args=(str(root), barrier, rounds, queue)) for _ in range(procs)]
    for w in workers:
        w.start()
    flags = [queue.get(timeout=120) for _ in workers]
    for w in workers:
        w.join()
    stored = [sum(not f[r] for f in flags) for r in range(rounds)]
    images = sorted(p.name for p in (root / "images").rglob("*.jpg"))
    return {
        "stored_per_round": stored,
        "images": len(images),
        "lines": len(manifest_lines(root)),
        **observe(root),
    }


def _snapshot(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and p.name != ".lock" and STAGING not in p.parts
    }


def scenario_fsize(root: Path) -> dict:
    """A real short write: the manifest append crosses RLIMIT_FSIZE (SIGXFSZ ignored -> the
    kernel writes part of the line, then EFBIG). The save must fail and change nothing."""
    for i in range(4):  # a manifest much larger than the next photo's image and label
        save_example(photo(i, 8, 8), [LabelBox("1m", (1, 1, 6, 6))], root, extra={"pad": "x" * 2000})
    before = _snapshot(root)
    size = (root / MANIFEST).stat().st_size
    pid = os.fork()
    if pid == 0:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (size + 40, size + 40))
        try:
            save_example(photo(500, 8, 8), [LabelBox("2m", (1, 1, 6, 6))], root)
        except SaveError as exc:
            print(json.dumps({"error": str(exc)}), file=sys.stderr)
            os._exit(7)
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    return {
        "exit": os.WEXITSTATUS(status) if os.WIFEXITED(status) else -1,
        "unchanged": _snapshot(root) == before,
        "staging_left": len(list((root / STAGING).iterdir())),
        **observe(root),
    }


def scenario_fill(root: Path) -> dict:
    """Save distinct photos until the (small tmpfs) disk is full; the failing save must leave
    nothing behind, and the store must work again once space is freed."""
    saved, error, before = 0, None, {}
    for i in range(10_000):
        before = _snapshot(root) if root.exists() else {}
        try:
            save_example(photo(i, 240, 320), BOXES, root)
        except SaveError as exc:
            error = str(exc)
            break
        saved += 1
    unchanged = _snapshot(root) == before
    seen = observe(root)
    staging = len(list((root / STAGING).iterdir()))
    victim = complete_examples(root)[0]
    for p in (victim.image,):
        p.unlink()  # free space the way a person would (check --repair then drops the line)
    check(root, repair=True)
    again = save_example(photo(10_001, 60, 80), BOXES, root)
    return {
        "saved": saved,
        "error": error,
        "unchanged": unchanged,
        "staging_left": staging,
        **seen,
        "save_after_freeing": not again.duplicate,
        "clean_after": not check(root),
    }


def main(argv: list[str]) -> None:
    mode, root = argv[0], Path(argv[1])
    scenarios = {
        "kill": lambda: scenario_kill(root, int(argv[2]), int(argv[3])),
        "crashpoints": lambda: scenario_crashpoints(root),
        "race": lambda: scenario_race(root, int(argv[2]), int(argv[3])),
        "fsize": lambda: scenario_fsize(root),
        "fill": lambda: scenario_fill(root),
    }
    print(json.dumps(scenarios[mode]()))


if __name__ == "__main__":
    main(sys.argv[1:])
