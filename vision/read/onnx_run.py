"""Reading on ONNX Runtime: the shipped detector and classifier, exported beside their weights.

Why: on a laptop CPU, ONNX Runtime runs the same two networks two to three times faster than torch
eager mode (measured in models/MODEL_CARD.md): it is what brings the page's 12 MP upload under half
the peer's time. The weights files (`.pt`) stay the one truth: an exported `X.onnx` beside `X.pt`
is used only when its metadata names the sha256 of exactly that `X.pt` (a retrained or adapted
`X.pt` is read with torch until it is exported again), and only when onnxruntime is installed.
The detector keeps ultralytics' own letterbox and NMS, so the boxes are the torch reader's to
float rounding (tests/vision/read/test_onnx_run.py). `MAHJONG_TORCH_ONLY=1` reads with torch.

Exporting (`python -m vision export-onnx`) needs the `onnx` package (the dev extra); reading needs
only `onnxruntime`.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

import numpy as np
import torch

#: The ONNX metadata key holding the sha256 of the weights file the model was exported from.
SOURCE_KEY = "exported_from_sha256"
#: Set to 1 to read with torch even where an export exists (a comparison, or a broken runtime).
TORCH_ONLY_ENV = "MAHJONG_TORCH_ONLY"


def sha256_of(path: Path) -> str:
    """Hex sha256 of a file's bytes."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


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
    try:
        session = onnxruntime.InferenceSession(str(onnx_file), options, providers=["CPUExecutionProvider"])
    except Exception:  # noqa: BLE001 - a damaged export: torch reads the weights instead
        return None
    if session.get_modelmeta().custom_metadata_map.get(SOURCE_KEY) != sha256_of(weights):
        return None
    return session


class OnnxDetector:
    """A YOLO detector exported to ONNX, read as `vision.read.detect._boxes_of` reads the torch one:
    ultralytics' letterbox (minimal padding to the stride), the network on ONNX Runtime, then
    ultralytics' NMS and box scaling, with the same arguments as its predictor uses."""

    def __init__(self, session: object, names: dict[int, str], stride: int) -> None:
        self.session = session
        self.names = names
        self.stride = stride
        self._input = session.get_inputs()[0].name

    def boxes(
        self, view: np.ndarray, imgsz: int, conf: float, iou: float
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Boxes (view pixels, x1 y1 x2 y2), confidences and classes on a BGR uint8 view."""
        from ultralytics.data.augment import LetterBox
        from ultralytics.utils import nms, ops

        padded = LetterBox((imgsz, imgsz), auto=True, stride=self.stride)(image=view)
        x = np.ascontiguousarray(padded[None, :, :, ::-1].transpose(0, 3, 1, 2), dtype=np.float32) / 255
        raw = self.session.run(None, {self._input: x})[0]
        found = nms.non_max_suppression(torch.from_numpy(raw), conf, iou, None, False, max_det=300, nc=0)[0]
        xyxy = ops.scale_boxes(x.shape[2:], found[:, :4], view.shape)
        return (
            xyxy.numpy().astype(np.float64).reshape(-1, 4),
            found[:, 4].numpy().astype(np.float64),
            found[:, 5].numpy().astype(int),
        )


class OnnxClassifier:
    """TileNet exported to ONNX, called like the torch net (`vision.read.tilenet.classify_crops`):
    a float N x 3 x H x W tensor in, logits out."""

    def __init__(self, session: object) -> None:
        self.session = session
        self._input = session.get_inputs()[0].name

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        if not len(x):
            out = self.session.get_outputs()[0].shape[-1]
            return torch.zeros((0, int(out)))
        return torch.from_numpy(self.session.run(None, {self._input: x.numpy().astype(np.float32)})[0])


def copy_export(weights: Path, copy: Path) -> None:
    """Copy the export of `weights`, where there is one, beside `copy` (a copy of the same weights:
    a player's model keeps the shipped detector, and reads it as fast)."""
    source = export_path(weights)
    if source.is_file():
        shutil.copyfile(source, export_path(copy))


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


def export_classifier(weights: Path, net: torch.nn.Module) -> Path:
    """Export the classifier `net` (built from `weights`, batch norms folded) to `weights`.onnx, any
    batch size, and stamp it."""
    from vision.read.tilenet import CROP_H, CROP_W

    out = export_path(weights)
    tmp = out.with_name(f".{out.name}.tmp")
    example = torch.zeros((2, 3, CROP_H, CROP_W))
    torch.onnx.export(
        net.eval(),
        (example,),
        str(tmp),
        input_names=["crops"],
        output_names=["logits"],
        dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}},
        dynamo=False,
    )
    os.replace(tmp, out)
    stamp(out, weights)
    return out


def export_model(model_json: Path) -> list[Path]:
    """Export the detector and the classifier a model.json names, beside their weights."""
    from vision.read import manifest, safe_weights
    from vision.read.tilenet import TileNet, classifier_outputs, for_reading

    m = manifest.read(model_json)
    made = [export_detector(manifest.weights_path(model_json, m.detector), m.det_imgsz)]
    if m.classifier:
        weights = manifest.weights_path(model_json, m.classifier)
        state = safe_weights.load_state_dict(weights)
        net = TileNet(num_classes=classifier_outputs(state), width=m.classifier_width)
        net.load_state_dict({k: v.float() for k, v in state.items()})
        made.append(export_classifier(weights, for_reading(net.eval())))
    return made
