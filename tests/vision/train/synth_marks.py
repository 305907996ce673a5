"""Skip marks shared by the synthetic-scene tests: the real set is a machine thing.

The CJK font for the drawn faces is shipped (vision/assets/fonts), so `needs_font` skips only when
`$VISION_CJK_FONT` names a missing file or the checkout lost the font; tests/vision/test_fonts.py fails then.
"""

from __future__ import annotations

import pytest

from vision.train.synth import drawn
from vision.train.synth.faces import DEFAULT_SOURCE

HAS_REAL = (DEFAULT_SOURCE / "train" / "images").is_dir()
needs_real = pytest.mark.skipif(not HAS_REAL, reason=f"real tile set not at {DEFAULT_SOURCE}")


def _has_cjk_font() -> bool:
    try:
        drawn.find_cjk_font()
    except FileNotFoundError:
        return False
    return True


needs_font = pytest.mark.skipif(
    not _has_cjk_font(),
    reason="no CJK font: $VISION_CJK_FONT is not a file, or vision/assets/fonts lost its .otf",
)
