"""Regenerate the shipped CJK font subset (NotoSansCJKsc-Regular-subset.otf) from Noto Sans CJK.

Why a subset: the full Noto Sans CJK collection is over 20 MB; the share picture and the drawn
synthetic tile faces need one weight of Simplified Chinese only.  Player names are free text, so
the subset covers every GB2312 character (all 6,763 hanzi plus its punctuation, full-width forms,
kana, Greek and Cyrillic), the frequent traditional hanzi (Big5 level 1: a name typed in
traditional characters), ASCII and Latin-1, the CJK punctuation and full-width blocks, and every
non-ASCII character written in the project's word tables and drawing code (scanned here, so a new
word is covered when this script is run again).  Rarer characters (some given-name characters
outside GB2312, extension blocks, emoji) are left out to keep the file small; they draw as a box.  Hinting and layout features are dropped: Pillow
draws the text unhinted and left to right.

Needs fontTools (`pip install fonttools`) and the Debian package's collection, unpacked without
installing it:

    cd /tmp && apt-get download fonts-noto-cjk && dpkg -x fonts-noto-cjk_*.deb /tmp/noto
    python vision/assets/fonts/make_subset.py \\
        --source /tmp/noto/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc

fontTools is needed only here: the app and the tests read the produced .otf with Pillow.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
OUT = HERE / "NotoSansCJKsc-Regular-subset.otf"
#: The face taken from the collection.
FAMILY = "Noto Sans CJK SC"
#: Project folders whose sources hold the words the font must draw.
SCANNED = ("rules", "page", "vision/train/synth")
SCANNED_SUFFIXES = (".py", ".json")
#: Tables Pillow never reads for horizontal text.
DROPPED_TABLES = ["vhea", "vmtx", "VORG", "BASE", "DSIG"]


def _decoded(codec: str, leads: range, trails: tuple[int, ...]) -> set[str]:
    """Every character a two-byte codec decodes from the given lead and trail bytes."""
    out = set()
    for hi in leads:
        for lo in trails:
            with contextlib.suppress(UnicodeDecodeError):
                out.add(bytes((hi, lo)).decode(codec))
    return out


def gb2312_chars() -> set[str]:
    """Every character of GB2312, listed by decoding each two-byte code with Python's codec."""
    return _decoded("gb2312", range(0xA1, 0xF8), tuple(range(0xA1, 0xFF)))


def big5_frequent_chars() -> set[str]:
    """Big5 level 1 (the frequent traditional hanzi, lead bytes A4..C6), decoded with Python's codec."""
    return _decoded("big5", range(0xA4, 0xC7), (*range(0x40, 0x7F), *range(0xA1, 0xFF)))


def block_chars() -> set[str]:
    """ASCII, Latin-1, CJK symbols and punctuation, full-width and half-width forms."""
    ranges = [(0x20, 0x7E), (0xA0, 0xFF), (0x3000, 0x303F), (0xFF01, 0xFF5E), (0xFF61, 0xFF9F)]
    return {chr(c) for lo, hi in ranges for c in range(lo, hi + 1)}


def project_chars(root: Path = ROOT) -> set[str]:
    """Non-ASCII characters written anywhere in the scanned project sources."""
    out: set[str] = set()
    for folder in SCANNED:
        for path in sorted((root / folder).rglob("*")):
            if path.suffix in SCANNED_SUFFIXES and path.is_file():
                out.update(ch for ch in path.read_text(encoding="utf-8") if ord(ch) > 0x7F)
    return {ch for ch in out if ch.isprintable()}


def wanted_chars() -> set[str]:
    return gb2312_chars() | big5_frequent_chars() | block_chars() | project_chars()


def _face_index(source: Path) -> int:
    from fontTools.ttLib import TTCollection

    if source.suffix.lower() != ".ttc":
        return -1
    coll = TTCollection(str(source), lazy=True)
    for i, f in enumerate(coll.fonts):
        if f["name"].getDebugName(4) == FAMILY:
            return i
    raise SystemExit(f"{source} has no face named {FAMILY!r}")


def make_subset(source: Path, out: Path = OUT) -> tuple[int, int, list[str]]:
    """Write the subset; returns (characters kept, glyphs kept, wanted characters the source lacks)."""
    from fontTools import subset
    from fontTools.ttLib import TTFont

    index = _face_index(source)
    font = TTFont(str(source), fontNumber=max(index, 0), recalcTimestamp=False, lazy=False)
    cmap = font.getBestCmap()
    wanted = wanted_chars()
    have = sorted(ord(ch) for ch in wanted if ord(ch) in cmap)
    lacking = sorted(ch for ch in wanted if ord(ch) not in cmap)
    opts = subset.Options()
    opts.hinting = False
    opts.desubroutinize = False
    opts.layout_features = []
    opts.notdef_outline = True  # a character the font lacks shows as a box, not as nothing
    opts.name_IDs = ["*"]  # keeps the copyright, trademark and licence records
    opts.drop_tables += DROPPED_TABLES
    sub = subset.Subsetter(opts)
    sub.populate(unicodes=have)
    sub.subset(font)
    font.save(str(out))
    return len(have), font["maxp"].numGlyphs, lacking


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", type=Path, required=True, help="NotoSansCJK-Regular.ttc (or an SC .otf)")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    chars, glyphs, lacking = make_subset(args.source, args.out)
    digest = hashlib.sha256(args.out.read_bytes()).hexdigest()
    print(f"{args.out}: {args.out.stat().st_size} bytes, {chars} characters, {glyphs} glyphs")
    print(f"sha256 {digest}")
    if lacking:
        shown = "".join(lacking[:80])
        print(f"{len(lacking)} wanted characters not in the source: {shown}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
