"""Reading the detector on ONNX Runtime: the shipped detector exported beside its weights.

Why: on these 2 cores ONNX Runtime runs the detector's network about a fifth faster than torch
(measured in models/MODEL_CARD.md: a 12 MP photo 116 -> 102 ms through `detect`). The classifier is
not exported: the same export made it slower there than torch with its batch norms folded in. The
weights file (`.pt`) stays the one truth: an exported `X.onnx` beside `X.pt` is used only when its
metadata names the sha256 of exactly that `X.pt` (retrained weights are read with torch until they
are exported again), and only when onnxruntime is installed. The detector keeps ultralytics' own
letterbox and NMS, so the boxes are the torch reader's to float rounding
(tests/vision/read/test_onnx_run.py). `MAHJONG_TORCH_ONLY=1` reads with torch.

Exporting (`python -m vision export-onnx`, and adapt for a player's learnt detector) needs the
`onnx` package; reading needs only `onnxruntime`.
"""

from __future__ import annotations

import ast
import hashlib
import os
import shutil
from pathlib import Path

import numpy as np

from vision.read import yolo_nms

#: The ONNX metadata key holding the sha256 of the weights file the model was exported from.
SOURCE_KEY = "exported_from_sha256"
#: Set to 1 to read with torch even where an export exists (a comparison, or a broken runtime).
TORCH_ONLY_ENV = "MAHJONG_TORCH_ONLY"


#: Per resolved path: the version last hashed (inode, size, mtime, ctime in ns) and its sha256; one
#: entry per file, so a process that adapts a set many times does not keep every version's hash.
_HASHED: dict[str, tuple[tuple[int, int, int, int], str]] = {}


def sha256_of(path: Path) -> str:
    """Hex sha256 of a file's bytes."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def weights_sha256(path: Path) -> str:
    """sha256 of a weights file, hashed once per version of the file in this process.

    Why: every model load checks the export's stamp against the weights (6 MB, about 10 ms to hash),
    and the page loads a model per player set and again after adapt. A file rewritten in place gets
    new mtime/ctime (a replaced one a new inode too), so it is hashed again."""
    resolved = Path(path).resolve()
    st = resolved.stat()
    version = (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    known = _HASHED.get(str(resolved))
    if known is None or known[0] != version:
        known = _HASHED[str(resolved)] = (version, sha256_of(resolved))
    return known[1]


def export_path(weights: Path) -> Path:
    """Where the export of `weights` lies: beside it, `.onnx` for `.pt`."""
    return Path(weights).with_suffix(".onnx")


def session_for(weights: Path) -> object | None:
    """An ONNX Runtime session of the export beside `weights`, or None when there is none, it was
    exported from other weights, onnxruntime is missing, or MAHJONG_TORCH_ONLY is set."""
    onnx_file = export_path(weights)
    if os.environ.get(TORCH_ONLY_ENV) == "1" or not onnx_file.is_file():
        return None
    try:
        import onnxruntime
    except ImportError:
        return None
    options = onnxruntime.SessionOptions()
    options.log_severity_level = 3  # errors only: a model that loads is read quietly
    # No busy-waiting between runs: a spinning pool holds a core that the next stage (the other
    # network, the crops, the page) needs; on 2 cores spinning made a 12 MP photo 1.7x slower.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    try:
        session = onnxruntime.InferenceSession(str(onnx_file), options, providers=["CPUExecutionProvider"])
    except Exception:  # noqa: BLE001 - a damaged export: torch reads the weights instead
        return None
    if session.get_modelmeta().custom_metadata_map.get(SOURCE_KEY) != weights_sha256(weights):
        return None
    return session


class OnnxDetector:
    """A YOLO detector exported to ONNX, read as `vision.read.detect._boxes_of` reads the torch one:
    ultralytics' letterbox (minimal padding to the stride), the network on ONNX Runtime, then
    ultralytics' NMS (in numpy, vision.read.yolo_nms) and box scaling, with the same arguments as
    its predictor uses."""

    def __init__(self, session: object, names: dict[int, str], stride: int) -> None:
        self.session = session
        self.names = names
        self.stride = stride
        self._input = session.get_inputs()[0].name
        self._letterboxes: dict[int, object] = {}  # one per input size, built once

    @classmethod
    def from_session(cls, session: object) -> OnnxDetector:
        """The detector of an ultralytics export, its class names and stride read from the
        metadata ultralytics writes into it (`names`, `stride`).

        Why not from the weights: loading the torch detector only for these two facts doubled the
        start-up work of every process that reads a photo; the export carries them, and its stamp
        (session_for) ties it to exactly those weights."""
        meta = session.get_modelmeta().custom_metadata_map
        try:
            names = {int(k): str(v) for k, v in ast.literal_eval(meta["names"]).items()}
            stride = int(meta["stride"])
        except (KeyError, ValueError, SyntaxError, AttributeError) as exc:
            raise ValueError(f"ONNX export without ultralytics' names/stride metadata: {exc}") from exc
        return cls(session, names, stride)

    def boxes(
        self, view: np.ndarray, imgsz: int, conf: float, iou: float
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Boxes (view pixels, x1 y1 x2 y2), confidences and classes on a BGR uint8 view."""
        from ultralytics.utils import ops

        x = self.network_input(view, imgsz)
        raw = self.session.run(None, {self._input: x})[0]
        xyxy, score, label = yolo_nms.suppress(raw, conf, iou)
        xyxy = ops.scale_boxes(x.shape[2:], xyxy, view.shape)
        return xyxy.astype(np.float64).reshape(-1, 4), score.astype(np.float64), label.astype(int)

    def network_input(self, view: np.ndarray, imgsz: int) -> np.ndarray:
        """What the network reads for a BGR uint8 view: letterboxed, RGB, N x C x H x W float in 0..1."""
        padded = self._letterbox(imgsz)(image=view)
        x = np.ascontiguousarray(padded[None, :, :, ::-1].transpose(0, 3, 1, 2), dtype=np.float32)
        x /= 255  # in place: one float copy of the view, not two
        return x

    def _letterbox(self, imgsz: int) -> object:
        """Ultralytics' letterbox for `imgsz` as its predictor builds it, made once per size."""
        if imgsz not in self._letterboxes:
            from ultralytics.data.augment import LetterBox

            self._letterboxes[imgsz] = LetterBox((imgsz, imgsz), auto=True, stride=self.stride)
        return self._letterboxes[imgsz]


