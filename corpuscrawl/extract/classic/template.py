"""Template extractor: per-site selectors in the one-line syntax of Bakić's thesis.

Source: Bakić's thesis §4.6 and §6.3.7.  A template is a text file with one
selector per line (blank lines skipped):

* ``name``        every element with that tag name;
* ``attr=``       every element that has attribute ``attr`` (any value);
* ``attr=value``  every element whose ``attr`` equals ``value`` exactly
  (no quotes; everything after the first ``=`` is the value).

Names may contain only letters, digits, ``-`` and ``_``; a value may not
contain both ``'`` and ``"`` (XPath 1.0 has no escape for that).  The
selectors compile to one XPath union; an element inside another selected
element is skipped; the texts are joined with newlines.

Deviation: a line starting with ``#`` is a comment (the thesis has none), so
shipped templates can say where they come from.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from lxml import etree

from corpuscrawl.extract.base import ExtractorError
from corpuscrawl.html.dom import render_text
from corpuscrawl.html.page import Page

_NAME_RE = re.compile(r"^[A-Za-z0-9_-]+$")


class TemplateError(ExtractorError):
    """A template line is invalid; the message names the file and the line."""

    def __init__(self, source: str, line_no: int, line: str, reason: str):
        self.source, self.line_no, self.line, self.reason = source, line_no, line, reason
        super().__init__(f"{source}:{line_no}: {reason}: {line!r}")


@dataclass(frozen=True)
class Selector:
    """One template line: a tag name, or an attribute with an optional exact value."""

    tag: str | None = None
    attr: str | None = None
    value: str | None = None

    def xpath(self) -> str:
        """This selector as an absolute XPath expression."""
        if self.tag is not None:
            return f"//{self.tag}"
        if self.value is None:
            return f"//*[@{self.attr}]"
        quote = "'" if "'" not in self.value else '"'
        return f"//*[@{self.attr}={quote}{self.value}{quote}]"


@dataclass(frozen=True)
class Template:
    """A named list of selectors compiled to one XPath union."""

    name: str
    selectors: tuple[Selector, ...]

    @property
    def xpath(self) -> str:
        """The XPath union of every selector ("" for an empty template)."""
        return " | ".join(s.xpath() for s in self.selectors)


def parse_line(line: str, source: str = "<template>", line_no: int = 1) -> Selector | None:
    """Parse one template line; ``None`` for blank and comment lines."""
    text = line.strip()
    if not text or text.startswith("#"):
        return None
    if "=" not in text:
        if not _NAME_RE.match(text):
            raise TemplateError(source, line_no, line,
                                "element name may contain only letters, digits, '-' and '_'")
        return Selector(tag=text.lower())
    attr, _, value = text.partition("=")
    attr = attr.strip()
    if not _NAME_RE.match(attr):
        raise TemplateError(source, line_no, line,
                            "attribute name may contain only letters, digits, '-' and '_'")
    if "'" in value and '"' in value:
        raise TemplateError(source, line_no, line,
                            "attribute value may not contain both ' and \"")
    return Selector(attr=attr.lower(), value=value if value else None)


def parse_template(text: str, name: str = "template", source: str | None = None) -> Template:
    """Parse a whole template text; errors name ``source`` (or ``name``) and the line."""
    selectors = []
    for i, line in enumerate(text.splitlines(), start=1):
        sel = parse_line(line, source or name, i)
        if sel is not None:
            selectors.append(sel)
    return Template(name=name, selectors=tuple(selectors))


def load_template(path: str | Path) -> Template:
    """Read a template file; its name is the file name without ``.txt``."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ExtractorError(f"cannot read template {path}: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise ExtractorError(f"template {path} is not UTF-8 text: {exc}") from exc
    return parse_template(text, name=path.stem, source=str(path))


def select_outermost(root: etree._Element, xpath: str | etree.XPath) -> list[etree._Element]:
    """Elements matching ``xpath`` in document order, skipping those inside another match."""
    if not xpath:
        return []
    matches = xpath(root) if isinstance(xpath, etree.XPath) else root.xpath(xpath)
    chosen = set(matches)
    out = []
    for el in matches:  # XPath unions come back in document order
        parent = el.getparent()
        while parent is not None and parent not in chosen:
            parent = parent.getparent()
        if parent is None:
            out.append(el)
    return out


class TemplateExtractor:
    """Extract the text of the elements a site template selects."""

    name = "template"

    def __init__(self, template: Template | None = None, path: str | Path | None = None):
        if template is None and path is None:
            raise ExtractorError("the template extractor needs a template: give path=FILE")
        self.template = template if template is not None else load_template(path)  # type: ignore[arg-type]
        self.name = f"template-{self.template.name}"
        self._xpath = etree.XPath(self.template.xpath) if self.template.selectors else None

    def extract(self, page: Page) -> str:
        """Newline-joined texts of the outermost selected elements ("" if none match)."""
        if self._xpath is None:
            return ""
        texts = (render_text(el) for el in select_outermost(page.clean_tree, self._xpath))
        return "\n".join(t for t in texts if t)
