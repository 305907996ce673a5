"""Saved labels: the YOLO label format (yolo_format), the store the page saves corrected photos into
(store: atomic, never overwriting), and its check and repair (check). May use vision.read (to open
images), never vision.train."""
