"""Fault injection on the saved-label store: kill -9, races, short writes, a full disk.

The process-level scenarios run in tests/vision/labels/faults_driver.py (a fresh interpreter that forks);
they are started together, in parallel, the first time a test needs one, and each test reads its
scenario's JSON. Scratch folders live on /dev/shm when it exists: a killed process loses nothing
that reached the page cache, so these tests need no disk durability, and fsync costs nothing there.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from vision.durable import SaveError
from vision.labels.check import check
from vision.labels.store import STAGING, LabelBox, complete_examples, read_manifest, save_example

DRIVER = Path(__file__).with_name("faults_driver.py")
REPO = DRIVER.parents[3]
SCENARIOS = {
    "kill": ["kill", "{root}", "30", "12"],
    "crashpoints": ["crashpoints", "{root}"],
    "race": ["race", "{root}", "4", "30"],
    "fsize": ["fsize", "{root}"],
}
BOXES = [LabelBox("1m", (4, 4, 20, 30)), LabelBox("E", (30, 6, 44, 28))]


def _scratch_parent() -> str | None:
    shm = Path("/dev/shm")
    return str(shm) if shm.is_dir() and os.access(shm, os.W_OK) else None


@pytest.fixture(scope="module")
def driven() -> Iterator[dict[str, subprocess.Popen]]:
    """All driver scenarios, started at once (they mostly wait on sleeps, forks and locks)."""
    scratch = Path(tempfile.mkdtemp(prefix="labels-faults-", dir=_scratch_parent()))
    procs = {
        name: subprocess.Popen(
            [sys.executable, str(DRIVER), *(a.format(root=scratch / name) for a in args)],
            cwd=REPO,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name, args in SCENARIOS.items()
    }
    yield procs
    for p in procs.values():
        if p.poll() is None:
            p.kill()
            p.wait()
    shutil.rmtree(scratch, ignore_errors=True)


def _result(driven: dict[str, subprocess.Popen], name: str) -> dict:
    out, err = driven[name].communicate(timeout=300)
    assert driven[name].returncode == 0, f"driver {name} failed:\n{err[-3000:]}"
    return json.loads(out.strip().splitlines()[-1])


@pytest.mark.slow
def test_30_kill_9_during_saves_leave_nothing_partial_for_training(driven):
    res = _result(driven, "kill")
    trials = res["trials"]
    assert len(trials) == 30 and all(t["killed"] for t in trials)
    assert [t["partial_visible"] for t in trials] == [0] * 30
    assert [t["bad_lines"] for t in trials] == [0] * 30  # the manifest stays valid after every kill
    # the kills did land inside saves: some left staged files or half-published examples behind
    assert sum(t["mid_save"] for t in trials) >= 1, trials
    assert res["repaired"] >= 1 and res["after_repair"]["debris"] == []
    assert res["after_repair"]["partial_visible"] == 0 and res["save_after"]


@pytest.mark.slow
def test_kill_9_at_every_file_system_call_of_a_save(driven):
    """Crash points 1, 2, ... of three saves (a new photo, a fix of a saved photo, a photo whose
    earlier manifest line was lost) until the save runs through."""
    cases = _result(driven, "crashpoints")["cases"]
    for case, versions_after, examples_after in ((0, 1, 2), (1, 2, 1), (2, 1, 2)):
        runs = [c for c in cases if c["case"] == case]
        assert runs[-1]["crashed"] is False and all(c["crashed"] for c in runs[:-1])
        assert len(runs) > 15  # every step of the save was a crash point
        for c in runs:
            assert c["partial_visible"] == 0 and c["bad_lines"] == 0, c
            assert c["examples"] in (examples_after - 1, examples_after), c  # before or after the commit
            assert c["clean_after"] and c["examples_after"] == examples_after, c
            assert c["resave_version"] == versions_after, c
        assert any(c["debris"] for c in runs), "no crash point left anything for the check to find"


@pytest.mark.slow
def test_four_processes_saving_the_same_photo_store_it_once_per_round(driven):
    res = _result(driven, "race")
    assert res["stored_per_round"] == [1] * 30
    assert res["images"] == 30 and res["lines"] == 30 and res["examples"] == 30
    assert res["debris"] == [] and res["partial_visible"] == 0


@pytest.mark.slow
def test_a_real_short_write_on_the_manifest_fails_cleanly(driven):
    """RLIMIT_FSIZE makes the kernel write part of the manifest line, then refuse (EFBIG)."""
    res = _result(driven, "fsize")
    assert res["exit"] == 7  # the child got SaveError
    assert res["unchanged"] and res["staging_left"] == 0
    assert res["debris"] == [] and res["bad_lines"] == 0 and res["examples"] == 4


def _photo(seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 255, (48, 64, 3), dtype=np.uint8)


def _visible(root: Path) -> dict[str, bytes]:
    """Every file a reader or a person could see (the lock file and the empty staging aside)."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and p.name != ".lock" and STAGING not in p.parts
    }


