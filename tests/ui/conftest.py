"""The browser tests' server and phone (tests/ui/browser_helpers.py), shared by every browser test module.

The helpers are imported inside the fixtures: importing them skips a module when Chromium is missing,
and the AppTest and gate tests of this folder must not be skipped with them."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """The page with the fake reader, a scorebook and a training folder of this test module."""
    from tests.ui.browser_helpers import serve

    book = tmp_path_factory.mktemp("book")
    env = {
        "MAHJONG_LABELLED_DIR": str(tmp_path_factory.mktemp("labelled")),
        "MAHJONG_SCOREBOOK": str(book / "scorebook.sqlite"),
    }
    with serve(env, book / "server.log") as url:
        yield url


@pytest.fixture
def evening_server(tmp_path):
    """A server of its own with an empty scorebook (the evening starts from nothing)."""
    from tests.ui.browser_helpers import serve

    env = {
        "MAHJONG_SCOREBOOK": str(tmp_path / "evening.sqlite"),
        "MAHJONG_LABELLED_DIR": str(tmp_path / "lab"),
    }
    with serve(env, tmp_path / "server.log") as url:
        yield url, env


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    """A headless Chromium at 390 x 844, one per test module."""
    from tests.ui.browser_helpers import chrome

    driver = chrome(tmp_path_factory.mktemp("chromium-profile"))
    yield driver
    driver.quit()
