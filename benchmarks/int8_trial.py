"""Trial: the shipped detector's ONNX export quantized to int8, timed beside it, as a candidate.

    python benchmarks/int8_trial.py [--model models/model.json] [--calib 64] [--out runs/candidates/int8]

Why a trial: the page reads a 12 MP photo in about 0.66x the ONNX peer's time and the target is
0.5x; the detector's network is about a quarter of it. ONNX Runtime runs int8 convolutions on the
CPU's integer dot-product units (VNNI here), but quantizing moves every box and confidence a
little, so a quantized detector ships only if `benchmarks/reader_report.py` finds no real set worse
(the ship rule). This script makes the candidate and times the network alone; the report judges it.

Calibration (activation ranges) uses real TRAIN photos only, read into the detector's views the
way the reader makes them (reduced decode, area average, letterbox), never a photo the report
reads. The box and class outputs of the head (its last 1x1 convolutions and the DFL) stay float:
box regression is where int8 rounding costs the most.

Writes OUT/ as a copy of the model folder whose `tile_detector.onnx` is the int8 one, stamped
with the weights' sha256 so the reader uses it (vision.read.onnx_run).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("YOLO_OFFLINE", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from vision.read import detect as reader  # noqa: E402
from vision.read import onnx_run  # noqa: E402
from vision.read.imageio import decode_reduced  # noqa: E402
from vision.train import data  # noqa: E402

#: Head nodes kept in float (ultralytics' YOLOv8 export names): the last conv of each box (cv2)
#: and class (cv3) branch, and the DFL's.
FLOAT_HEAD = ("cv2.0.2", "cv2.1.2", "cv2.2.2", "cv3.0.2", "cv3.1.2", "cv3.2.2", "/dfl/")


def network_inputs(detector: onnx_run.OnnxDetector, photos: list[Path], imgsz: int) -> list[np.ndarray]:
    """The float inputs the detector's network gets for these photos on the reader's plain view."""
    out = []
    for p in photos:
        rgb = decode_reduced(p, reader.DECODE_FACTOR * imgsz).rgb
        mid, _ = reader._mid_image(rgb)
        view, _, _ = reader._detector_view(mid, imgsz)
        out.append(detector.network_input(view, imgsz))
    return out


def quantize(src: Path, dst: Path, inputs: list[np.ndarray], fmt: str = "qdq") -> None:
    """Static int8 quantization (per-channel weights; `fmt` qdq or qoperator) of `src` into `dst`,
    activation ranges from `inputs`."""
    import onnx
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    class Reader(CalibrationDataReader):
        def __init__(self) -> None:
            self.left = iter(inputs)

        def get_next(self) -> dict | None:
            x = next(self.left, None)
            return None if x is None else {"images": x}

    with tempfile.TemporaryDirectory() as tmp:
        pre = Path(tmp) / "pre.onnx"
        quant_pre_process(str(src), str(pre), skip_symbolic_shape=True)
        names = [n.name for n in onnx.load(str(pre)).graph.node if n.op_type == "Conv"]
        keep_float = [n for n in names if any(k in n for k in FLOAT_HEAD)]
        quantize_static(
            str(pre),
            str(dst),
            Reader(),
            quant_format=QuantFormat.QDQ if fmt == "qdq" else QuantFormat.QOperator,
            op_types_to_quantize=["Conv"],
            per_channel=True,
            weight_type=QuantType.QInt8,
            activation_type=QuantType.QUInt8,
            nodes_to_exclude=keep_float,
        )
    # Keep ultralytics' metadata (names, stride) that the reader reads from the export.
    source, made = onnx.load(str(src)), onnx.load(str(dst))
    del made.metadata_props[:]
    made.metadata_props.extend(source.metadata_props)
    onnx.save(made, str(dst))


def median_ms(session: object, inputs: list[np.ndarray], rounds: int) -> float:
    """Median milliseconds of one network run over `rounds` passes of `inputs`."""
    name = session.get_inputs()[0].name
    times = []
    for _ in range(rounds):
        for x in inputs:
            t = time.perf_counter()
            session.run(None, {name: x})
            times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default=str(reader.DEFAULT_MODEL))
    ap.add_argument("--calib", type=int, default=64, help="real train photos for the activation ranges")
    ap.add_argument("--time-photos", type=int, default=12, help="other train photos the network is timed on")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument(
        "--format", choices=("qdq", "qoperator"), default="qdq", help="ONNX Runtime's int8 graph form"
    )
    ap.add_argument("--out", default="runs/candidates/int8")
    args = ap.parse_args()

    model_json = Path(args.model).resolve()
    tm = reader.load_model(model_json)
    if not isinstance(tm.detector, onnx_run.OnnxDetector):
        raise SystemExit("the model's detector has no export: run `python -m vision export-onnx` first")
    weights = model_json.parent / tm.meta["detector"]
    train = sorted((data.REAL_DATASET / "train" / "images").iterdir())
    rng = np.random.default_rng(0)
    picked = [train[i] for i in rng.choice(len(train), args.calib + args.time_photos, replace=False)]
    calib = network_inputs(tm.detector, picked[: args.calib], tm.det_imgsz)
    timed = network_inputs(tm.detector, picked[args.calib :], tm.det_imgsz)

    out = Path(args.out)
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(model_json.parent, out, ignore=shutil.ignore_patterns("*.md", "replay_*"))
    t = time.perf_counter()
    quantize(onnx_run.export_path(weights), onnx_run.export_path(out / weights.name), calib, args.format)
    onnx_run.stamp(onnx_run.export_path(out / weights.name), out / weights.name)
    print(f"quantized in {time.perf_counter() - t:.0f} s on {len(calib)} train photos -> {out}")

    fp32 = onnx_run.session_for(weights)
    int8 = onnx_run.session_for(out / weights.name)
    assert fp32 is not None and int8 is not None
    a, b = median_ms(fp32, timed, args.rounds), median_ms(int8, timed, args.rounds)
    print(
        f"network alone, median of {args.rounds} x {len(timed)} views: float {a:.1f} ms, int8 {b:.1f} ms ({b / a:.2f}x)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
