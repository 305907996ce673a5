"""A refused file is refused in the page's language: the loader's reasons have Chinese twins.

Why: vision.read.imageio says why a file is not a photo ("corrupt or truncated image data …") and the
page quoted that English on its Chinese page. Each kind of refusal a phone can meet is read here as
the page reads an upload, and its Chinese must hold no English words (format names aside)."""

from __future__ import annotations

import io
import struct
import zlib

import pytest
from PIL import Image

from page.photo_state import read_photo
from tests.other_script import chinese_in, english_in


def _png() -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (64, 48), (90, 120, 30)).save(buf, format="PNG")
    return buf.getvalue()


def _huge_png_header() -> bytes:
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    ihdr = struct.pack(">IIBBBBB", 10_000, 6_000, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\0" * 64))


@pytest.mark.parametrize(
    ("name", "data", "zh", "en"),
    [
        ("empty.jpg", b"", "空文件", "empty file"),
        ("notes.jpg", b"this is not an image at all", "不是图片", "not an image"),
        ("anim.gif", b"GIF89a" + b"\0" * 40, "不收 GIF 格式", "format GIF is not accepted"),
        ("cut.png", _png()[:60], "图像数据损坏或不完整", "corrupt or truncated"),
        ("huge.png", _huge_png_header(), "图片太大", "too large"),
    ],
    ids=["empty", "not-an-image", "gif", "truncated", "60MP"],
)
def test_each_refusal_is_said_in_each_language(name, data, zh, en):
    error = read_photo(data, name, None).error
    assert error is not None
    assert zh in error.zh and not english_in(error.zh), error.zh
    assert en in error.en and not chinese_in(error.en), error.en
