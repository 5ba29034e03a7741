"""Streamed server rendering completed as the browser completes it, without a browser.

React's streaming renderer (``renderToPipeableStream``, the Next.js app router) sends a
page in chunks.  Where a part was not ready, the first chunk holds a placeholder — a
``<template id="B:0">`` (or ``P:0``) followed by fallback markup (a spinner, a skeleton,
"Loading…") up to a ``<!--/$-->`` comment — and a later chunk appends the real content
at the end of the body in ``<div hidden id="S:0">``, with a tiny inline script
(``$RC("B:0","S:0")`` / ``$RS("S:0","P:0")``) that moves it into the placeholder.  A
fetcher that runs no script sees the skeleton where the text belongs and the text
hidden at the end: an extractor that skips hidden elements (as it must: hidden menus,
drawers and duplicates are not main text) loses it, and the page may look empty.

:func:`completed_stream` does what the inline script does: each hidden ``S:<n>``
segment whose placeholder ``B:<n>`` / ``P:<n>`` exists replaces it (and its fallback).
A hidden element of any other kind stays hidden, and a segment with no placeholder
too (a browser would not show it either).
"""

from __future__ import annotations

import re
from dataclasses import replace

from lxml import etree

from corpuscrawl.html.page import Page, remove_keeping_tail

#: Ids of streamed segments and of their placeholders.
_SEGMENT_RE = re.compile(r"S:([0-9a-zA-Z_]+)$")
#: The comment that closes a suspense boundary's fallback.
_BOUNDARY_END = "/$"
#: A fast test on the HTML before the tree is searched.
_MARKER_RE = re.compile(r"""id=["']?S:[0-9a-zA-Z_]""")


def stream_segments(page: Page) -> list[tuple[etree._Element, etree._Element]]:
    """``(segment, placeholder)`` pairs of the page's tree in document order: hidden
    ``S:<n>`` elements whose ``B:<n>`` or ``P:<n>`` template is in the page."""
    if not _MARKER_RE.search(page.html):
        return []
    placeholders: dict[str, etree._Element] = {}
    segments: list[tuple[str, etree._Element]] = []
    for el in page.tree.iter():
        if not isinstance(el.tag, str):
            continue
        el_id = el.get("id") or ""
        if el.tag == "template" and el_id[:2] in ("B:", "P:"):
            placeholders.setdefault(el_id, el)
        elif el.get("hidden") is not None:
            m = _SEGMENT_RE.match(el_id)
            if m:
                segments.append((m.group(1), el))
    out = []
    for key, segment in segments:
        holder = placeholders.get(f"B:{key}")
        if holder is None:
            holder = placeholders.get(f"P:{key}")
        if holder is not None:
            out.append((segment, holder))
    return out


def _drop_fallback(holder: etree._Element) -> None:
    """Remove the fallback after a ``B:`` placeholder, up to its boundary's end comment
    (nothing when the comment is not among its following siblings)."""
    following = []
    for sib in holder.itersiblings():
        if not isinstance(sib.tag, str) and (sib.text or "").strip() == _BOUNDARY_END:
            break
        following.append(sib)
    else:
        return
    parent = holder.getparent()
    for sib in following:
        if sib.tail and sib.tail.strip():
            sib.tail = None
        parent.remove(sib)


def _replace_with_children(holder: etree._Element, segment: etree._Element) -> None:
    """Put ``segment``'s content where ``holder`` is and remove both."""
    parent = holder.getparent()
    index = parent.index(holder)
    tail = holder.tail
    children = list(segment)
    lead = segment.text or ""
    previous = holder.getprevious()
    if lead:  # the segment's leading text goes after what precedes the placeholder
        if previous is not None:
            previous.tail = (previous.tail or "") + lead
        else:
            parent.text = (parent.text or "") + lead
    parent.remove(holder)
    for offset, child in enumerate(children):
        parent.insert(index + offset, child)  # moves it out of the segment
    if tail:
        if children:
            children[-1].tail = (children[-1].tail or "") + tail
        elif index > 0:
            before = parent[index - 1]
            before.tail = (before.tail or "") + tail
        else:
            parent.text = (parent.text or "") + tail
    remove_keeping_tail(segment)


def completed_stream(page: Page) -> Page:
    """The page with its streamed segments moved into their placeholders (see the module
    docstring); the same object when it has none.  The page's shared tree is not
    changed: the returned page has a copy."""
    if not stream_segments(page):
        return page
    tree = page.copy_tree(clean=False)
    copy = replace(page, tree=tree)
    # Segments are moved one at a time, in document order: a segment may hold the
    # placeholder of a later one, found again in the updated tree.
    for _ in range(len(stream_segments(page))):
        pairs = stream_segments(copy)
        if not pairs:
            break
        segment, holder = pairs[0]
        if holder.get("id", "").startswith("B:"):
            _drop_fallback(holder)
        _replace_with_children(holder, segment)
    copy.__dict__.pop("body", None)
    copy.__dict__.pop("clean_tree", None)
    return copy


__all__ = ["completed_stream", "stream_segments"]
