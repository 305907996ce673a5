"""Reading a photo: decode it safely (imageio), find and read every tile (detect: the YOLO detector,
tilenet: the face classifier, suppress, boxes), the operating point and the model.json that carry
it (operating_point, manifest, safe_weights), and how the tiles group into the hand (layout).

Imports nothing from vision.train or vision.labels (tests/vision/test_rooms.py checks it): the page
reads photos with this package alone."""
