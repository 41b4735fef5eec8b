"""A figure's share menu (⋯), opened and used as a reader would."""

from __future__ import annotations

from playwright.sync_api import Page


def use_menu(page: Page, figure_id: str, item: str) -> None:
    """Open a figure's share menu (⋯) and press one of its items, as a reader would."""
    menu = page.locator(f"#{figure_id} .figure-tools")
    if menu.get_attribute("open") is None:
        menu.locator("summary").click()
    menu.locator(f"button:has-text('{item}')").click()
