"""Load a photo as a person sees it, or fail with one clear, typed error.

Why this module exists: phones store photos sideways with an EXIF orientation tag (the detector must
see them upright and report boxes in upright pixels), iPhones save HEIC, and the app accepts uploads,
so a non-image, a truncated or empty file, or a decompression bomb must become one readable error
instead of a traceback or a machine stuck decoding gigapixels. The pixel count is checked from the
header, before any pixel data is decoded.

Only the formats a phone or a screenshot produces are ever handed to a decoder (`ACCEPTED_FORMATS`):
Pillow would otherwise try every plugin it has, and its EPS/PostScript plugin runs Ghostscript on the
file, so a few bytes named `.jpg` could run a PostScript program. Every place that opens an image
goes through `open_image` for that reason. Decoding to 8-bit RGB is done a band of rows at a time
into the one output array, so a 16-bit or transparent 50 MP photo costs about its output plus its
decoded pixels, not several float copies of it.
"""

from __future__ import annotations

import io
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import cv2
import numpy as np
from PIL import Image, UnidentifiedImageError

from rules.words import Words

#: Largest accepted image, in pixels (a 48 MP phone photo passes; bombs do not).
MAX_PIXELS = 50_000_000

#: Pillow format ids that are ever decoded (JPEG includes the MPO files phones write; HEIF is
#: pillow-heif's id for HEIC/HEIF). Anything else is refused before any plugin parses it.
ACCEPTED_FORMATS = ("JPEG", "PNG", "WEBP", "HEIF", "BMP", "TIFF")
#: How the accepted formats are named to people.
ACCEPTED_WORDS = "JPEG, PNG, WebP, HEIC/HEIF, BMP or TIFF"
ACCEPTED_WORDS_ZH = "JPEG、PNG、WebP、HEIC/HEIF、BMP 或 TIFF"

#: Leading bytes of formats Pillow (or a plugin) could read but we refuse, to name them in the error.
_REFUSED_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"%!PS", "PostScript/EPS"),
    (b"\xc5\xd0\xd3\xc6", "EPS"),
    (b"%PDF", "PDF"),
    (b"GIF87a", "GIF"),
    (b"GIF89a", "GIF"),
    (b"\x00\x00\x00\x0cjP  ", "JPEG 2000"),
    (b"\xffO\xffQ", "JPEG 2000"),
    (b"8BPS", "Photoshop PSD"),
    (b"\x00\x00\x01\x00", "ICO"),
    (b"\x00\x00\x02\x00", "CUR"),
    (b"icns", "ICNS"),
    (b"DDS ", "DDS"),
    (b"qoif", "QOI"),
    (b"\x59\xa6\x6a\x95", "Sun raster"),
    (b"\x01\xda", "SGI"),
    (b"SIMPLE  =", "FITS"),
    (b"\x89HDF", "HDF5"),
    (b"GRIB", "GRIB"),
    (b"BUFR", "BUFR"),
    (b"\xd7\xcd\xc6\x9a", "WMF"),
    (b"\x01\x00\x00\x00", "EMF"),
    (b"/* XPM */", "XPM"),
    (b"#define", "XBM"),
    (b"<?xml", "SVG/XML"),
    (b"<svg", "SVG"),
)
#: ISO-BMFF brands that are AVIF (HEIC shares the container and is accepted).
_AVIF_BRANDS = {b"avif", b"avis"}

_heif_registered = False
#: Pillow's own opener, kept before anything can monkey-patch it (ultralytics replaces Image.open with
#: a wrapper that, on an unrecognised file, tries to pip-install a HEIF plugin and prints to stdout).
_PIL_OPEN = Image.open


def _never_run_ghostscript() -> None:
    """Make Pillow believe Ghostscript is absent, for the whole process.

    Our opener never lets the EPS plugin near a file, but other code in the process opens images
    with plain Image.open (ultralytics checks dataset images that way); an EPS file reaching it
    would otherwise start Ghostscript on PostScript someone else wrote.
    """
    from PIL import EpsImagePlugin

    EpsImagePlugin.gs_binary = False
    EpsImagePlugin.gs_windows_binary = False


_never_run_ghostscript()