@pytest.mark.parametrize(
    "call, error",
    [("write", errno.ENOSPC), ("write", errno.EDQUOT), ("fsync", errno.EIO), ("link", errno.EIO)],
)
def test_a_failing_disk_at_any_call_leaves_the_folder_as_it_was(tmp_path, monkeypatch, call, error):
    """The n-th `os.<call>` of a save fails, for n = 1, 2, ... until a save never reaches call n.

    Each try starts from a copy of the same folder (one photo saved). A failure the store may
    ignore (fsync of a folder) lets the save succeed; any other must raise one clear SaveError
    and leave every visible file as it was.
    """
    template = tmp_path / "template"
    save_example(_photo(0), BOXES, template)
    real = getattr(os, call)
    failed = 0
    for n in range(1, 80):
        root = tmp_path / f"try{n}"
        shutil.copytree(template, root)
        before = _visible(root)
        count = [0]

        def failing(*a, n=n, count=count, **kw):
            count[0] += 1
            if count[0] == n:
                raise OSError(error, os.strerror(error))
            return real(*a, **kw)

        monkeypatch.setattr(os, call, failing)
        try:
            save_example(_photo(1), BOXES, root)
        except SaveError as exc:
            monkeypatch.setattr(os, call, real)
            failed += 1
            assert exc.errno == error and "\n" not in str(exc)
            if error in (errno.ENOSPC, errno.EDQUOT):
                assert "disk is full" in str(exc)
            assert "nothing was half-written" in str(exc)
            assert _visible(root) == before, f"failure at {call} #{n} changed the folder"
            assert not list((root / STAGING).iterdir()) and check(root) == []
            continue
        monkeypatch.setattr(os, call, real)
        assert len(complete_examples(root)) == 2 and check(root) == []
        if count[0] < n:  # the save made fewer calls than n: every call has been failed once
            break
    else:
        pytest.fail("the save never ran through")
    assert failed >= 2


def test_short_writes_are_completed_not_ignored(tmp_path, monkeypatch):
    """`os.write` may write fewer bytes than asked; every byte must still arrive."""
    normal = save_example(_photo(2), BOXES, tmp_path / "a")
    real = os.write
    calls = [0]

    def dribble(fd, data):
        calls[0] += 1
        return real(fd, bytes(data[:7]))

    monkeypatch.setattr(os, "write", dribble)
    slow = save_example(_photo(2), BOXES, tmp_path / "b")
    monkeypatch.setattr(os, "write", real)
    assert calls[0] > 100
    assert slow.image.read_bytes() == normal.image.read_bytes()
    assert slow.label.read_bytes() == normal.label.read_bytes()
    assert (
        read_manifest(tmp_path / "b")[0]["image_sha256"] == read_manifest(tmp_path / "a")[0]["image_sha256"]
    )


def _can_mount_tmpfs() -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(
        ["unshare", "-rm", "sh", "-c", "mount -t tmpfs -o size=64k none /tmp && echo ok"],
        capture_output=True,
        text=True,
    )
    return probe.stdout.strip() == "ok"


@pytest.mark.slow
@pytest.mark.skipif(not _can_mount_tmpfs(), reason="no user namespace to mount a small tmpfs in")
def test_a_really_full_disk(tmp_path):
    """Save into a 2 MB tmpfs until it is full (the simulated cases above always run)."""
    mount = tmp_path / "small"
    mount.mkdir()
    script = f"mount -t tmpfs -o size=2m none {mount} && exec {sys.executable} {DRIVER} fill {mount / 'ds'}"
    out = subprocess.run(["unshare", "-rm", "sh", "-c", script], capture_output=True, text=True, cwd=REPO)
    assert out.returncode == 0, out.stderr[-3000:]
    res = json.loads(out.stdout.strip().splitlines()[-1])
    assert res["saved"] > 3 and "disk is full" in res["error"]
    assert res["unchanged"] and res["staging_left"] == 0 and res["debris"] == []
    assert res["partial_visible"] == 0 and res["bad_lines"] == 0
    assert res["save_after_freeing"] and res["clean_after"]
