"""The shipped CJK font: present, licensed, small, covering common Chinese and the project's words.

Only Pillow reads the font here: fontTools is needed to regenerate it, never to test or run.
"""

from __future__ import annotations

import importlib.util
import io
import subprocess
import sys
import tokenize
import tomllib
from fnmatch import fnmatch
from pathlib import Path
from types import ModuleType

import pytest
from PIL import ImageFont

from vision import fonts
from vision.fonts import FONTS_DIR, SHIPPED_CJK_FONT, missing_chars
from vision.train.synth import drawn

ROOT = Path(__file__).resolve().parents[2]
#: Hanzi, CJK punctuation and full-width forms: what Chinese text draws (emoji in HTML pages do not).
CJK_RANGES = ((0x3000, 0x303F), (0x4E00, 0x9FFF), (0xFF00, 0xFFEF))


def _make_subset() -> ModuleType:
    """The subsetting script, loaded by path (vision/assets is data, not a package)."""
    spec = importlib.util.spec_from_file_location("make_subset", FONTS_DIR / "make_subset.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _is_cjk(ch: str) -> bool:
    return any(lo <= ord(ch) <= hi for lo, hi in CJK_RANGES)


def test_the_font_is_shipped_with_its_licence_and_is_small() -> None:
    assert fonts.shipped_cjk_font() == SHIPPED_CJK_FONT
    assert SHIPPED_CJK_FONT.stat().st_size < 4_000_000
    ofl = (FONTS_DIR / "OFL.txt").read_text(encoding="utf-8")
    assert "SIL OPEN FONT LICENSE Version 1.1" in ofl and "Adobe" in ofl
    assert "make_subset.py" in (FONTS_DIR / "README.md").read_text(encoding="utf-8")
    assert ImageFont.truetype(str(SHIPPED_CJK_FONT), 20).getname() == ("Noto Sans CJK SC", "Regular")


def test_the_font_goes_into_the_package() -> None:
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = cfg["tool"]["setuptools"]["package-data"]["vision"]
    for f in (SHIPPED_CJK_FONT, FONTS_DIR / "OFL.txt"):
        rel = f.relative_to(ROOT / "vision").as_posix()
        assert any(fnmatch(rel, p) for p in patterns), rel


def test_common_chinese_is_covered() -> None:
    """Player names are free text: all of GB2312 and the frequent traditional hanzi draw."""
    m = _make_subset()
    wanted = m.gb2312_chars() | m.big5_frequent_chars()
    assert len(wanted) > 9000
    assert missing_chars(SHIPPED_CJK_FONT, "".join(sorted(wanted))) == []


def test_every_chinese_word_of_the_project_is_covered() -> None:
    """A word added to rules/, page/ or vision/train/synth/ in a character outside the subset fails here:
    re-run vision/assets/fonts/make_subset.py (it scans the same folders)."""
    chars = sorted(ch for ch in _make_subset().project_chars(ROOT) if _is_cjk(ch))
    assert {"萬", "東", "發", "伍", "胡", "混", "番"} <= set(chars)
    assert missing_chars(SHIPPED_CJK_FONT, "".join(chars)) == []


def test_every_drawn_character_is_in_the_font() -> None:
    """The characters the synthetic faces are drawn from, read from the drawing code's strings."""
    src = Path(drawn.__file__).read_text(encoding="utf-8")
    kinds = {tokenize.STRING, getattr(tokenize, "FSTRING_MIDDLE", tokenize.STRING)}
    toks = tokenize.generate_tokens(io.StringIO(src).readline)
    chars = {ch for t in toks if t.type in kinds for ch in t.string if _is_cjk(ch)}
    assert {"萬", "万", "東", "东", "發", "伍", "九"} <= chars
    assert missing_chars(SHIPPED_CJK_FONT, "".join(sorted(chars))) == []


def test_a_missing_character_is_found_and_ascii_is_not() -> None:
    text = "老王 Wang 😀𠀀 😀"
    assert missing_chars(SHIPPED_CJK_FONT, text) == ["😀", "𠀀"]
    assert missing_chars(SHIPPED_CJK_FONT, "".join(map(chr, range(0x20, 0x7F)))) == []


def test_drawn_faces_use_the_shipped_font_unless_one_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    """The same seed draws the same bank on every machine, whatever fonts it has installed."""
    monkeypatch.delenv(drawn.FONT_ENV, raising=False)
    assert drawn.find_cjk_font() == SHIPPED_CJK_FONT
    other = FONTS_DIR / "OFL.txt"  # any file: the user's choice is taken as given
    monkeypatch.setenv(drawn.FONT_ENV, str(other))
    assert drawn.find_cjk_font() == other


@pytest.mark.slow
def test_fonttools_is_not_needed_to_run() -> None:
    code = "import sys, page.share, vision.train.synth.drawn, vision.fonts\nsys.exit('fontTools' in sys.modules)\n"
    assert subprocess.run([sys.executable, "-c", code], cwd=ROOT).returncode == 0
