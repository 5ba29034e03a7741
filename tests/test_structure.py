"""Line roles (extract/lines/structure.py) and the Markdown rendering of every extractor's text."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from corpuscrawl.evaluation.runner import available_specs
from corpuscrawl.extract import get_extractor
from corpuscrawl.extract.lines.structure import (
    Role,
    decode_roles,
    encode_roles,
    line_roles,
    page_lines,
    roles_for,
)
from corpuscrawl.formats.line_blocks import ListBlock, TableBlock, group_blocks
from corpuscrawl.formats.markdown import escape_line, to_markdown
from corpuscrawl.html.page import Page

ARTICLE = Path(__file__).parent / "data" / "structure" / "article.html"
URL = "https://greenstreets.example/2024/rain-garden"

EXPECTED_MARKDOWN = """\
# Building a rain garden

When the storm drains on Willow Street overflowed for the third time in one spring, the \
residents decided to dig up the verges and plant them with reeds, irises and sedges that drink \
the water before it reaches the road.

## What you need

- A shallow dip at least three metres from any house wall
- Plants that tolerate both flooding and drought
  - Yellow flag iris for the wettest middle
  - Sedges and rushes along the edges
- A layer of coarse gravel under the topsoil

## How to build it

1. Mark the outline with a garden hose and dig out the turf
2. Loosen the subsoil and mix in compost to help the water soak away
3. Plant densely and cover the bare soil with bark mulch

## Costs per square metre

| Item | Price |
| --- | --- |
| Plants | 18 euros |
| Gravel and compost | 7 euros |

> We have not had a flooded cellar since the gardens went in, and the street is full of \
dragonflies in summer."""


@pytest.fixture(scope="module")
def page() -> Page:
    return Page.from_file(ARTICLE, url=URL)


def test_page_lines_know_their_elements(page: Page) -> None:
    roles = dict(page_lines(page))
    assert roles["What you need"] == Role("head", level=2)
    nested = roles["Yellow flag iris for the wettest middle"]
    top = roles["A shallow dip at least three metres from any house wall"]
    assert (nested.kind, nested.level, top.level) == ("item", 2, 1)
    assert roles["Plant densely and cover the bare soil with bark mulch"].ordered
    price = roles["Price"]
    assert (price.kind, price.header) == ("cell", True)
    assert roles["Plants"].row != price.row and roles["Plants"].group == price.group
    assert roles["overflow_litres = roof_area_m2 * rain_mm"].kind == "code"
    assert roles["garden_area_m2 = overflow_litres / 200"].kind == "code"
    assert roles[next(k for k in roles if k.startswith("We have not"))].kind == "quote"


def test_bte_markdown_has_headings_lists_tables_quotes_code(page: Page) -> None:
    bte = get_extractor("bte")
    text = bte.extract(page)
    markdown = to_markdown(text, roles_for(bte, page, text))
    assert markdown.startswith(EXPECTED_MARKDOWN)
    # bte joins the two <pre> lines into one: it is still a code block
    assert "```\noverflow_litres = roof_area_m2 * rain_mm garden_area_m2" in markdown


def test_a_row_joined_into_one_line_keeps_its_cells(page: Page) -> None:
    text = "Costs per square metre\nItem Price\nPlants 18 euros\nGravel and compost 7 euros"
    roles = line_roles(page, text)
    assert [r.kind for r in roles] == ["head", "row", "row", "row"]
    (table,) = [b for b in group_blocks(text, roles) if isinstance(b, TableBlock)]
    assert table.rows == [["Item", "Price"], ["Plants", "18 euros"], ["Gravel and compost", "7 euros"]]
    assert table.header == [True, False, False]


def test_a_line_found_nowhere_is_a_paragraph(page: Page) -> None:
    roles = line_roles(page, "A sentence no element of the page holds.\nWhat you need")
    assert [r.kind for r in roles] == ["p", "head"]


def test_roles_survive_removed_lines() -> None:
    text = "Title\nfirst item\nsecond item\nCopyright notice"
    roles = [Role("head", level=1), Role("item", 1, 7), Role("item", 1, 7), Role()]
    encoded = encode_roles(roles, text)
    kept = "Title\nsecond item"
    assert decode_roles(encoded, kept) == [Role("head", level=1), Role("item", 1, 7)]
    assert decode_roles(encoded, "a new line") == [Role()]
    assert decode_roles(["garbage"], "Title") == [Role()]


def test_extractor_may_give_its_own_roles(page: Page) -> None:
    class Own:
        name = "own"

        def extract(self, page: Page) -> str:
            return "one\ntwo"

        def line_roles(self, page: Page, text: str) -> list[Role]:
            return [Role("head", level=3), Role("item", 1, 1)]

    assert [r.kind for r in roles_for(Own(), page, "one\ntwo")] == ["head", "item"]


def test_separate_lists_stay_separate_and_nesting_follows_depth() -> None:
    text = "a\nb\nc\nd"
    roles = [Role("item", 1, 1), Role("item", 2, 2), Role("item", 1, 1), Role("item", 1, 3, ordered=True)]
    blocks = group_blocks(text, roles)
    assert len(blocks) == 2 and all(isinstance(b, ListBlock) for b in blocks)
    first = blocks[0]
    assert isinstance(first, ListBlock)
    assert [i.text for i in first.items] == ["a", "c"] and first.items[0].children[0].items[0].text == "b"


@pytest.mark.parametrize("line, escaped", [("# not a heading", "\\# not a heading"),
                                           ("- dash", "\\- dash"), ("3. third", "\\3. third"),
                                           ("> no quote", "\\> no quote"), ("plain #1", "plain #1")])
def test_paragraphs_that_look_like_syntax_are_escaped(line: str, escaped: str) -> None:
    assert escape_line(line) == escaped


def _words_of_markdown(markdown: str) -> list[str]:
    words = []
    for word in markdown.replace("\\|", "|").split():
        if re.fullmatch(r"#{1,6}|-|\d+\.|\||---|>|`{3,}", word):
            continue
        words.append(word[1:] if word.startswith("\\") else word)
    return words


def test_every_extractor_keeps_its_text_in_markdown(page: Page) -> None:
    """For each registered extractor: one role per line, and the Markdown holds the text's
    words in order and nothing else (the text itself is never changed)."""
    specs, _ = available_specs()
    assert len(specs) >= 8
    for spec in specs:
        extractor = spec.build()
        text = extractor.extract(page)
        before = text
        roles = roles_for(extractor, page, text)
        assert len(roles) == (len(text.split("\n")) if text else 0), spec.name
        markdown = to_markdown(text, roles)
        words = [w for w in text.replace("|", " | ").split() if w != "|"]
        assert [w for w in _words_of_markdown(markdown) if w != "|"] == words, spec.name
        assert text == before
