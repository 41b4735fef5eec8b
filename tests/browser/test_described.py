"""Every picture of a figure is tied to its caption, also one drawn anew (issue 48: F27's
plane and loss chart lost aria-describedby after a change of seed or rate)."""

from __future__ import annotations

from .conftest import open_page
from .drive import set_state

UNDESCRIBED = """id => {
  const caption = document.querySelector(`#${id} figcaption`).id;
  const pictures = [...document.querySelectorAll(`#${id} .stage svg`)];
  const off = pictures.filter((p) => p.getAttribute("aria-describedby") !== caption);
  return [pictures.length, off.length];
}"""


def test_f27_pictures_stay_described_after_a_new_seed_and_rate(browser, site_url):
    watched = open_page(browser, site_url + "en/")
    page = watched.page
    page.locator("#gradient-finds-cat").scroll_into_view_if_needed()
    assert page.evaluate(UNDESCRIBED, "gradient-finds-cat")[1] == 0
    for change in ({"seed": 4}, {"rate": 0.3}, {"seed": 17, "rate": 0.03}):
        set_state(page, "gradient-finds-cat", change)
        page.evaluate("() => new Promise((r) => setTimeout(r, 0))")  # the observer's turn
        pictures, undescribed = page.evaluate(UNDESCRIBED, "gradient-finds-cat")
        assert pictures >= 3 and undescribed == 0, change
    assert watched.errors == []
    watched.page.context.close()
