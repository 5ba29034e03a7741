"""The tree lookups of the title heuristic (:mod:`.title`), each one walk over the page.

``<title>``'s text, the ``<meta>`` contents that name a title or a site, and the texts of
the links home: through lxml each is a walk that makes a Python proxy for every element it
passes (``iter``) or an XPath over the whole document, per page and per lookup.  The C
accelerator ``_cdom`` (the collapsed-DOM walk's Cython module, ``setup.py``) reads the same
libxml2 nodes without proxies and gives the same strings (``tests/test_title_lookups.py``
compares both on fixture pages and, when present, every dataset page); it is used when
:func:`corpuscrawl.extract.segment.cdom.accelerated` (the lxml it was built for), and a tree
it does not read as lxml does (a namespaced element, an entity reference) is asked of lxml.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import lxml.html
from lxml import etree

from corpuscrawl.extract.segment import cdom


def first_text(root: lxml.html.HtmlElement, tag: str) -> str | None:
    """``text_content()`` of the first ``tag`` element of ``root.iter(tag)`` (None: none)."""
    if cdom.accelerated():
        found = cdom._cdom.first_text(root, tag)
        if found is not None:
            return found[0]
    return python_first_text(root, tag)


def python_first_text(root: lxml.html.HtmlElement, tag: str) -> str | None:
    """:func:`first_text` through lxml (the reference the C lookup is tested against)."""
    first = next(root.iter(tag), None)
    return None if first is None else first.text_content()


def meta_contents(root: etree._Element, pairs: Sequence[tuple[str, str]]
                  ) -> list[list[str]]:
    """For each ``(attribute, value)``, the ``content`` of every ``<meta attribute=value>`` in
    ``root``'s whole document, in document order: ``//meta[@attribute="value"]/@content``."""
    if cdom.accelerated():
        found = cdom._cdom.meta_contents(root, tuple(pairs))
        if found is not None:
            return list(found)
    return python_meta_contents(root, pairs)


def python_meta_contents(root: etree._Element, pairs: Sequence[tuple[str, str]]
                         ) -> list[list[str]]:
    """:func:`meta_contents` through lxml's XPath (the reference)."""
    return [[str(v) for v in root.xpath(f'//meta[@{attribute}=$value]/@content', value=value)]
            for attribute, value in pairs]


def metas_and_link_texts(root: etree._Element, pairs: Sequence[tuple[str, str]],
                         links_root: lxml.html.HtmlElement, accept: Callable[[str], bool]
                         ) -> tuple[list[list[str]], list[str]]:
    """:func:`meta_contents` of ``root`` and :func:`python_link_texts` of ``links_root`` (an
    element of ``root``'s document), in one walk over the document when the C lookups are in
    use."""
    if cdom.accelerated():
        found = cdom._cdom.metas_and_links(root, tuple(pairs), links_root, accept)
        if found is not None:
            return list(found[0]), found[1]
    return python_meta_contents(root, pairs), python_link_texts(links_root, accept)


def python_link_texts(root: lxml.html.HtmlElement, accept: Callable[[str], bool]) -> list[str]:
    """``text_content()`` of each ``<a>`` of ``root.iter("a")`` whose ``href`` (``""`` when
    it has none) ``accept`` takes, in document order, through lxml (the reference)."""
    return [a.text_content() for a in root.iter("a") if accept(a.get("href") or "")]


__all__ = ["first_text", "meta_contents", "metas_and_link_texts",
           "python_first_text", "python_link_texts", "python_meta_contents"]
