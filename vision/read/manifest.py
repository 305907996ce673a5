"""model.json: what a tile model is, written by training/adapt, checked by the loader.

Why a module of its own: three writers (train's ship, adapt, tests) and one reader must agree on
the fields, and the reader must refuse a model it would misread. Before format 2 the only check was
"35 or 36 classifier outputs", so a 36-class model whose 36th class was a real new tile would have
been read with that class silently taken for `other`. Now the file says which classes each output
is, and the loader compares them with `vision.classes` (the one vocabulary).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from vision import durable
from vision.classes import CLASS_NAMES, EXTRA_OUTPUTS, OTHER
from vision.read.operating_point import OperatingPoint, unit_value

FORMAT_VERSION = 2
#: The flower gate's file name in a model folder (written by `vision flower-gate`, copied by adapt).
FLOWER_GATE_FILE = "flower_gate.pt"


class ModelFileError(ValueError):
    """model.json is unreadable or describes a model this code cannot read correctly."""


@dataclass
class ModelManifest:
    """The fields of model.json (format 2). Unknown extra keys are kept in `extra`."""

    detector: str
    classifier: str | None = None
    classifier_width: int = 24
    #: The detection vocabulary, in output order: must equal vision.classes.CLASS_NAMES.
    classes: list[str] = field(default_factory=lambda: list(CLASS_NAMES))
    #: The classifier's outputs in order: the classes, then optionally `other`.
    classifier_classes: list[str] = field(default_factory=lambda: [*CLASS_NAMES, OTHER])
    #: The reader's thresholds (vision.read.operating_point), written as top-level keys of model.json.
    op: OperatingPoint = field(default_factory=OperatingPoint)
    det_imgsz: int = 384
    architecture: str = "two-stage"
    format_version: int = FORMAT_VERSION
    #: A player's model (vision.train.adapt): a second detector, fine-tuned on the player's photos,
    #: read beside `detector`. Its boxes at or above `learnt_conf` (its own detector confidence) are
    #: added where the base found nothing, never in place of the base detector's boxes; only
    #: `learnt_veto` (below) lets it drop one (vision.read.learnt.merge).
    learnt_detector: str | None = None
    learnt_conf: float = 0.5
    #: Above 0, the learnt detector also says where the player's table has no tile: a base box it
    #: does not confirm (no box of its own at or above this confidence with IoU >= 0.5) is dropped
    #: (vision.read.learnt.merge). 0: every base box stays.
    learnt_veto: float = 0.0
    #: Above 0, a base box the learnt detector sees as the same one tile but outlines differently
    #: (IoU under this) takes the learnt box's outline (vision.read.learnt.refit). 0: never.
    learnt_refit: float = 0.0
    #: A second crop reader asking one question, flower or tile (a TileNet with two outputs), read
    #: where OperatingPoint.flower_gate_at_least is above 0 (vision.read.detect.tile_and_face;
    #: written by `python -m vision flower-gate`). None: no gate.
    flower_gate: str | None = None
    extra: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        """JSON-ready dict; `extra` keys are written at top level (seed, sources, metrics...)."""
        d = asdict(self)
        extra = d.pop("extra")
        d.pop("op")
        if not self.classifier:
            d.pop("classifier_classes")
        if not self.flower_gate:
            d.pop("flower_gate")
        if not self.learnt_detector:
            d.pop("learnt_detector")
            d.pop("learnt_conf")
            d.pop("learnt_veto")
            d.pop("learnt_refit")
        return {**d, **self.op.to_json(), **extra}


def check_classes(m: ModelManifest) -> None:
    """Refuse a manifest whose vocabulary differs from this code's (order matters)."""
    if list(m.classes) != list(CLASS_NAMES):
        raise ModelFileError(
            f"model classes {list(m.classes)[:6]}... ({len(m.classes)}) differ from this version's "
            f"{len(CLASS_NAMES)} classes {list(CLASS_NAMES)[:6]}...; retrain or use a matching version"
        )
    if m.classifier:
        cc = list(m.classifier_classes)
        if cc[: len(CLASS_NAMES)] != list(CLASS_NAMES) or tuple(cc[len(CLASS_NAMES) :]) not in EXTRA_OUTPUTS:
            raise ModelFileError(
                f"classifier outputs {cc[-3:]} are not the classes (+ optional `other`, then `flower`)"
            )


