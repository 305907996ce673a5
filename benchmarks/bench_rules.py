"""Scoring speed: hands per second on a mixed corpus (in all and per preset of `rules.PRESETS`) and
the worst case (four 混), in one process.

Run: `python benchmarks/bench_rules.py [--n 3000] [--seed 7]`. Prints medians over repeats.
Targets: <= 1 ms per hand on the mixed corpus, <= 5 ms for the worst case.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rules import PRESETS, HandError, parse_hand, score  # noqa: E402
from rules import tiles as T  # noqa: E402
from rules.presets import has_winds, wind_order  # noqa: E402

EXAMPLES = Path(__file__).resolve().parent.parent / "tests" / "examples"


def random_hand(rnd: random.Random) -> dict | None:
    """A winning-shaped hand (sets + pair) of any preset in `rules.PRESETS`, with its default options:
    some tiles turned into 混, 0-2 melds."""
    preset = rnd.choice(tuple(PRESETS))
    winds = has_winds(PRESETS[preset], {})
    types = [t for t in range(T.N_TYPES) if winds or not T.is_wind(t)]
    indicator = rnd.choice(types)
    hun = T.hun_of(indicator, wind_order(PRESETS[preset], {}))
    used = {indicator: 1}
    groups = []
    while len(groups) < 5:
        t = rnd.choice(types)
        if t == hun:
            continue
        if len(groups) == 4:
            g = [t, t]
        elif T.is_suited(t) and T.rank(t) <= 7 and rnd.random() < 0.6:
            g = [t, t + 1, t + 2]
        else:
            g = [t, t, t]
        if hun in g or any(used.get(x, 0) + g.count(x) > 4 for x in set(g)):
            continue
        for x in g:
            used[x] = used.get(x, 0) + 1
        groups.append(g)
    n_melds = rnd.choice((0, 0, 1, 2))
    melds = []
    for g in groups[:n_melds]:
        kind = "chi" if g[0] != g[1] else "pong"
        melds.append({"kind": kind, "tiles": [T.code(x) for x in g]})
    concealed = [x for g in groups[n_melds:] for x in g]
    for _ in range(rnd.choice((0, 0, 1, 1, 2, 3, 4))):
        i = rnd.randrange(len(concealed))
        if used.get(hun, 0) < 4:
            used[concealed[i]] -= 1
            used[hun] = used.get(hun, 0) + 1
            concealed[i] = hun
    rnd.shuffle(concealed)
    win = concealed.pop()
    self_draw = rnd.random() < 0.5 or win == hun
    hand = {
        "version": 1,
        "preset": preset,
        "indicator": T.code(indicator),
        "winner": "S",
        "win": {"tile": T.code(win), "by": "self_draw" if self_draw else "discard"},
        "players": {"S": {"concealed": [T.code(x) for x in concealed], "melds": melds}},
    }
    if not self_draw:
        hand["win"]["from"] = rnd.choice("EWN")
    try:
        parse_hand(hand)
    except HandError:
        return None
    return hand


def corpus(n: int, seed: int) -> list[dict]:
    rnd = random.Random(seed)
    hands = [json.loads(p.read_text(encoding="utf-8"))["hand"] for p in sorted(EXAMPLES.glob("*.json"))]
    hands = [h for h in hands if _ok(h)]
    while len(hands) < n:
        h = random_hand(rnd)
        if h:
            hands.append(h)
    return hands


def _ok(h: dict) -> bool:
    try:
        parse_hand(h)
        return True
    except HandError:
        return False


WORST = {
    # four 混 (H = 白) beside 66m 777m 88m 东东 + 7m: reads as 七对 and as many standard hands
    "version": 1,
    "preset": "liaoyang-online",
    "indicator": "F",
    "winner": "S",
    "win": {"tile": "7m", "by": "self_draw"},
    "players": {"S": {"concealed": ["7m", "P", "P", "E", "8m", "P", "E", "7m", "8m", "7m", "6m", "6m", "P"]}},
}


def hun_count(hand: dict) -> int:
    order = wind_order(PRESETS[hand["preset"]], hand.get("options", {}))
    hun = T.code(T.hun_of(T.parse_code(hand["indicator"]), order))
    tiles = hand["players"][hand["winner"]]["concealed"] + [hand["win"]["tile"]]
    return sum(1 for t in tiles if T.code(T.parse_code(t)) == hun)


def per_hand_ms(hands: list[dict], repeats: int) -> float:
    """Median over repeats of the mean time per hand (parsing included)."""
    runs = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for h in hands:
            score(h)
        runs.append((time.perf_counter() - t0) / len(hands) * 1000)
    return statistics.median(runs)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    hands = corpus(args.n, args.seed)
    valid = sum(score(h).valid for h in hands)
    mixed = per_hand_ms(hands, args.repeats)
    print(
        f"mixed corpus: {len(hands)} hands ({valid} valid), median {mixed:.3f} ms/hand, {1000 / mixed:.0f} hands/s"
    )
    for name in PRESETS:  # every preset in the table, a new one too
        mine = [h for h in hands if h["preset"] == name]
        if mine:
            print(f"  {name}: {len(mine)} hands, median {per_hand_ms(mine, args.repeats):.3f} ms/hand")
        else:
            print(f"  {name}: no hand in the corpus")
    worst = per_hand_ms([WORST] * 50, args.repeats)
    print(f"worst case (4 混, 七对 or standard, {score(WORST).form}): median {worst:.3f} ms/hand")
    four = [h for h in hands if hun_count(h) == 4]
    slowest = max(per_hand_ms([h] * 5, args.repeats) for h in four)
    print(f"slowest of the corpus's {len(four)} hands with 4 混: median {slowest:.3f} ms/hand")


if __name__ == "__main__":
    main()