def copy_export(weights: Path, copy: Path) -> None:
    """Copy the export of `weights`, where there is one, beside `copy` (a copy of the same weights:
    a player's model keeps the shipped detector, and reads it as fast)."""
    source = export_path(weights)
    if source.is_file():
        shutil.copyfile(source, export_path(copy))


def export_if_possible(weights: Path, imgsz: int) -> Path | None:
    """Export `weights` beside them where this install can (the `onnx` package), else None: the
    weights are then read with torch, the same boxes, only slower.

    Why: a player's model reads a learnt detector beside the shipped one; on torch that detector
    added 22 ms to the page's read of a 12 MP photo (98 -> 120 ms), on ONNX Runtime 16 ms
    (models/MODEL_CARD.md stop 44). A failed export leaves no file behind (an unstamped one would be
    refused anyway)."""
    try:
        import onnx  # noqa: F401
    except ImportError:
        return None
    try:
        return export_detector(weights, imgsz)
    except Exception:  # noqa: BLE001 - any exporter failure: torch reads the weights as before
        export_path(weights).unlink(missing_ok=True)
        return None


def stamp(onnx_file: Path, weights: Path) -> None:
    """Write into `onnx_file`'s metadata the sha256 of `weights` (needs the `onnx` package)."""
    import onnx

    model = onnx.load(str(onnx_file))
    kept = [p for p in model.metadata_props if p.key != SOURCE_KEY]
    del model.metadata_props[:]
    model.metadata_props.extend(kept)
    entry = model.metadata_props.add()
    entry.key, entry.value = SOURCE_KEY, sha256_of(weights)
    tmp = onnx_file.with_name(f".{onnx_file.name}.tmp")
    onnx.save(model, str(tmp))
    os.replace(tmp, onnx_file)


def export_detector(weights: Path, imgsz: int) -> Path:
    """Export YOLO `weights` to `weights`.onnx (dynamic input size, as the views vary) and stamp it."""
    import tempfile

    from vision.read import safe_weights

    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "detector.pt"
        shutil.copyfile(weights, copy)
        made = safe_weights.load_detector(copy).export(
            format="onnx", dynamic=True, imgsz=imgsz, simplify=False, verbose=False
        )
        out = export_path(weights)
        shutil.copyfile(made, out)
    stamp(out, weights)
    return out


def export_model(model_json: Path) -> Path:
    """Export the detector a model.json names, beside its weights; returns the export's path."""
    from vision.read import manifest

    m = manifest.read(model_json)
    return export_detector(manifest.weights_path(model_json, m.detector), m.det_imgsz)
