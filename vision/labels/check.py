"""`python -m vision labels check DIR [--repair]`: find, and mend, what interrupted saves left behind.

Why: `vision.labels.store` commits a save in steps (staged files, label, image, manifest line), so a
crash, a `kill -9` or a full disk can leave pieces that no reader uses but that take space, hide
a photo the player did save, or confuse a person looking at the folder; folders written by older
versions may also hold torn manifest lines and `.tmp-*` files. This command lists each problem
in one line and, with `--repair`, mends it without losing anything a person saved:

    torn-line     a manifest line that is not a whole record -> moved to .orphans/manifest-removed.txt
    bad-record    a line whose image or label is missing, changed or unreadable -> moved there too
    unrecorded    image + label of a save that died before its manifest line -> the line is added
                  (the photo's hash is read from the JPEG's comment)
    orphan-image  an image without its label, or a label without its image, that no line uses
    orphan-label  -> moved under .orphans/ (same relative path), never deleted
    temp-file     a file `.staging/` holds under the name a save gives it (always partial) -> deleted;
                  a `.tmp-*` file of an older version's write -> moved under .orphans/
    hidden-file   any other dot-named file in images/ or labels/, or a stray file in .staging/
    stray-file    -> moved under .orphans/ (a person may have made it: nothing else is ever deleted)
    link          a symbolic link where a save writes files: never followed (it may lead out of the
                  folder), its line is a bad-record -> the link itself moved under .orphans/
    layout        a missing folder or data.yaml -> created

An image + label pair is restored only when both are regular files and the label names at least
one tile: a save never stores an empty label, so an empty one is debris, not training data.

It holds the store's lock while it looks (shared) or mends (exclusive), so it never mistakes a
save in progress for debris. Exit status: 0 clean (or all mended), 1 problems remain, 2 bad DIR.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from vision.durable import locked, replace_synced
from vision.labels.store import (
    JPEG_COMMENT_PREFIX,
    LOCK_FILE,
    MANIFEST,
    ORPHANS,
    SPLITS,
    STAGING,
    _ensure_layout,
    _sha256,
    checked_paths,
    content_hash,
    foreign_classes,
    label_problem,
    manifest_lines,
    photo_versions,
)
from vision.labels.yolo_format import label_path_for, read_labels
from vision.read.imageio import open_image

_TIME_FORMAT = "%Y-%m-%dT%H:%M:%SZ"
_HASH16 = re.compile(r"_([0-9a-f]{16})_")


@dataclass
class Finding:
    """One problem: its kind (see the module docstring), the path relative to DIR, what is wrong,
    and what `--repair` did about it (None when only found)."""

    kind: str
    path: str
    detail: str
    fix: str | None = None  # what --repair does about it (None: it cannot)
    action: str | None = None  # what --repair did

    def line(self) -> str:
        """One readable line for the terminal."""
        if self.action:
            return f"{self.kind:<12} {self.path}: {self.detail} -> {self.action}"
        return f"{self.kind:<12} {self.path}: {self.detail}" + (
            f" (--repair: {self.fix})" if self.fix else ""
        )


def image_problem(image: Path, expected_sha: str | None = None) -> str | None:
    """Why a saved image is unusable (changed since saved, truncated, not an image), or None.

    Decodes at 1/8 scale (JPEG draft mode): the whole compressed stream is still read, so a
    truncated file is caught, at a fraction of the cost of a full decode.
    """
    try:
        data = image.read_bytes()
    except OSError as exc:
        return f"image unreadable ({exc.strerror})"
    if expected_sha is not None and _sha256(data) != expected_sha:
        return "image differs from the one saved"
    try:
        with open_image(data, name=str(image)) as im:
            im.draft("RGB", (max(1, im.width // 8), max(1, im.height // 8)))
            im.load()
    except Exception as exc:  # noqa: BLE001 - any decoder failure means "not a usable photo"
        return f"image does not decode ({type(exc).__name__})"
    return None


def _rel(root: Path, path: Path) -> str:
    """`path` relative to `root`, lexically: a link is named where it lies, never where it leads."""
    return Path(os.path.abspath(path)).relative_to(root).as_posix()


def _checked_deep(root: Path, record: dict) -> tuple[Path, Path] | str:
    """Like labelstore.checked_paths, and the image must also decode and match its checksum."""
    found = checked_paths(root, record)
    if isinstance(found, str):
        return found
    return image_problem(found[0], record.get("image_sha256")) or found


def _photo_hash(image: Path, data: bytes, known: set[str]) -> tuple[str, str]:
    """The photo's content hash and where it came from: the JPEG comment we write, else a known
    hash whose first 16 digits are in the file name, else the decoded pixels (older files)."""
    with open_image(data, name=str(image)) as im:
        comment = im.info.get("comment", b"")
        comment = comment.decode("ascii", "replace") if isinstance(comment, bytes) else str(comment)
        if comment.startswith(JPEG_COMMENT_PREFIX):
            digest = comment[len(JPEG_COMMENT_PREFIX) :]
            if re.fullmatch(r"[0-9a-f]{64}", digest):
                return digest, "jpeg comment"
        m = _HASH16.search(image.stem + "_")
        if m:
            for digest in known:
                if digest.startswith(m.group(1)):
                    return digest, "file name"
        return content_hash(np.asarray(im.convert("RGB"))), "decoded pixels"


def _rebuilt_record(root: Path, image: Path, label: Path, known: set[str], version: int) -> dict:
    """A manifest record for a complete image + label pair that lost (never got) its line;
    `version` is filled in by the caller once the hash is known (0 here means "not yet")."""
    data = image.read_bytes()
    digest, source = _photo_hash(image, data, known)
    with open_image(data, name=str(image)) as im:
        width, height = im.size
    return {
        "hash": digest,
        "image": _rel(root, image),
        "label": _rel(root, label),
        "split": image.parent.name,
        "saved_utc": datetime.fromtimestamp(image.stat().st_mtime, UTC).strftime(_TIME_FORMAT),
        "model_version": None,
        "width": width,
        "height": height,
        "boxes": len(read_labels(label)),
        "changed": None,
        "version": version,
        "label_sha256": _sha256(label.read_bytes()),
        "image_sha256": _sha256(data),
        "image_bytes": len(data),
        "restored": f"labels check --repair (hash from {source})",
    }


def _files(folder: Path) -> Iterator[Path]:
    if folder.is_dir():
        yield from sorted(p for p in folder.iterdir() if p.is_file() or p.is_symlink())


def _quarantine(root: Path, path: Path) -> str:
    """Move `path` under .orphans/ keeping its relative path (a numbered name if taken)."""
    rel = _rel(root, path)
    dest = root / ORPHANS / rel
    dest.parent.mkdir(parents=True, exist_ok=True)
    k = 1
    while os.path.lexists(dest):
        k += 1
        dest = root / ORPHANS / f"{rel}.{k}"
    os.rename(path, dest)
    return f"moved to {_rel(root, dest)}"


_MOVED_OUT = f"line moved to {ORPHANS}/manifest-removed.txt"


@dataclass
class _Plan:
    findings: list[Finding]
    keep: list[bytes]  # manifest lines to keep, in order
    removed: list[bytes]  # manifest lines to move out
    added: list[dict]  # records to add
    quarantine: list[tuple[Finding, Path]]
    delete: list[tuple[Finding, Path]]
    rewrite: bool = False

    def found(self, kind: str, path: str, detail: str, fix: str | None) -> Finding:
        f = Finding(kind, path, detail, fix)
        self.findings.append(f)
        return f


def _survey_layout(root: Path, plan: _Plan) -> None:
    for sub in ("images/train", "images/val", "labels/train", "labels/val", "data.yaml"):
        if not (root / sub).exists():
            plan.found("layout", sub, "missing", "created")
    if (root / "data.yaml").is_file() and foreign_classes(root / "data.yaml"):
        plan.found("layout", "data.yaml", "class names differ from vision.classes", None)


def _survey_manifest(root: Path, plan: _Plan) -> set[Path]:
    """Sort manifest lines into kept and removed; returns the files the kept lines use."""
    referenced: set[Path] = set()
    for m in manifest_lines(root):
        where = f"{MANIFEST}:{m.number}"
        if m.record is None:
            preview = m.raw[:60].decode("utf-8", "replace")
            plan.found("torn-line", where, f"not a whole record: {preview!r}", _MOVED_OUT)
            plan.removed.append(m.raw)
            continue
        found = _checked_deep(root, m.record)
        if isinstance(found, str):
            plan.found("bad-record", where, f"{m.record.get('image')}: {found}", _MOVED_OUT)
            plan.removed.append(m.raw)
            continue
        if not m.terminated:
            plan.found("torn-line", where, "last line has no newline", "newline added")
            plan.rewrite = True
        plan.keep.append(m.raw)
        referenced.update(found)
    return referenced


def _complete_pair(image: Path, referenced: set[Path]) -> Path | None:
    """The label of an unreferenced image if the two form a complete, usable example: regular
    files (never links), a label with at least one tile (an empty one is no training data)."""
    label = label_path_for(image)
    if image.suffix != ".jpg" or label in referenced or _odd(label) or not label.is_file():
        return None
    if label_problem(label) is not None or image_problem(image) is not None:
        return None
    return label if read_labels(label) else None


#: How `vision.durable.staged_name` names a file being written: safe to delete, always partial.
_STAGED = re.compile(r".+\.[0-9]+\.[0-9a-f]+\.part")


def _odd(path: Path) -> tuple[str, str] | None:
    """(kind, detail) for a file no save publishes where it lies: a link (never followed: it may
    lead out of the folder), a temp file of an older version's write, any other hidden file."""
    if path.is_symlink():
        return "link", f"a symbolic link (to {os.readlink(path)!r}), never followed"
    if path.name.startswith(".tmp-"):
        return "temp-file", "temp file of an interrupted write"
    if path.name.startswith("."):
        return "hidden-file", "hidden file that no save writes here"
    return None


