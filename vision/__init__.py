"""The tile reader, in three rooms: `vision.read` (reading a photo), `vision.train` (training,
synthetic scenes, evaluation, learning a player's set) and `vision.labels` (saved labels). Shared
by all three: `classes` (the one vocabulary), `durable` (atomic file writes), `fonts`, `_env`."""
