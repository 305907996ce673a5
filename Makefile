# Two commands for a fresh machine with Python 3.11: `make app` and `make test`.
PYTHON ?= python3
PIP ?= $(PYTHON) -m pip
export YOLO_OFFLINE := 1
export YOLO_CONFIG_DIR ?= $(CURDIR)/.cache/ultralytics

.PHONY: install install-dev app test lint

install:
	$(PIP) install -e .

install-dev:
	$(PIP) install -e '.[dev]'

app: install
	$(PYTHON) -m streamlit run app.py --server.headless true

test: install-dev
	$(PYTHON) -m pytest

lint:
	$(PYTHON) -m ruff check .
	$(PYTHON) -m ruff format --check .