def _set_aside(root: Path, plan: _Plan, kind: str, path: Path, detail: str) -> None:
    """Report a file and queue it for .orphans/: whatever it is, a person may have made it."""
    f = plan.found(kind, _rel(root, path), detail, f"moved under {ORPHANS}/")
    plan.quarantine.append((f, path))


def _survey_files(root: Path, plan: _Plan, referenced: set[Path]) -> None:
    known = {r["hash"] for r in map(_parse_kept, plan.keep)}
    counts = {digest: len(v) for digest, v in photo_versions(root).items()}
    linked = {f"{folder}/{split}" for folder in ("images", "labels") for split in SPLITS}
    linked = {sub for sub in linked if (root / sub).is_symlink()}
    for sub in sorted(linked):
        plan.found("link", sub, "the folder is a symbolic link, never followed; make it a real folder", None)
    for split in SPLITS:
        images = [] if f"images/{split}" in linked else _files(root / "images" / split)
        for image in (p for p in images if not _odd(p)):
            label = None if image in referenced else _complete_pair(image, referenced)
            if label is not None:
                rec = _rebuilt_record(root, image, label, known, 0)
                rec["version"] = counts[rec["hash"]] = counts.get(rec["hash"], 0) + 1
                plan.added.append(rec)
                referenced.update((image, label))
                plan.found(
                    "unrecorded", _rel(root, image), "image + label without a manifest line", "line added"
                )
        for folder, kind, other in (("images", "orphan-image", "label"), ("labels", "orphan-label", "image")):
            if f"{folder}/{split}" in linked:
                continue
            for path in _files(root / folder / split):
                odd = _odd(path)
                if odd:
                    _set_aside(root, plan, *odd[:1], path, odd[1])
                elif path not in referenced:
                    _set_aside(
                        root,
                        plan,
                        kind,
                        path,
                        f"no manifest line uses it (its {other} is missing or unusable)",
                    )
    for path in _files(root / STAGING):
        if _STAGED.fullmatch(path.name) and not path.is_symlink():
            f = plan.found("temp-file", _rel(root, path), "staged file of an interrupted save", "deleted")
            plan.delete.append((f, path))
        else:
            kind, detail = _odd(path) or ("stray-file", "not a file a save stages")
            _set_aside(root, plan, kind, path, detail)
    for path in (p for p in _files(root) if p.name.startswith(".tmp-")):
        kind, detail = _odd(path) or ("temp-file", "")
        _set_aside(root, plan, kind, path, detail)


