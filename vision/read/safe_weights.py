"""Load model weights without unpickling code: the detector through ultralytics' restricted loader,
the classifier as plain tensors, both checked first for what they would import.

Why this module exists: a `.pt` file is a pickle, and unpickling one with `weights_only=False` (what
ultralytics does by default) runs whatever the file says, so a model folder a player downloads, or a
`model.json` that names someone else's file, could run a program on the laptop. Here a weights file is
first scanned for the globals its pickle names; anything that is not a torch or ultralytics layer (or
the few data types ultralytics checkpoints carry) is refused by name before any byte is unpickled, and
the load itself then runs with `weights_only=True`: ultralytics' allow-list of its own classes for the
detector, torch's tensor-only default for the classifier. A file that is refused, unreadable or of the
wrong kind becomes one `WeightsError` line.
"""

from __future__ import annotations

import contextlib
import inspect
import pickle
import threading
from collections.abc import Iterator
from pathlib import Path

import torch

#: Module prefixes whose classes a detector checkpoint may name (layers and the containers ultralytics
#: pickles); the restricted unpickler additionally admits only nn.Module subclasses from the layer ones.
_DETECTOR_PREFIXES = ("torch.nn.modules.", "ultralytics.nn.modules.", "ultralytics.nn.tasks.")
#: Exact names of the data (non-layer) globals in ultralytics checkpoints.
_DETECTOR_DATA = {
    "ultralytics.utils.IterableSimpleNamespace",
    "numpy.dtype",
    "numpy.core.multiarray.scalar",
    "numpy._core.multiarray.scalar",
    "builtins.getattr",  # ultralytics' restricted loader admits it only on nn.Module classes
    "pathlib.PosixPath",
    "pathlib.WindowsPath",
}
#: Serialises flipping ultralytics' process-wide restricted-load switch.
_SWITCH = threading.Lock()


class WeightsError(ValueError):
    """A weights file was refused or could not be loaded; `str()` is one line naming the file."""


def unsafe_globals(path: Path) -> list[str]:
    """The globals a torch zip checkpoint's pickle names beyond torch's tensor-only set."""
    scan = getattr(torch.serialization, "get_unsafe_globals_in_checkpoint", None)
    if scan is None:
        raise WeightsError(
            f"{path}: torch {torch.__version__} cannot check weights before loading; install torch 2.6+"
        )
    try:
        return list(scan(str(path)))
    except (ValueError, RuntimeError, OSError, pickle.UnpicklingError) as exc:
        raise WeightsError(f"{path}: not a readable torch checkpoint ({_one_line(exc)})") from exc


def _detector_global_ok(name: str) -> bool:
    if name in _DETECTOR_DATA or name.startswith("numpy.dtypes."):
        return True
    return name.startswith(_DETECTOR_PREFIXES) and name.count(".") >= 3


def check_detector(path: Path) -> None:
    """Refuse a detector checkpoint that names anything but layers and ultralytics' data types."""
    bad = sorted(g for g in unsafe_globals(path) if not _detector_global_ok(g))
    if bad:
        raise WeightsError(
            f"{path}: refused, loading it would run code it names ({', '.join(bad[:3])}); "
            "only ultralytics/torch layers are loaded"
        )


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:200]}" if text else type(exc).__name__


def _ultralytics_switch():
    """ultralytics.nn.tasks when it has the restricted loader this module relies on, else WeightsError."""
    from ultralytics.nn import tasks

    safe = getattr(tasks, "_SafeLoad", None)
    loader = getattr(tasks, "torch_safe_load", None)
    if (
        safe is None
        or not getattr(safe, "SUPPORTED", False)
        or loader is None
        or "safe_only" not in inspect.signature(loader).parameters
        or not hasattr(tasks, "SAFE_LOAD")
    ):
        import ultralytics

        raise WeightsError(
            f"ultralytics {ultralytics.__version__} (with torch {torch.__version__}) cannot load weights "
            "without unpickling code; install the tested ultralytics 8.4.190 or newer and torch 2.6 or newer"
        )
    return tasks


@contextlib.contextmanager
def restricted_ultralytics() -> Iterator[None]:
    """Every ultralytics checkpoint load inside runs with `weights_only=True` and its allow-list."""
    tasks = _ultralytics_switch()
    with _SWITCH:
        before = tasks.SAFE_LOAD
        tasks.SAFE_LOAD = True
        try:
            yield
        finally:
            tasks.SAFE_LOAD = before


def load_detector(path: Path) -> object:
    """An ultralytics YOLO from `path`, loaded without unpickling code (see module doc)."""
    from ultralytics import YOLO  # imported late: heavy, and vision._env must run first

    check_detector(path)
    try:
        with restricted_ultralytics():
            return YOLO(str(path), task="detect")
    except WeightsError:
        raise
    except (TypeError, pickle.UnpicklingError, RuntimeError, EOFError, ModuleNotFoundError) as exc:
        raise WeightsError(f"{path}: not a loadable detector ({_one_line(exc)})") from exc


def load_state_dict(path: Path) -> dict[str, torch.Tensor]:
    """A classifier state dict (names -> tensors), unpickled as tensors only."""
    bad = unsafe_globals(path)
    if bad:
        raise WeightsError(
            f"{path}: refused, loading it would run code it names ({', '.join(sorted(bad)[:3])}); "
            "a classifier file holds tensors only"
        )
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except (pickle.UnpicklingError, RuntimeError, EOFError, OSError) as exc:
        raise WeightsError(f"{path}: not a loadable classifier ({_one_line(exc)})") from exc
    if not isinstance(state, dict) or not all(
        isinstance(k, str) and isinstance(v, torch.Tensor) for k, v in state.items()
    ):
        raise WeightsError(f"{path}: not a classifier state dict (names -> tensors)")
    return state
