"""The HTML report as a browser shows it: plots rendered, each under its own table, nothing fetched.

Parsing the HTML cannot show that a browser actually decodes and draws the embedded PNGs, nor
where they land on the page; so this test opens the report in a real headless Chromium (Debian's
``chromium`` package), takes a screenshot and looks at its pixels.  Outside CI the test skips,
saying why, when Chromium is not installed; with the ``CI`` environment variable set it fails
instead (``.ci/run`` installs Chromium).
"""

from __future__ import annotations

import base64
import io
import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from conftest_analysis import analysis_datasets  # noqa: F401  (session fixture)
from matplotlib.image import imread

from analysis import build_report, render

CHROMIUM_NAMES = ("chromium", "chromium-browser")
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]
WINDOW_WIDTH = 1280
WINDOW_HEIGHT = 16000  # the whole report (about 10,000 CSS pixels at this width) in one screenshot
# Rows inside one plot are never this far apart; plots are separated by at least a caption.
PLOT_GAP_PIXELS = 30
# A heading, a note and a few table rows take at least this many pixels.
TABLE_PIXELS = 120


def _chromium() -> str:
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    reason = "Chromium is not on PATH (Debian: apt-get install chromium); the browser test needs a real browser"
    if os.environ.get("CI"):
        pytest.fail(reason + " and CI must run it (.ci/run installs it)")
    pytest.skip(reason)


def _run_chromium(chromium: str, profile: Path, *arguments: str) -> subprocess.CompletedProcess:
    command = [chromium, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *arguments]
    return subprocess.run(command, capture_output=True, text=True, timeout=180, check=False)


@pytest.fixture(scope="module")
def page(analysis_datasets, tmp_path_factory):  # noqa: F811
    report = build_report(analysis_datasets["greedy"], figures=True)
    directory = tmp_path_factory.mktemp("browser")
    path = directory / "report.html"
    path.write_text(render(report, "html"), encoding="utf-8")
    return report, path


@pytest.mark.slow
def test_report_references_nothing_outside_the_page(page, tmp_path):
    report, path = page
    html = path.read_text(encoding="utf-8")
    chromium = _chromium()
    dom = _run_chromium(chromium, tmp_path / "profile", "--dump-dom", path.as_uri())
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert "<table" in dom.stdout and "<img" in dom.stdout  # the browser parsed the page
    for text in (html, dom.stdout):
        assert "<script" not in text and "<link" not in text and "<iframe" not in text
        # Every address the page could load: src, href, srcset, url(...), @import.
        addresses = re.findall(r'\b(?:src|href|srcset|poster|data|action)\s*=\s*"([^"]*)"', text)
        addresses += re.findall(r"url\(\s*['\"]?([^'\")]*)", text)
        assert "@import" not in text
        assert addresses, "the report has images"
        for address in addresses:
            assert address.startswith("data:image/png;base64,"), address[:80]
    # Each embedded image decodes to a real picture.
    images = re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', html)
    assert len(images) == len(report.figures) == 4
    for data in images:
        pixels = imread(io.BytesIO(base64.b64decode(data)), format="png")
        assert pixels.ndim == 3 and pixels.shape[0] > 200 and pixels.shape[1] > 400
        assert (pixels[..., :3] < 0.9).any(axis=-1).mean() > 0.01  # not blank


def _screenshot(chromium: str, page: Path, directory: Path) -> np.ndarray:
    """RGB pixels (int16) of the page rendered at WINDOW_WIDTH, tall enough for the whole report."""
    directory.mkdir()
    screenshot = directory / "page.png"
    result = _run_chromium(chromium, directory / "profile", f"--screenshot={screenshot}",
                           f"--window-size={WINDOW_WIDTH},{WINDOW_HEIGHT}", "--hide-scrollbars", page.as_uri())
    assert result.returncode == 0 and screenshot.exists(), result.stderr[-2000:]
    return (imread(screenshot)[..., :3] * 255).round().astype(np.int16)


@pytest.mark.slow
def test_screenshot_shows_every_plot_under_its_table(page, tmp_path):
    """Two screenshots, with and without the images drawn (``visibility: hidden`` keeps the layout):
    the pixels that differ are exactly what the browser drew from the embedded PNGs."""
    report, path = page
    chromium = _chromium()
    hidden = tmp_path / "hidden.html"
    hidden.write_text(path.read_text(encoding="utf-8").replace("</style>", "img { visibility: hidden; }</style>"),
                      encoding="utf-8")
    shown = _screenshot(chromium, path, tmp_path / "shown")
    blank = _screenshot(chromium, hidden, tmp_path / "hidden")
    assert shown.shape == blank.shape and shown.shape[1] == WINDOW_WIDTH
    # The page ended within the screenshot (white at the bottom), so nothing was cut off.
    assert (shown[-50:] == 255).all()
    drawn = (np.abs(shown - blank).max(axis=-1) > 16).sum(axis=1)
    rows = np.flatnonzero(drawn >= 3)
    assert len(rows), "the browser drew none of the plots"
    blocks = np.split(rows, np.flatnonzero(np.diff(rows) > PLOT_GAP_PIXELS) + 1)
    assert len(blocks) == len(report.figures), [(int(b[0]), int(b[-1])) for b in blocks]
    for block in blocks:
        assert block[-1] - block[0] > 150  # a whole plot, not a stray mark
        assert drawn[block[0]:block[-1]].mean() > 20  # with bars, lines and labels in it
    # Between two plots there is a table (its text and rules), not just a caption.
    for above, below in zip(blocks, blocks[1:], strict=False):
        between = shown[above[-1] + 1:below[0]]
        assert len(between) > TABLE_PIXELS
        assert ((between < 200).any(axis=-1).sum(axis=1) > 0).sum() > TABLE_PIXELS // 4
