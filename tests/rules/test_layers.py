"""rules/ is built in layers: a module imports only modules of lower layers, so no import circle can
form. Every import counts, also one inside a function or under `TYPE_CHECKING`. `LAYERS` below is
the list, lowest first; the docstring of `rules/__init__.py` shows the same list to readers.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

RULES = Path(__file__).resolve().parents[2] / "rules"

#: Lowest first; modules of one layer do not import each other.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("tiles", "words", "hand"),  # tile codes, bilingual words, the typed hand
    ("errors", "names"),  # input problems and their words; player names of tiles and seats
    ("decompose", "preset_model"),  # readings of the tiles; the shape of a rule set (no rows)
    ("context", "result"),  # facts about one hand; typed results
    ("conditions", "items"),  # win conditions; the 番 item catalogue (predicate + words)
    ("presets",),  # the rule-set tables: data only
    ("parse",),  # hand-json → Hand, checked against the preset's table
    ("readings", "settle"),  # which readings may win, and on which tiles; money
    ("engine",),  # score(hand)
    ("waits", "text"),  # 听牌; the result as text
    ("cli",),  # python -m rules
    ("__init__", "__main__"),  # the public API; the entry point
)
LAYER_OF = {name: i for i, layer in enumerate(LAYERS) for name in layer}


def rules_imports(path: Path) -> list[tuple[int, str]]:
    """(line, module) for every import of a rules module in `path`, wherever it stands."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1:  # from . import x / from .x import y
                if node.module:
                    found.append((node.lineno, node.module.split(".")[0]))
                else:
                    found += [(node.lineno, a.name) for a in node.names]
            elif node.level == 0 and node.module and node.module.split(".")[0] == "rules":
                parts = node.module.split(".")
                if len(parts) > 1:
                    found.append((node.lineno, parts[1]))
                else:
                    found += [(node.lineno, a.name) for a in node.names if a.name in LAYER_OF]
        elif isinstance(node, ast.Import):
            for a in node.names:
                parts = a.name.split(".")
                if parts[0] == "rules" and len(parts) > 1:
                    found.append((node.lineno, parts[1]))
    return sorted(found)


MODULES = sorted(p.stem for p in RULES.glob("*.py"))


def test_every_module_has_a_layer():
    assert set(MODULES) == set(LAYER_OF), "add the new module to LAYERS (and rules/__init__.py)"


@pytest.mark.parametrize("module", MODULES)
def test_imports_go_only_downwards(module):
    own = LAYER_OF[module]
    wrong = [
        f"rules/{module}.py:{line} imports {name} (layer {LAYER_OF.get(name)}, {module} is layer {own})"
        for line, name in rules_imports(RULES / f"{module}.py")
        if name in LAYER_OF and LAYER_OF[name] >= own
    ]
    assert not wrong, "\n".join(wrong)


def test_the_docstring_of_the_package_lists_the_same_layers():
    doc = ast.get_docstring(ast.parse((RULES / "__init__.py").read_text(encoding="utf-8"))) or ""
    listed = [line.strip() for line in doc.splitlines() if line.strip().startswith(tuple("0123456789"))]
    names = [tuple(x.strip() for x in line.split(".", 1)[1].split(":")[0].split(",")) for line in listed]
    assert tuple(names) == LAYERS[:-1]


def test_the_checker_sees_every_kind_of_import(tmp_path):
    source = (
        "from typing import TYPE_CHECKING\n"
        "from . import tiles as T\n"
        "from .engine import score\n"
        "import rules.waits\n"
        "from rules import presets\n"
        "if TYPE_CHECKING:\n    from .parse import Hand\n"
        "def f():\n    from .cli import main\n"
    )
    (tmp_path / "m.py").write_text(source, encoding="utf-8")
    assert [name for _, name in rules_imports(tmp_path / "m.py")] == [
        "tiles",
        "engine",
        "waits",
        "presets",
        "parse",
        "cli",
    ]
