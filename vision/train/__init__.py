"""Training and synthesising: datasets (data, groups), synthetic scenes (synth/), the training
pipeline and its options (pipeline, config, crops), evaluation (evaluate), and learning a player's
set (adapt, replay). Uses vision.read and vision.labels; nothing there uses it."""
