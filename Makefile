# Two commands for a fresh machine with Python 3.11: `make app` and `make test`.
PYTHON ?= python3
PIP ?= $(PYTHON) -m pip
export YOLO_OFFLINE := 1
export YOLO_CONFIG_DIR ?= $(CURDIR)/.cache/ultralytics

PORT ?= 8501
# No browser opened on the server, no usage statistics sent, the script health check that the
# warm-up calls to load the model before the first visit, and uploads sized for a phone photo
# (Streamlit's default is 200 MB a file). page/serve.py uses the same flags.
STREAMLIT_FLAGS := --server.headless true --browser.gatherUsageStats false --server.scriptHealthCheckEnabled true --server.maxUploadSize 30

.PHONY: install install-dev app app-lan test lint

install:
	$(PIP) install -e .

install-dev:
	$(PIP) install -e '.[dev]'

# This computer only: http://localhost:$(PORT) (the warm-up beside it runs the page once at the start).
app: install
	$(PYTHON) -m page.serve --warm http://127.0.0.1:$(PORT) & \
	$(PYTHON) -m streamlit run app.py $(STREAMLIT_FLAGS) --server.address 127.0.0.1 --server.port $(PORT)

# Phones on the same Wi-Fi: HTTPS with a self-signed certificate made here, and a PIN gate (printed
# below) in front of Streamlit, which listens on 127.0.0.1 only.
app-lan: install
	$(PYTHON) -m page.serve --port $(PORT)

test: install-dev
	$(PYTHON) -m pytest

lint:
	$(PYTHON) -m ruff check .
	$(PYTHON) -m ruff format --check .