class ImageLoadError(Exception):
    """An image file could not be loaded; `str()` is one line naming the file and the reason.

    `words` is the reason in Chinese and English (the page speaks one language at a time; a Chinese
    page must not quote "corrupt or truncated image data"); `reason` is its English, as logged."""

    def __init__(self, path: str | Path, reason: str | Words) -> None:
        self.path = str(path)
        self.words = reason if isinstance(reason, Words) else Words(reason, reason)
        self.reason = self.words.en
        super().__init__(f"{self.path}: {self.reason}")


def _not_accepted(name: str) -> Words:
    return Words(
        f"不收 {name} 格式（只收 {ACCEPTED_WORDS_ZH}）",
        f"format {name} is not accepted (only {ACCEPTED_WORDS})",
    )


_EMPTY = Words("是空文件", "empty file")


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


def refused_format(head: bytes) -> str | None:
    """The name of a format we know and refuse, from a file's first bytes; None when not one of them."""
    for magic, name in _REFUSED_MAGIC:
        if head.startswith(magic):
            return name
    if head[4:8] == b"ftyp" and head[8:12] in _AVIF_BRANDS:
        return "AVIF"
    if len(head) >= 3 and head[:1] == b"P" and head[1:2] in b"1234567" and head[2:3].isspace():
        return "PPM/PGM (netpbm)"
    return None


def _unsupported(head: bytes) -> Words:
    """The one-line reason for a file no accepted format recognised."""
    named = refused_format(head)
    if named:
        return _not_accepted(named)
    return Words(
        f"不是图片（认不出或不支持的格式；只收 {ACCEPTED_WORDS_ZH}）",
        f"not an image (unrecognised or unsupported format; only {ACCEPTED_WORDS})",
    )


def open_image(
    source: str | Path | bytes, max_pixels: int = MAX_PIXELS, name: str | None = None
) -> Image.Image:
    """Open an image file or its bytes lazily (header only) as one of ACCEPTED_FORMATS, refusing
    empty, unreadable, other-format or oversized input before any pixel is decoded.

    The only opener of images in the project: never call Image.open on untrusted data elsewhere.
    Raises ImageLoadError naming `name` (default: the path, or "<bytes>").
    """
    if isinstance(source, bytes):
        label = name or "<bytes>"
        if not source:
            raise ImageLoadError(label, _EMPTY)
        fp: io.BytesIO | Path = io.BytesIO(source)
        head = source[:16]
    else:
        path = Path(source)
        label = name or str(path)
        if not path.exists():
            raise ImageLoadError(label, Words("没有这个文件", "no such file"))
        if path.is_dir():
            raise ImageLoadError(label, Words("是文件夹，不是图片文件", "is a directory, not an image file"))
        if path.stat().st_size == 0:
            raise ImageLoadError(label, _EMPTY)
        try:
            with path.open("rb") as f:
                head = f.read(16)
        except OSError as exc:
            raise ImageLoadError(
                label, Words("文件读不出来", f"cannot read file ({exc.strerror or exc})")
            ) from exc
        fp = path
    _register_heif()
    try:
        with warnings.catch_warnings():
            # Our own limit below is stricter; Pillow's bomb warning would only be noise.
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            im = _pil_open()(fp, formats=ACCEPTED_FORMATS)
    except Image.DecompressionBombError as exc:
        raise ImageLoadError(
            label,
            Words(
                f"图片太大（超过 {max_pixels / 1e6:.0f} 百万像素）",
                f"image too large (over {max_pixels / 1e6:.0f} MP)",
            ),
        ) from exc
    except UnidentifiedImageError as exc:
        raise ImageLoadError(label, _unsupported(head)) from exc
    except OSError as exc:
        raise ImageLoadError(label, Words("文件读不出来", f"cannot read file ({exc})")) from exc
    if im.format not in ACCEPTED_FORMATS and im.format != "MPO":
        im.close()  # a plugin registered later under an accepted id must not widen the list
        raise ImageLoadError(label, _not_accepted(str(im.format)))
    width, height = im.size
    if width <= 0 or height <= 0:
        im.close()
        raise ImageLoadError(label, Words("图片里没有像素", "image has no pixels"))
    if width * height > max_pixels:
        im.close()
        raise ImageLoadError(
            label,
            Words(
                f"图片太大：{width}x{height} = {width * height / 1e6:.1f} 百万像素，上限 {max_pixels / 1e6:.0f} 百万像素",
                f"image too large: {width}x{height} = {width * height / 1e6:.1f} MP, limit {max_pixels / 1e6:.0f} MP",
            ),
        )
    return im


