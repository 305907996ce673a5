"""The training options: one dataclass, the CLI generated from it (one set of defaults)."""

from dataclasses import fields

from vision.__main__ import build_parser
from vision.train.config import TrainConfig, from_namespace, torch_device


def test_cli_defaults_are_the_dataclass_defaults():
    ns = build_parser().parse_args(["train"])
    assert from_namespace(ns) == TrainConfig()
    flags = {a.dest for a in build_parser()._subparsers._group_actions[0].choices["train"]._actions}
    assert {f.name for f in fields(TrainConfig)} <= flags


def test_cli_parses_types_and_device():
    ns = build_parser().parse_args(
        [
            "train",
            "--det-hours",
            "0.5",
            "--cls-epochs",
            "3",
            "--device",
            "0,1",
            "--no-synth",
            "--hold-out",
            "g.json:g0",
        ]
    )
    cfg = from_namespace(ns)
    assert cfg.det_hours == 0.5 and cfg.cls_epochs == 3 and cfg.no_synth and cfg.hold_out == "g.json:g0"
    assert cfg.device == "0,1" and torch_device(cfg.device) == "cuda:0"
    assert torch_device("cpu") == "cpu" and torch_device("cuda:1") == "cuda:1"
