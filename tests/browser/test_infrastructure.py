"""The guards of this suite guard: page errors and console errors reach the collector that fails tests."""

from __future__ import annotations

import time

import pytest

pytestmark = pytest.mark.browser


def test_page_and_console_errors_are_collected(lab_page, jupyter_lab):
    page = lab_page.page
    page.goto(f"{jupyter_lab.url}/api/status")
    mark = lab_page.errors.mark()
    page.evaluate(
        "() => { console.error('probe: console error'); setTimeout(() => { throw new Error('probe: uncaught'); }, 0); }"
    )

    def caught():
        seen = lab_page.errors.new_since(mark)
        return any("probe: console error" in e and e.startswith("console.error") for e in seen) and any(
            "probe: uncaught" in e and e.startswith("pageerror") for e in seen
        )

    deadline = time.monotonic() + 5
    while not caught() and time.monotonic() < deadline:
        page.wait_for_timeout(20)  # lets Playwright dispatch the page's events to the collector
    assert caught(), f"provoked errors not collected: {lab_page.errors.new_since(mark)}"
    # These two were provoked on purpose; anything else fails the test in lab_page's teardown.
    del lab_page.errors.errors[mark:]