def image_size(path: str | Path, max_pixels: int = MAX_PIXELS) -> tuple[int, int]:
    """(width, height) as a person sees the photo, read from the header only (no decoding)."""
    im = open_image(path, max_pixels)
    with im:
        width, height = im.size
        orientation = im.getexif().get(0x0112, 1)
    return (height, width) if orientation in (5, 6, 7, 8) else (width, height)


#: Integer modes whose samples span 0..65535 (16-bit PNG/TIFF): Pillow's own convert("RGB") clips
#: them at 255, which turns a 16-bit grey photo 99.97 % white.
_WIDE_INT_MODES = {"I", "I;16", "I;16L", "I;16B", "I;16N"}
#: Modes that carry an alpha channel (premultiplied ones included).
_ALPHA_MODES = {"RGBA", "LA", "PA", "RGBa", "La"}
#: Pixels converted per band: small enough that a band's temporaries stay a few tens of MB.
BAND_PIXELS = 1 << 20

#: EXIF orientation -> view of the upright array in the stored image's coordinates (each is the
#: inverse of what ImageOps.exif_transpose does to the stored image), so bands decoded in stored
#: order are written straight to their upright place.
_STORED_VIEW = {
    1: lambda a: a,
    2: lambda a: a[:, ::-1],
    3: lambda a: a[::-1, ::-1],
    4: lambda a: a[::-1],
    5: lambda a: a.transpose(1, 0, 2),
    6: lambda a: np.rot90(a, 1),
    7: lambda a: a[::-1, ::-1].transpose(1, 0, 2),
    8: lambda a: np.rot90(a, -1),
}


def _composite_on_white(im: Image.Image) -> Image.Image:
    """Transparent parts become white, as a viewer on a light page shows them; converting alpha
    away instead would reveal whatever colour the hidden pixels hold (often black)."""
    rgba = im.convert("RGBA")
    white = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
    return Image.alpha_composite(white, rgba).convert("RGB")


