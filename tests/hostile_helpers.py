"""Extractions as the crawl builds them, for the hostile-page tests."""

from __future__ import annotations

from scrapy.settings import Settings

from corpuscrawl.extract import names
from corpuscrawl.extract.classic.template import TemplateExtractor, parse_template
from corpuscrawl.pagetext.extraction import Extraction

#: The template engine's entry: a template selecting headings, paragraphs and a class.
TEMPLATE = "template"
TEMPLATE_LINES = "h1\np\nclass=post\ndata-blob="


def crawl_settings(**overrides: object) -> Settings:
    """The project's settings (corpuscrawl.settings) with ``overrides``."""
    settings = Settings()
    settings.setmodule("corpuscrawl.settings")
    for key, value in overrides.items():
        settings.set(key, value)
    return settings


def extraction_for(name: str, **overrides: object) -> Extraction:
    """The crawl's Extraction (default budgets) with extractor ``name`` or the template engine."""
    settings = crawl_settings(**overrides)
    extraction = Extraction.from_settings(settings, "bte" if name == TEMPLATE else name)
    if name == TEMPLATE:
        extraction.default = TemplateExtractor(parse_template(TEMPLATE_LINES))
    return extraction


def every_extraction(**overrides: object) -> dict[str, Extraction]:
    """One Extraction per registered extractor, plus the template engine."""
    return {name: extraction_for(name, **overrides)
            for name in [n for n in names() if n != TEMPLATE] + [TEMPLATE]}


class StuckOnThree:
    """BTE, except that it never returns on a page holding "Good article number 3"."""

    name = "stuck-on-three"

    def extract(self, page):  # noqa: ANN001, ANN201 - the extractor contract
        from corpuscrawl.extract.classic.bte import BTEExtractor

        if "Good article number 3" in page.html:
            while True:
                pass
        return BTEExtractor().extract(page)


class NoSuchHostResolver:
    """A resolver (``TWISTED_DNS_RESOLVER``) for which no name exists, sending no DNS query:
    a DNS failure without traffic off the machine."""

    def __init__(self, reactor):  # noqa: ANN001 - Scrapy's resolver contract
        self.reactor = reactor

    @classmethod
    def from_crawler(cls, crawler, reactor):  # noqa: ANN001, ANN206
        return cls(reactor)

    def install_on_reactor(self) -> None:
        from twisted.internet.interfaces import IResolverSimple
        from zope.interface import directlyProvides

        directlyProvides(self, IResolverSimple)
        self.reactor.installResolver(self)

    def getHostByName(self, name, timeout=()):  # noqa: ANN001, ANN201, N802 (Twisted API)
        from twisted.internet import defer
        from twisted.internet.error import DNSLookupError

        return defer.fail(DNSLookupError(f"no such host: {name}"))