def _parse_kept(raw: bytes) -> dict:
    return json.loads(raw.decode("utf-8"))


def _survey(root: Path) -> _Plan:
    """Look at everything (the caller holds the lock) and decide what a repair would do."""
    plan = _Plan([], [], [], [], [], [])
    _survey_layout(root, plan)
    referenced = _survey_manifest(root, plan)
    _survey_files(root, plan, referenced)
    plan.rewrite = plan.rewrite or bool(plan.removed or plan.added)
    return plan


def _merged_lines(plan: _Plan) -> list[bytes]:
    """Kept lines in their order, each restored record inserted before the first kept line saved
    after it: readers take the last line of a photo as its newest version."""
    out = [raw + b"\n" for raw in plan.keep]
    times = [str(_parse_kept(raw).get("saved_utc") or "") for raw in plan.keep]
    for rec in sorted(plan.added, key=lambda r: r["saved_utc"], reverse=True):
        at = next((i for i, t in enumerate(times) if t > rec["saved_utc"]), len(out))
        out.insert(at, (json.dumps(rec, ensure_ascii=False, sort_keys=True) + "\n").encode("utf-8"))
        times.insert(at, rec["saved_utc"])
    return out


def _apply(root: Path, plan: _Plan) -> None:
    """Mend in a crash-safe order: manifest first (atomic replace), then moves, then deletions.

    Interrupted anywhere, the folder is still valid for the readers and a second run finishes.
    """
    if any(f.kind == "layout" and f.fix for f in plan.findings):
        with contextlib.suppress(ValueError):  # a foreign data.yaml stays reported, unmended
            _ensure_layout(root)
    if plan.removed:
        kept = root / ORPHANS / "manifest-removed.txt"
        kept.parent.mkdir(parents=True, exist_ok=True)
        with open(kept, "ab") as out:
            out.write(b"".join(raw + b"\n" for raw in plan.removed))
            out.flush()
            os.fsync(out.fileno())
    if plan.rewrite:
        replace_synced(root / MANIFEST, b"".join(_merged_lines(plan)), root / STAGING)
    for f, path in plan.quarantine:
        f.action = _quarantine(root, path)
    for _, path in plan.delete:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
    for f in plan.findings:
        f.action = f.action or f.fix