def _wide_to_8bit(values: np.ndarray) -> np.ndarray:
    """0..65535 integer grey to 0..255, rounded half up as rint(v / 257) would, in integers."""
    wide = values.astype(np.int64)
    return np.clip((2 * wide + 257) // 514, 0, 255).astype(np.uint8)


def _float_scale(im: Image.Image, rows: int) -> float:
    """255 when all of a float image lies in 0..1 (read as 0..1), else 1 (read as 0..255)."""
    low, high = np.inf, -np.inf
    for y in range(0, im.height, rows):
        band = np.nan_to_num(np.asarray(im.crop((0, y, im.width, min(im.height, y + rows))), np.float64))
        if band.size:
            low, high = min(low, float(band.min())), max(high, float(band.max()))
    return 255.0 if low >= 0.0 and high <= 1.0 else 1.0


def _band_rgb(band: Image.Image, float_scale: float) -> np.ndarray:
    """One band of rows as uint8: H x W x 3, or H x W for grey (broadcast by the caller)."""
    mode = band.mode
    if mode in _WIDE_INT_MODES:
        return _wide_to_8bit(np.asarray(band))
    if mode == "F":
        real = np.nan_to_num(np.asarray(band, np.float64)) * float_scale
        return np.clip(np.rint(real), 0, 255).astype(np.uint8)
    if mode in _ALPHA_MODES or "transparency" in band.info:
        return np.asarray(_composite_on_white(band))
    if mode != "RGB":
        try:
            band = band.convert("RGB")
        except ValueError as exc:
            raise ValueError(f"unsupported colour mode {mode}") from exc
    return np.asarray(band)


def rgb_bands(im: Image.Image) -> Iterator[tuple[int, np.ndarray]]:
    """(first row, uint8 band) over a decoded image, top to bottom, each band 8-bit RGB that looks
    like the photo (grey bands are H x W).

    16-bit and 32-bit integer grey is scaled from 0..65535 (the PNG/TIFF convention) instead of
    clipped; float grey is read as 0..1 when all values lie there, else as 0..255; alpha (and a
    palette's transparent colour) is composited on white; CMYK, palette, YCbCr, LAB, bilevel and
    16-bit RGB(A) go through Pillow's own conversions, which are right for them. A mode Pillow
    cannot convert raises ValueError naming it.
    """
    width, height = im.size
    rows = max(1, BAND_PIXELS // max(1, width))
    scale = _float_scale(im, rows) if im.mode == "F" else 1.0
    if rows >= height:  # one band: the image itself (a reduced decode), not a copy of it
        yield 0, _band_rgb(im, scale)
        return
    for y in range(0, height, rows):
        yield y, _band_rgb(im.crop((0, y, width, min(height, y + rows))), scale)


def to_rgb(im: Image.Image) -> Image.Image:
    """Any decoded Pillow image as an 8-bit RGB image that looks like the photo (see `rgb_bands`)."""
    out = np.empty((im.height, im.width, 3), np.uint8)
    for y, band in rgb_bands(im):
        out[y : y + band.shape[0]] = band[..., None] if band.ndim == 2 else band
    return Image.fromarray(out, "RGB")


def orientation_of(im: Image.Image) -> int:
    """The EXIF orientation (1..8) a viewer applies; 1 when absent or invalid."""
    try:
        value = int(im.getexif().get(0x0112, 1))
    except (TypeError, ValueError):
        return 1
    return value if value in _STORED_VIEW else 1


def load_image(
    path: str | Path | bytes, max_pixels: int = MAX_PIXELS, bgr: bool = False, name: str | None = None
) -> np.ndarray:
    """Decode an image file (or its bytes, as uploaded) to an upright H x W x 3 uint8 array (RGB, or
    BGR for OpenCV code).

    JPEG, PNG, WebP, BMP, TIFF and HEIC/HEIF are accepted, in every colour mode (16-bit grey and
    RGB, CMYK, palette, alpha: see `rgb_bands`); any other format is refused unparsed. EXIF
    orientation is applied, so the result is what a photo viewer shows. The decoded pixels are
    converted a band at a time straight into the upright result. Raises ImageLoadError for every
    kind of bad input (naming `name`, default the path or "<bytes>").
    """
    return _decode(path, max_pixels, bgr, None, name).rgb


class ReducedImage(NamedTuple):
    """A photo decoded at reduced size: the upright pixels, the factor from them to the full image's
    pixels (1.0 when decoded at full size), and the full upright image's (width, height)."""

    rgb: np.ndarray
    scale: float
    size: tuple[int, int]


def decode_reduced(
    source: str | Path | bytes, min_side: int, max_pixels: int = MAX_PIXELS, name: str | None = None
) -> ReducedImage:
    """The upright RGB image of a file or its bytes, decoded at reduced size where the format allows
    it cheaply (see load_image_reduced), with the full image's size, so a caller that reads and
    shows the reduced pixels can still speak in full-photo pixels without decoding it all."""
    return _decode(source, max_pixels, False, min_side, name)


def load_image_reduced(
    path: str | Path | bytes, min_side: int, max_pixels: int = MAX_PIXELS
) -> tuple[np.ndarray, float]:
    """The upright RGB image decoded at reduced size where the format allows it cheaply, and the
    factor from its pixels to the full image's (1.0 when decoded at full size).

    Why: a 12 MP phone JPEG takes most of its decoding time producing pixels the detector never
    looks at; libjpeg can decode at 1/2, 1/4 or 1/8 size straight from the DCT, several times
    faster. The largest reduction whose long side stays at least `min_side` is used; other formats
    (and CMYK JPEGs) are decoded at full size. Same checks and errors as `load_image`.
    """
    reduced = decode_reduced(path, min_side, max_pixels)
    return reduced.rgb, reduced.scale


def _draft(im: Image.Image, min_side: int) -> int:
    """Ask libjpeg for the smallest DCT-scaled decode whose long side is still >= min_side; returns
    the reduction asked for (1: none, the format or mode has no cheap one)."""
    if im.format not in ("JPEG", "MPO") or im.mode not in ("RGB", "L"):
        return 1
    width, height = im.size
    factor = 1
    while factor < 8 and max(width, height) // (factor * 2) >= min_side:
        factor *= 2
    if factor > 1:
        im.draft(im.mode, (-(-width // factor), -(-height // factor)))
    return factor


#: libjpeg's DCT-scaled decodes as OpenCV names them (see _jpeg_reduced).
_CV_REDUCED = {2: cv2.IMREAD_REDUCED_COLOR_2, 4: cv2.IMREAD_REDUCED_COLOR_4, 8: cv2.IMREAD_REDUCED_COLOR_8}


def _jpeg_reduced(source: Path | bytes, im: Image.Image, factor: int) -> np.ndarray | None:
    """The stored (not yet upright) RGB pixels of a colour JPEG whose reduced decode by `factor`
    Pillow was asked for (`_draft`), decoded by OpenCV instead; None where Pillow must decode it.

    Why: both link libjpeg-turbo and ask it for the same DCT-scaled decode with the same defaults,
    so the pixels are the same (tests/vision/read/test_jpeg_reduced.py compares them), but OpenCV gets
    there 3-4 ms sooner on a 12 MP phone photo, a twentieth of the page's upload path (issue 23:
    ≤ 0.5x the peer). Only a colour JPEG that ends with its end-of-image marker takes this path:
    libjpeg pads a truncated file with grey and OpenCV returns that silently, where Pillow raises,
    and a cut upload must stay one clear refusal. Everything the header check decided (format,
    size limit, orientation) is still Pillow's."""
    if factor not in _CV_REDUCED or im.mode != "RGB":
        return None
    data = source if isinstance(source, bytes) else source.read_bytes()
    if not data.rstrip(b"\0\r\n ").endswith(b"\xff\xd9"):
        return None
    flags = _CV_REDUCED[factor] | cv2.IMREAD_IGNORE_ORIENTATION
    bgr = cv2.imdecode(np.frombuffer(data, np.uint8), flags)
    if bgr is None or bgr.shape != (im.size[1], im.size[0], 3):
        return None
    return cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)  # not a reversed view: copying one costs 4 ms


def _decode(
    source: str | Path | bytes, max_pixels: int, bgr: bool, min_side: int | None, name: str | None = None
) -> ReducedImage:
    """The one decoder behind load_image and decode_reduced (full size when min_side is None)."""
    if not isinstance(source, bytes):
        source = Path(source)
    label = name or ("<bytes>" if isinstance(source, bytes) else str(source))
    im = open_image(source, max_pixels, name)
    try:
        with im:
            full_width, full_height = im.size
            fast = None
            if min_side is not None:
                fast = _jpeg_reduced(source, im, _draft(im, min_side))
            if fast is None:
                im.load()  # raises OSError for truncated/corrupt data (LOAD_TRUNCATED_IMAGES stays off)
            orientation = orientation_of(im)
            width, height = im.size
            sideways = orientation in (5, 6, 7, 8)
            shape = (width, height, 3) if sideways else (height, width, 3)
            out = np.empty(shape, np.uint8)
            target = _STORED_VIEW[orientation](out[:, :, ::-1] if bgr else out)
            try:
                for y, band in [(0, fast)] if fast is not None else rgb_bands(im):
                    target[y : y + band.shape[0]] = band[..., None] if band.ndim == 2 else band
            except ValueError as exc:
                if str(exc).startswith("unsupported colour mode"):
                    mode = str(exc).removeprefix("unsupported colour mode").strip()
                    raise ImageLoadError(label, Words(f"不支持的颜色模式 {mode}", str(exc))) from exc
                raise
    except ImageLoadError:
        raise
    except (OSError, ValueError, SyntaxError) as exc:
        raise ImageLoadError(
            label, Words("图像数据损坏或不完整", f"corrupt or truncated image data ({exc})")
        ) from exc
    except MemoryError as exc:
        raise ImageLoadError(
            label, Words("内存不够，解不开这张图片", "not enough memory to decode image")
        ) from exc
    size = (full_height, full_width) if sideways else (full_width, full_height)
    return ReducedImage(out, full_width / width, size)
