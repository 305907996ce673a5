"""The fake reader (tests.fake_reader) behind a model that takes SLOW_READER_S seconds to load.

Why: the first screen must be drawn while the tile reader is still loading (a phone that arrives
during the server's warm-up sees the upload box and "正在加载认牌模型…", not a blank page). Plugged in
as MAHJONG_DETECTOR=tests.slow_reader:fake_detect, the page imports this module when it loads the
reader, and the import takes as long as a real model's first load."""

from __future__ import annotations

import os
import time

from tests.fake_reader import fake_detect

__all__ = ["fake_detect"]

time.sleep(float(os.environ.get("SLOW_READER_S", "8")))
