"""Text the static HTML hides behind an in-page control is shown before extraction
(:func:`corpuscrawl.browse.static.revealed_targets`, applied by ``without_overlays``)."""

from __future__ import annotations

from corpuscrawl.browse.static import revealed_targets, without_overlays
from corpuscrawl.extract import get_extractor
from corpuscrawl.html.page import Page

INTRO = ("The garden committee opened forty new plots on Saturday, and every one of them was "
         "taken before noon by families from the new estate behind the station.")
HIDDEN = ("The waiting list now runs to next spring, and the committee is asking the council "
          "for the empty school field beside the allotments to grow the garden again.")


def _page(hidden: str, control: str) -> Page:
    return Page.from_html(f"<html><body><main><article><h1>Plots</h1><p>{INTRO}</p>{hidden}"
                          f"{control}</article></main></body></html>", url="http://127.0.0.1/")


def test_read_more_target_is_shown_and_extracted():
    page = _page(f'<div id="more" style="display: none; color: red"><p>{HIDDEN}</p></div>',
                 '<a href="#more" class="toggle">Read more</a>')
    assert [el.get("id") for el in revealed_targets(page)] == ["more"]
    shown = without_overlays(page)
    assert shown.tree.get_element_by_id("more").get("style") == " color: red"
    assert page.tree.get_element_by_id("more").get("style").startswith("display")  # untouched
    assert HIDDEN in get_extractor("auto").extract(shown)


def test_tab_panels_are_shown_whatever_the_tab_says():
    page = _page(f'<div role="tabpanel" id="p1" hidden><p>{HIDDEN}</p></div>',
                 '<button role="tab" aria-controls="p1">Budget</button>')
    assert [el.get("id") for el in revealed_targets(page)] == ["p1"]
    assert without_overlays(page).tree.get_element_by_id("p1").get("hidden") is None


def test_hidden_text_without_a_reveal_control_stays_hidden():
    for control in ('<a href="#more">Show photos</a>', '<a href="#other">Read more</a>', ""):
        page = _page(f'<div id="more" hidden><p>{HIDDEN}</p></div>', control)
        assert revealed_targets(page) == []
        assert without_overlays(page) is page
