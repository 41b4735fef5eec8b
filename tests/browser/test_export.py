"""What leaves the page: the share menu, SVG, PNG and JSON exports, and print."""

from __future__ import annotations

import json
import math
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from .conftest import open_page
from .drive import FIGURES, readouts, state
from .menu import use_menu


def test_the_share_menu_is_one_quiet_control_until_opened(en_at_start):
    page = en_at_start.page
    closed = page.locator("#F07 .figure-tools button")
    assert closed.count() == 4 and not any(b.is_visible() for b in closed.all())
    page.locator("#F07 .figure-tools summary").click()
    assert all(b.is_visible() for b in closed.all())


# A fresh page per figure: one page that has already offered dozens of downloads sometimes
# never offers the next (the PNG, made after the click), and the test waited for it in vain.
@pytest.mark.parametrize("figure_id", FIGURES)
def test_exports_parse(en, figure_id):
    page = en.page
    with page.expect_download() as svg_download:
        use_menu(page, figure_id, "SVG")
    svg_text = Path(svg_download.value.path()).read_text("utf-8")
    assert svg_text.startswith("<svg") and 'xmlns="http://www.w3.org/2000/svg"' in svg_text
    with page.expect_download() as png_download:
        use_menu(page, figure_id, "PNG")
    png = Path(png_download.value.path()).read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 1000
    with page.expect_download() as json_download:
        use_menu(page, figure_id, "JSON")
    numbers = json.loads(Path(json_download.value.path()).read_text("utf-8"))
    assert numbers["figure"] == figure_id
    assert numbers["state"] == state(page, figure_id)
    assert numbers["readouts"] == readouts(page, figure_id)


def test_svg_export_is_valid_xml(browser, site_url):
    watched = open_page(browser, site_url)
    with watched.page.expect_download() as download:
        use_menu(watched.page, "F03", "SVG")
    root = ET.parse(download.value.path()).getroot()
    assert root.tag.endswith("svg") and math.isfinite(float(root.get("width")))
    watched.page.context.close()


def test_print_shows_every_figure_without_controls(article_at_start):
    page = article_at_start.page
    page.emulate_media(media="print")
    hidden = page.evaluate(
        """() => [...document.querySelectorAll(
                'figure input, figure button, .figure-tools, header')]
            .every(e => e.getClientRects().length === 0)"""
    )
    assert hidden
    visible = page.evaluate(
        """[...document.querySelectorAll('figure .stage svg')]
            .filter(s => s.getBoundingClientRect().height > 0).length"""
    )
    assert visible >= 25
    pdf = page.pdf(format="A4")
    assert pdf[:5] == b"%PDF-" and len(pdf) > 50_000