def from_dict(d: dict) -> ModelManifest:
    """Parse a model.json dict; format-1 files (before tile_conf) are read with safe defaults."""
    if not isinstance(d, dict) or "detector" not in d:
        raise ModelFileError("model.json must be an object with at least a `detector` file name")
    if not isinstance(d["detector"], str) or not d["detector"]:
        raise ModelFileError("`detector` must be the weights file's name")
    for key in ("classifier", "learnt_detector", "flower_gate"):
        if d.get(key) is not None and (not isinstance(d[key], str) or not d[key]):
            raise ModelFileError(f"`{key}` must be the weights file's name, or absent")
    try:
        learnt_conf = unit_value("learnt_conf", d.get("learnt_conf", 0.5))
        learnt_veto = unit_value("learnt_veto", d.get("learnt_veto", 0.0))
        learnt_refit = unit_value("learnt_refit", d.get("learnt_refit", 0.0))
    except ValueError as exc:
        raise ModelFileError(str(exc)) from exc
    version = d.get("format_version", 1)
    if not isinstance(version, int) or version > FORMAT_VERSION:
        raise ModelFileError(f"model format {version!r} is newer than this code reads ({FORMAT_VERSION})")
    known = {f for f in ModelManifest.__dataclass_fields__ if f not in ("extra", "op")}
    thresholds = set(OperatingPoint.__dataclass_fields__)
    kw = {k: v for k, v in d.items() if k in known}
    extra = {k: v for k, v in d.items() if k not in known and k not in thresholds}
    if version == 1:
        outputs = extra.pop("classifier_outputs", None)
        kw["classifier_classes"] = (
            [*CLASS_NAMES, OTHER] if outputs == len(CLASS_NAMES) + 1 else list(CLASS_NAMES)
        )
        kw["format_version"] = FORMAT_VERSION
    kw.setdefault("classes", list(CLASS_NAMES))
    try:
        op = OperatingPoint.from_json(d, legacy_tile_conf=version == 1)
    except ValueError as exc:
        raise ModelFileError(str(exc)) from exc
    try:
        m = ModelManifest(**kw, op=op, extra=extra)
        m.det_imgsz = int(m.det_imgsz)
        m.learnt_conf, m.learnt_veto, m.learnt_refit = learnt_conf, learnt_veto, learnt_refit
    except TypeError as exc:
        raise ModelFileError(f"bad model.json field: {exc}") from exc
    check_classes(m)
    return m


def weights_path(model_json: str | Path, name: str) -> Path:
    """The weights file `name` of a model.json, which must lie inside the model's own folder.

    A model folder is handed around (adapt writes one per player, MAHJONG_MODEL names any), so its
    model.json must not be able to point at a file elsewhere: an absolute path, a `..` step or a
    symlink leading out of the folder is refused, and so is anything that is not a plain file name
    below it.
    """
    p = Path(model_json)
    if not isinstance(name, str) or not name or "\\" in name or "\x00" in name:
        raise ModelFileError(f"{p}: weights file name {name!r} is not a file name in the model's folder")
    rel = Path(name)
    if rel.is_absolute() or ".." in rel.parts:
        raise ModelFileError(
            f"{p}: weights file {name!r} lies outside the model's folder; only names inside it"
        )
    folder = p.parent.resolve()
    target = folder / rel
    try:
        target.resolve(strict=False).relative_to(folder)
    except (ValueError, OSError, RuntimeError) as exc:
        raise ModelFileError(f"{p}: weights file {name!r} leads outside the model's folder (a link)") from exc
    return target


def read(path: str | Path) -> ModelManifest:
    """Read and check a model.json."""
    p = Path(path)
    try:
        d = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ModelFileError(f"{p}: cannot read model.json: {exc}") from exc
    try:
        return from_dict(d)
    except ModelFileError as exc:
        raise ModelFileError(f"{p}: {exc}") from exc


def write(path: str | Path, m: ModelManifest) -> Path:
    """Write model.json atomically (a reader never sees half a file)."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(m.to_dict(), indent=2, ensure_ascii=False) + "\n"
    durable.replace_synced(p, text.encode("utf-8"), p.parent)
    return p


def version_of(path: str | Path) -> str:
    """`model.json@<12 hex>`: a hash of model.json and the weight files it names, so a retrained
    or adapted model gets a new version even when its file names stay (it goes into the training
    manifest of every saved photo, and into an adapted model's `adapted_from`)."""
    import hashlib

    p = Path(path)
    digest = hashlib.sha256(p.read_bytes())
    if p.suffix == ".json":
        m = read(p)
        for weights in (m.detector, m.classifier, m.learnt_detector, m.flower_gate):
            if weights and weights_path(p, weights).is_file():
                digest.update(weights_path(p, weights).read_bytes())
    return f"{p.name}@{digest.hexdigest()[:12]}"
