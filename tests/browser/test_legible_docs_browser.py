"""The built documentation site opened from file:// in Chromium (issue 29, item 13): every navigation
link lands on a page (not a folder's listing), search finds a page with no server, and a view page's
figure is shown at its own size (its 12 px text is not shrunk beside the 16 px body text)."""

from __future__ import annotations

import pytest
from test_docs_site import site  # noqa: F401 (the fixture: mkdocs build --strict into a scratch folder)

pytestmark = pytest.mark.browser


@pytest.fixture
def site_page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    yield page
    context.close()


def _lands_on_a_page(page, what: str) -> None:
    # a directory listing has no mkdocs-material content; a page has its article
    assert page.locator("article.md-content__inner").count() == 1, (
        f"{what}: {page.url} shows no page (title {page.title()!r}): a folder's listing?"
    )


def test_every_navigation_link_from_file_lands_on_a_page(site, site_page):  # noqa: F811
    page = site_page
    page.goto((site / "index.html").as_uri())
    _lands_on_a_page(page, "the home page")
    hrefs = page.eval_on_selector_all("nav.md-nav--primary a.md-nav__link[href]", "els => els.map(e => e.href)")
    hrefs = sorted({h.split("#")[0] for h in hrefs if h.startswith("file:")})
    assert len(hrefs) > 10, hrefs
    for href in hrefs:
        page.goto(href)
        _lands_on_a_page(page, f"the navigation link {href}")


def test_search_works_from_file(site, site_page):  # noqa: F811
    page = site_page
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto((site / "index.html").as_uri())
    search = page.locator("input.md-search__input")
    search.click()
    page.keyboard.type("roofline")  # keystrokes, as a reader types: the search listens to them
    results = page.locator(".md-search-result__item")
    try:
        results.first.wait_for(timeout=15_000)
    except Exception as error:
        meta = page.locator(".md-search-result__meta").all_inner_texts()
        raise AssertionError(f"search from file:// found nothing (says {meta}; page errors {errors})") from error
    assert results.count() >= 1


@pytest.mark.parametrize("view", ["campaign-diagram", "explorer", "dataflow-view"])
def test_a_view_pages_figure_is_not_shrunk(site, site_page, view):  # noqa: F811
    page = site_page
    page.goto((site / "views" / f"{view}.html").as_uri())
    _lands_on_a_page(page, view)
    img = page.locator(f"img[src$='figures/{view}.png']")
    img.wait_for()
    page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=img.element_handle())
    shown, natural = img.evaluate("img => [img.getBoundingClientRect().width, img.naturalWidth]")
    body = float(page.evaluate("() => parseFloat(getComputedStyle(document.querySelector('.md-typeset p')).fontSize)"))
    text = 12 * shown / natural  # the static export writes 12 px text at one pixel per CSS px (dpi=100)
    assert text >= 11.5, f"{view}: 12 px figure text is drawn at {text:.1f} px beside {body:.0f} px body text"


def test_api_pages_print_no_doctest_directives(site):  # noqa: F811
    shown = [p.relative_to(site) for p in (site / "api").rglob("*.html") if "doctest:" in p.read_text(encoding="utf-8")]
    assert not shown, f"API pages print doctest directives (# doctest: +SKIP): {shown}"
