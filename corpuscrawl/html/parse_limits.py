"""Keeping the text of pages that hit libxml2's limits.

libxml2, under lxml's HTML parser, stops parsing (a FATAL ``ERR_RESOURCE_LIMIT``
in the parser's error log, no exception) at an element nesting depth of 256, a
text node or attribute value over 10 MB, and similar; everything after that
point is silently missing from the tree.  Pages that do this are rare and
broken (unclosed ``<font>``/``<div>`` runs, megabytes of inline data), but
their text is still text.  When the first parse reports such an error the
page is parsed again:

1. nesting deeper than :data:`MAX_NESTING_DEFAULT` is cut by dropping the
   excess start tags and their end tags (text kept, outer structure kept;
   runs of one wrapper tag are cut first, so the structure of the content
   inside them survives), and the size limits are lifted (``huge_tree``);
2. if libxml2 still gives up, the page is flattened to its text: blocks split
   at block-level tags, every other tag removed.

The caller records which repair was needed, so none of it is silent.
Plain library code: no Scrapy.
"""

from __future__ import annotations

import html as html_lib
import re
from collections import Counter

import lxml.html
from lxml import etree

#: Deepest nesting kept when a page is re-parsed after the depth limit (libxml2 stops at 256;
#: below Python's recursion limit for the recursive tree walkers of the extractors).
MAX_NESTING_DEFAULT = 200

#: Depth below the limit from which a tag nested in a tag of its own name is dropped, so
#: that a run of wrappers (100,000 ``<div>``s) leaves room for the content inside it.
HEADROOM = 20

VOID_TAGS = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link",
                       "meta", "param", "source", "track", "wbr", "keygen", "basefont",
                       "frame", "isindex"})
#: Elements whose start tag closes an open element of the same name (HTML's implied end tags).
SELF_CLOSING_SIBLINGS = frozenset({"p", "li", "td", "th", "tr", "option", "dt", "dd"})
#: Elements whose content is raw text: no tags inside.
RAW_TEXT_TAGS = frozenset({"script", "style", "textarea", "title", "xmp", "plaintext"})
#: Tags at which the flattened text of a page starts a new block.
BLOCK_TAGS = frozenset({"address", "article", "aside", "blockquote", "br", "dd", "details",
                        "div", "dl", "dt", "figcaption", "figure", "footer", "form", "h1",
                        "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "main", "nav",
                        "ol", "p", "pre", "section", "table", "td", "th", "tr", "ul",
                        "body", "html", "frame", "frameset", "noframes"})

# A tag with quoted attribute values (a ">" inside quotes does not end it); linear time.
_TAG_RE = re.compile(r"<(/?)([A-Za-z][^\s/>\"']*)((?:[^>\"']|\"[^\"]*\"|'[^']*')*)>")
_TITLE_RE = re.compile(r"<title\b[^>]*>(.*?)</title\s*>", re.IGNORECASE | re.DOTALL)
_DROP_RE = re.compile(r"<!--.*?(?:-->|$)|<(script|style|template|title)\b[^>]*>.*?(?:</\1\s*>|$)",
                      re.IGNORECASE | re.DOTALL)


def resource_limit(parser: etree._FeedParser) -> str:
    """The message of the fatal resource-limit error that ended ``parser``'s parse, or "".

    Such an error stops the parse, so it is the last one logged (looking at
    that one only keeps this O(1) for pages with thousands of ordinary errors).
    """
    entry = parser.error_log.last_error
    if entry is None or entry.level_name != "FATAL":
        return ""
    message = entry.message.lower()
    if entry.type_name == "ERR_RESOURCE_LIMIT" or "huge" in message or "too long" in message:
        return entry.message.strip()
    return ""


def cap_nesting(html: str, max_depth: int = MAX_NESTING_DEFAULT) -> str:
    """``html`` with start tags beyond ``max_depth`` open elements (and their end tags) dropped."""
    out: list[str] = []
    stack: list[str] = []
    dropped: Counter[str] = Counter()
    pos = 0
    last_break = -1  # index in ``out`` of the last "<br>" standing for dropped tags
    for match in _TAG_RE.finditer(html):
        if match.start() < pos:  # inside a raw-text element skipped below
            continue
        closing, name, rest = match.group(1), match.group(2).lower(), match.group(3)
        keep = True
        if closing:
            if dropped[name]:
                dropped[name] -= 1
                keep = False
            elif name in stack:
                while stack and stack.pop() != name:
                    pass
        elif name in VOID_TAGS or rest.rstrip().endswith("/"):
            pass
        else:
            if name in SELF_CLOSING_SIBLINGS and stack and stack[-1] == name:
                stack.pop()
            wrapper = bool(stack) and stack[-1] == name  # a run of one tag: <div><div><div>
            if len(stack) >= max_depth or (wrapper and len(stack) >= max_depth - HEADROOM):
                dropped[name] += 1
                keep = False
            else:
                stack.append(name)
        if match.start() > pos:
            out.append(html[pos:match.start()])
        if keep:
            out.append(match.group(0))
        elif name in BLOCK_TAGS and not (last_break >= 0 and all(
                part.isspace() for part in out[last_break + 1:])):
            last_break = len(out)
            out.append("<br>")  # the text on both sides stays apart
        pos = match.end()
        if keep and not closing and name in RAW_TEXT_TAGS:
            end = re.compile(rf"</{name}\s*>", re.IGNORECASE).search(html, pos)
            stop = end.end() if end else len(html)
            out.append(html[pos:stop])
            pos = stop
            if end:
                stack.pop()
    out.append(html[pos:])
    return "".join(out)


def flatten_to_text(html: str) -> str:
    """A minimal HTML page holding the title and the text blocks of ``html``, and nothing else."""
    title_match = _TITLE_RE.search(html)
    title = html_lib.unescape(title_match.group(1)).strip() if title_match else ""
    body = _DROP_RE.sub(" ", html)
    blocks: list[str] = []
    current: list[str] = []
    pos = 0
    for match in _TAG_RE.finditer(body):
        current.append(body[pos:match.start()])
        pos = match.end()
        if match.group(2).lower() in BLOCK_TAGS:
            blocks.append(" ".join("".join(current).split()))
            current = []
    current.append(body[pos:])
    blocks.append(" ".join("".join(current).split()))
    paragraphs = "".join(f"<p>{html_lib.escape(html_lib.unescape(b))}</p>" for b in blocks if b)
    return (f"<html><head><title>{html_lib.escape(title)}</title></head>"
            f"<body>{paragraphs}</body></html>")


def _parse(html: str, huge: bool) -> tuple[lxml.html.HtmlElement, str]:
    parser = lxml.html.HTMLParser(remove_comments=False, remove_pis=True, recover=True,
                                  huge_tree=huge)
    root = lxml.html.document_fromstring(html, parser=parser)
    return root, resource_limit(parser)


def parse_beyond_limits(html: str) -> tuple[lxml.html.HtmlElement, str]:
    """Parse a page that hit a libxml2 limit; returns the tree and the repair used.

    The repair is ``"reparsed"`` (deep nesting cut, size limits lifted) or
    ``"flattened"`` (text blocks only).
    """
    try:
        root, limit = _parse(cap_nesting(html), huge=True)
        if not limit:
            return root, "reparsed"
    except (etree.ParserError, ValueError):
        pass
    root, _ = _parse(flatten_to_text(html), huge=True)
    return root, "flattened"
