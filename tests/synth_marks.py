"""Skip marks shared by the synthetic-scene tests: the real set and a CJK font are machine things."""

from __future__ import annotations

import pytest

from vision.synth import drawn
from vision.synth.faces import DEFAULT_SOURCE

HAS_REAL = (DEFAULT_SOURCE / "train" / "images").is_dir()
needs_real = pytest.mark.skipif(not HAS_REAL, reason=f"real tile set not at {DEFAULT_SOURCE}")


def _has_cjk_font() -> bool:
    try:
        drawn.find_cjk_font()
    except FileNotFoundError:
        return False
    return True


needs_font = pytest.mark.skipif(not _has_cjk_font(), reason="no CJK font (apt install fonts-wqy-zenhei)")
