"""The worked hands of SPEC 6 (copied from ../shared/rules/examples) through the API and the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from rules import HandError, score

EXAMPLES = sorted((Path(__file__).parents[1] / "examples").glob("*.json"))
ROOT = Path(__file__).resolve().parents[2]


def _load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _check(expect: dict, result: dict) -> None:
    if expect.get("valid"):
        assert result["valid"] is True, result
        assert result["payments"] == expect["payments"]
        assert sum(result["payments"].values()) == 0
    else:
        assert result["valid"] is False
        assert result["reason"] == expect["reason"]


def test_all_examples_are_here():
    assert len(EXAMPLES) >= 31


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example_api(path: Path):
    case = _load(path)
    if case["expect"].get("error"):
        with pytest.raises(HandError):
            score(case["hand"])
        return
    _check(case["expect"], score(case["hand"]).to_dict())


@pytest.mark.slow
@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example_cli(path: Path, tmp_path: Path):
    case = _load(path)
    hand_file = tmp_path / "hand.json"
    hand_file.write_text(json.dumps(case["hand"], ensure_ascii=False), encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "rules", "score", str(hand_file)], capture_output=True, text=True, cwd=ROOT
    )
    if case["expect"].get("error"):
        assert proc.returncode == 2
        assert proc.stdout == ""
        assert len(proc.stderr.strip().splitlines()) == 1 and proc.stderr.startswith("error: ")
        return
    assert proc.returncode == 0, proc.stderr
    _check(case["expect"], json.loads(proc.stdout))


@pytest.mark.slow
def test_jsonl_batch_keeps_order_and_survives_bad_lines(tmp_path: Path):
    cases = [_load(p) for p in EXAMPLES]
    lines = [json.dumps(c["hand"], ensure_ascii=False) for c in cases]
    lines.insert(3, "{not json")
    batch = tmp_path / "hands.jsonl"
    batch.write_text("\n".join(lines) + "\n", encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "rules", "score", "--jsonl", str(batch)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert proc.returncode == 0
    out = [json.loads(x) for x in proc.stdout.splitlines()]
    assert len(out) == len(lines)
    assert out[3]["version"] == 1 and "malformed JSON" in out[3]["error"]
    for case, result in zip(cases, out[:3] + out[4:], strict=True):
        if case["expect"].get("error"):
            assert "error" in result
        else:
            _check(case["expect"], result)


@pytest.mark.slow
def test_text_table_is_readable():
    case = _load(next(p for p in EXAMPLES if p.stem == "LY-1"))
    proc = subprocess.run(
        [sys.executable, "-m", "rules", "score", "--text", "-"],
        input=json.dumps(case["hand"]),
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert proc.returncode == 0
    out = proc.stdout
    assert "混: 三万" in out and "鸡枪: 二饼 二条" in out
    assert "混=三万" in out or "混=六万" in out
    assert "点炮 1" in out and "庄 1" in out
    assert "东 -4" in out and "南 +10" in out and "西 -4" in out and "北 -2" in out


@pytest.mark.slow
def test_cli_accepts_a_worked_example_file_as_is():
    path = next(p for p in EXAMPLES if p.stem == "LY-2")
    proc = subprocess.run(
        [sys.executable, "-m", "rules", "score", str(path)], capture_output=True, text=True, cwd=ROOT
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["payments"] == {"E": 139, "S": -41, "W": -41, "N": -57}
    bad = next(p for p in EXAMPLES if p.stem == "LY-X6")
    proc = subprocess.run(
        [sys.executable, "-m", "rules", "score", str(bad)], capture_output=True, text=True, cwd=ROOT
    )
    assert proc.returncode == 2 and proc.stderr.startswith("error: hand.players.S.concealed[")