def check(root: str | Path, repair: bool = False) -> list[Finding]:
    """Every problem in a saved-labels folder; with `repair`, each mended (its `action` set)."""
    if not Path(root).is_dir():
        raise FileNotFoundError(f"{root}: no such folder")
    root = Path(root).resolve()  # one spelling of every path, whatever links lead to the folder
    with locked(root / LOCK_FILE, shared=not repair):
        plan = _survey(root)
        if repair:
            _apply(root, plan)
    return plan.findings


def main(argv: list[str] | None = None) -> int:
    """`python -m vision labels check DIR [--repair] [--json]`; returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m vision labels", description="Saved-label folder tools.")
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("check", help="find (and with --repair mend) what interrupted saves left behind")
    c.add_argument("dir", help="the saved-labels folder (the page's datasets/labelled)")
    c.add_argument("--repair", action="store_true", help="mend what was found (nothing saved is deleted)")
    c.add_argument("--json", action="store_true", help="one JSON line per finding, then a summary line")
    args = parser.parse_args(argv)
    root = Path(args.dir)
    try:
        findings = check(root, repair=args.repair)
        remaining = check(root) if args.repair else findings
        photos = photo_versions(root)
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr, flush=True)
        return 2
    summary = {
        "folder": str(root),
        "photos": len(photos),
        "versions": sum(len(v) for v in photos.values()),
        "problems": len(findings),
        "remaining": len(remaining),
    }
    for f in findings:
        print(json.dumps(f.__dict__, ensure_ascii=False) if args.json else f.line())
    for f in remaining if args.repair else []:
        print(json.dumps({**f.__dict__, "remaining": True}) if args.json else f"still: {f.line()}")
    if args.json:
        print(json.dumps(summary))
    else:
        tail = (
            "clean" if not findings else ("all mended" if not remaining else "run with --repair to mend them")
        )
        if args.repair and remaining:
            tail = f"{len(remaining)} could not be mended"
        print(
            f"{root}: {summary['photos']} photos ({summary['versions']} saved versions), "
            f"{len(findings)} problem(s): {tail}"
        )
    return 1 if remaining else 0
