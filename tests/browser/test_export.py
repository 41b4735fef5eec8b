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
    closed = page.locator("#long-key .figure-tools button")
    assert closed.count() == 4 and not any(b.is_visible() for b in closed.all())
    page.locator("#long-key .figure-tools summary").click()
    assert all(b.is_visible() for b in closed.all())


# What a figure offers, taken in the page as its link is clicked: the blob it made, whole,
# kept instead of downloaded. The browser's own download is tested once, on a fresh page
# (below): one page that has offered dozens of downloads sometimes never offers the next.
TAKE_EXPORTS = """() => {
    if (window.__taken) return;
    const blobs = new Map();
    const make = URL.createObjectURL;
    URL.createObjectURL = (blob) => { const url = make(blob); blobs.set(url, blob); return url; };
    const click = HTMLAnchorElement.prototype.click;
    window.__taken = [];
    HTMLAnchorElement.prototype.click = function () {
        const blob = blobs.get(this.href);
        if (!this.download || !blob) return click.call(this);
        const name = this.download;
        window.__taken.push(blob.arrayBuffer().then((b) => {
            const bytes = new Uint8Array(b);
            return { name, size: bytes.length, head: [...bytes.slice(0, 8)],
                     text: name.endsWith(".png") ? "" : new TextDecoder().decode(bytes) };
        }));
    };
}"""
# the next export taken, or an error after 5 s
NEXT_TAKEN = """(count) => new Promise((resolve, reject) => {
    const until = performance.now() + 5000;
    const look = () => window.__taken.length > count ? window.__taken[count].then(resolve)
        : performance.now() > until ? reject(new Error("nothing was offered"))
        : setTimeout(look, 10);
    look();
})"""

PNG = b"\x89PNG\r\n\x1a\n"


def export(page, figure_id: str, item: str) -> dict:
    """Press one item of the figure's share menu and return what it offered."""
    count = page.evaluate("() => window.__taken.length")
    use_menu(page, figure_id, item)
    return page.evaluate(NEXT_TAKEN, count)


@pytest.mark.parametrize("figure_id", FIGURES)
def test_exports_parse(en_at_start, figure_id):
    page = en_at_start.page
    page.evaluate(TAKE_EXPORTS)
    svg = export(page, figure_id, "SVG")
    assert svg["name"].endswith(".svg")
    assert svg["text"].startswith("<svg") and 'xmlns="http://www.w3.org/2000/svg"' in svg["text"]
    root = ET.fromstring(svg["text"])
    assert root.tag.endswith("svg") and math.isfinite(float(root.get("width")))
    png = export(page, figure_id, "PNG")
    assert bytes(png["head"]) == PNG and png["size"] > 1000
    numbers = json.loads(export(page, figure_id, "JSON")["text"])
    assert numbers["figure"] == figure_id
    assert numbers["state"] == state(page, figure_id)
    assert numbers["readouts"] == readouts(page, figure_id)


def test_the_browser_offers_each_export_as_a_file(browser, site_url):
    watched = open_page(browser, site_url)
    page = watched.page
    with page.expect_download() as svg_download:
        use_menu(page, "query-meets-keys", "SVG")
    root = ET.parse(svg_download.value.path()).getroot()
    assert root.tag.endswith("svg") and math.isfinite(float(root.get("width")))
    with page.expect_download() as png_download:
        use_menu(page, "query-meets-keys", "PNG")
    png = Path(png_download.value.path()).read_bytes()
    assert png[:8] == PNG and len(png) > 1000
    with page.expect_download() as json_download:
        use_menu(page, "query-meets-keys", "JSON")
    assert (
        json.loads(Path(json_download.value.path()).read_text("utf-8"))["figure"]
        == "query-meets-keys"
    )
    assert watched.errors == []
    page.context.close()


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
