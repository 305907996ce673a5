"""vision/ is three rooms with one-way doors: `read` uses only the shared modules, `labels` may use
`read`, `train` may use both; the shared modules (`classes`, `durable`, `fonts`, `_env`) use none.
Every import is checked, also those inside functions, so a circle cannot come back unseen."""

from __future__ import annotations

import ast
from pathlib import Path

VISION = Path(__file__).resolve().parents[2] / "vision"
SHARED = {"classes", "durable", "fonts", "_env"}
#: What each room may import from vision (besides itself).
ALLOWED = {
    "shared": SHARED,
    "read": SHARED,
    "labels": SHARED | {"read"},
    "train": SHARED | {"read", "labels"},
}


def _room(path: Path) -> str | None:
    rel = path.relative_to(VISION).parts
    if rel[0] in ("read", "labels", "train"):
        return rel[0]
    if len(rel) == 1 and path.stem in SHARED:
        return "shared"
    return None  # the CLI (__main__) and the package docstring may use every room


def _vision_imports(path: Path) -> list[tuple[int, str]]:
    """(line, first part after `vision.`) of every import of a vision module in `path`."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            parts = node.module.split(".")
            if parts[0] == "vision":
                targets = [parts[1]] if len(parts) > 1 else [a.name for a in node.names]
                found += [(node.lineno, t) for t in targets]
        elif isinstance(node, ast.Import):
            for a in node.names:
                parts = a.name.split(".")
                if parts[0] == "vision" and len(parts) > 1:
                    found.append((node.lineno, parts[1]))
    return found


def test_every_module_lives_in_a_room():
    loose = [p.name for p in VISION.glob("*.py") if p.stem not in SHARED | {"__init__", "__main__"}]
    assert loose == [], f"modules outside read/, labels/, train/ and the shared ones: {loose}"


def test_imports_go_one_way_only():
    wrong = []
    for path in sorted(VISION.rglob("*.py")):
        room = _room(path)
        if room is None or "assets" in path.parts:
            continue
        for line, target in _vision_imports(path):
            if target != room and target not in ALLOWED[room]:
                wrong.append(f"{path.relative_to(VISION.parent)}:{line} ({room}) imports vision.{target}")
    assert wrong == [], "\n".join(wrong)
