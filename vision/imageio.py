"""Load a photo as a person sees it, or fail with one clear, typed error.

Why this module exists: phones store photos sideways with an EXIF orientation tag (the detector must
see them upright and report boxes in upright pixels), iPhones save HEIC, and the app accepts uploads,
so a non-image, a truncated or empty file, or a decompression bomb must become one readable error
instead of a traceback or a machine stuck decoding gigapixels. The pixel count is checked from the
header, before any pixel data is decoded.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

#: Largest accepted image, in pixels (a 48 MP phone photo passes; bombs do not).
MAX_PIXELS = 50_000_000

_heif_registered = False
#: Pillow's own opener, kept before anything can monkey-patch it (ultralytics replaces Image.open with
#: a wrapper that, on an unrecognised file, tries to pip-install a HEIF plugin and prints to stdout).
_PIL_OPEN = Image.open


class ImageLoadError(Exception):
    """An image file could not be loaded; `str()` is one line naming the file and the reason."""

    def __init__(self, path: str | Path, reason: str) -> None:
        self.path = str(path)
        self.reason = reason
        super().__init__(f"{self.path}: {reason}")


def _register_heif() -> None:
    """Teach Pillow HEIC/HEIF (iPhone photos) once; a missing pillow-heif only disables HEIC."""
    global _heif_registered
    if _heif_registered:
        return
    _heif_registered = True
    try:
        import pillow_heif

        pillow_heif.register_heif_opener()
    except ImportError:  # pragma: no cover - pillow-heif is a declared dependency
        pass


def _pil_open():
    """Pillow's unpatched Image.open (see _PIL_OPEN), even if ultralytics was imported first."""
    opener = _PIL_OPEN
    module = getattr(opener, "__module__", "") or ""
    if module.startswith("ultralytics"):
        import sys

        opener = getattr(sys.modules.get(module), "_image_open", opener)
    return opener


def _open(path: Path, max_pixels: int) -> Image.Image:
    """Open lazily (header only) and refuse empty, unreadable or oversized files before decoding."""
    if not path.exists():
        raise ImageLoadError(path, "no such file")
    if path.is_dir():
        raise ImageLoadError(path, "is a directory, not an image file")
    if path.stat().st_size == 0:
        raise ImageLoadError(path, "empty file")
    _register_heif()
    try:
        with warnings.catch_warnings():
            # Our own limit below is stricter; Pillow's bomb warning would only be noise.
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            im = _pil_open()(path)
    except Image.DecompressionBombError as exc:
        raise ImageLoadError(path, f"image too large (over {max_pixels / 1e6:.0f} MP)") from exc
    except UnidentifiedImageError as exc:
        raise ImageLoadError(path, "not an image (unrecognised or unsupported format)") from exc
    except OSError as exc:
        raise ImageLoadError(path, f"cannot read file ({exc})") from exc
    width, height = im.size
    if width <= 0 or height <= 0:
        im.close()
        raise ImageLoadError(path, "image has no pixels")
    if width * height > max_pixels:
        im.close()
        raise ImageLoadError(
            path,
            f"image too large: {width}x{height} = {width * height / 1e6:.1f} MP, limit {max_pixels / 1e6:.0f} MP",
        )
    return im


def image_size(path: str | Path, max_pixels: int = MAX_PIXELS) -> tuple[int, int]:
    """(width, height) as a person sees the photo, read from the header only (no decoding)."""
    im = _open(Path(path), max_pixels)
    with im:
        width, height = im.size
        orientation = im.getexif().get(0x0112, 1)
    return (height, width) if orientation in (5, 6, 7, 8) else (width, height)


#: Integer modes whose samples span 0..65535 (16-bit PNG/TIFF): Pillow's own convert("RGB") clips
#: them at 255, which turns a 16-bit grey photo 99.97 % white.
_WIDE_INT_MODES = {"I", "I;16", "I;16L", "I;16B", "I;16N"}
#: Modes that carry an alpha channel (premultiplied ones included).
_ALPHA_MODES = {"RGBA", "LA", "PA", "RGBa", "La"}


def _composite_on_white(im: Image.Image) -> Image.Image:
    """Transparent parts become white, as a viewer on a light page shows them; converting alpha
    away instead would reveal whatever colour the hidden pixels hold (often black)."""
    rgba = im.convert("RGBA")
    white = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
    return Image.alpha_composite(white, rgba).convert("RGB")


def _grey(values: np.ndarray) -> Image.Image:
    """RGB from grey levels already on the 0..255 scale (rounded and clipped)."""
    return Image.fromarray(np.clip(np.rint(values), 0, 255).astype(np.uint8), "L").convert("RGB")


def to_rgb(im: Image.Image) -> Image.Image:
    """Any decoded Pillow image as 8-bit RGB that looks like the photo.

    16-bit and 32-bit integer grey is scaled from 0..65535 (the PNG/TIFF convention) instead of
    clipped; float grey is read as 0..1 when all values lie there, else as 0..255; alpha (and a
    palette's transparent colour) is composited on white; CMYK, palette, YCbCr, LAB, bilevel and
    16-bit RGB(A) go through Pillow's own conversions, which are right for them. A mode Pillow
    cannot convert raises ValueError naming it.
    """
    mode = im.mode
    if mode in _WIDE_INT_MODES:
        return _grey(np.asarray(im, dtype=np.float64) / 257.0)
    if mode == "F":
        real = np.nan_to_num(np.asarray(im, dtype=np.float64))
        return _grey(real * 255.0 if real.size and real.min() >= 0.0 and real.max() <= 1.0 else real)
    if mode in _ALPHA_MODES or "transparency" in im.info:
        return _composite_on_white(im)
    if mode == "RGB":
        return im
    try:
        return im.convert("RGB")
    except ValueError as exc:
        raise ValueError(f"unsupported colour mode {mode}") from exc


def load_image(path: str | Path, max_pixels: int = MAX_PIXELS, bgr: bool = False) -> np.ndarray:
    """Decode an image file to an upright H x W x 3 uint8 array (RGB, or BGR for OpenCV code).

    JPEG, PNG, WebP, BMP, TIFF and HEIC/HEIF are accepted, in every colour mode (16-bit grey and
    RGB, CMYK, palette, alpha: see `to_rgb`). EXIF orientation is applied, so the result is what a
    photo viewer shows. Raises ImageLoadError for every kind of bad input.
    """
    path = Path(path)
    im = _open(path, max_pixels)
    try:
        with im:
            im.load()  # raises OSError for truncated/corrupt data (LOAD_TRUNCATED_IMAGES stays off)
            upright = ImageOps.exif_transpose(im)
            try:
                rgb = to_rgb(upright)
            except ValueError as exc:
                raise ImageLoadError(path, str(exc)) from exc
            array = np.asarray(rgb)
    except ImageLoadError:
        raise
    except (OSError, ValueError, SyntaxError) as exc:
        raise ImageLoadError(path, f"corrupt or truncated image data ({exc})") from exc
    except MemoryError as exc:
        raise ImageLoadError(path, "not enough memory to decode image") from exc
    if bgr:
        array = array[:, :, ::-1]
    return np.ascontiguousarray(array)
