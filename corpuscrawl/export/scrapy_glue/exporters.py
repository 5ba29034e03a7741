"""Feed exporters of the corpus: JSON Lines, a text directory and the vertical format.

Registered in ``FEED_EXPORTERS`` (corpuscrawl/settings.py) as ``jsonl`` /
``jsonlines`` / ``json`` / ``csv`` / ``xml`` (Scrapy's formats, cleaned),
``txtdir`` and ``vertical``, so
``scrapy crawl corpus -O corpus.jsonl`` and every ``FEEDS`` entry write
cleaned documents.

They are thin: the decisions (boilerplate removal, cold-start holding,
near-duplicates, stats) are made once per document by the export stage,
driven by :class:`corpuscrawl.export.scrapy_glue.stage_pipeline.ExportStagePipeline`;
an exporter writes, for each item Scrapy hands it, the documents the stage
released with that item, and at the end of the crawl the documents released
by the final flush (see that module's docstring for why this shape).  Items
the stage never saw (other item types, or the stage switched off by
``CORPUSCRAWL_BOILERPLATE_ENABLED = False`` and ``CORPUSCRAWL_DEDUP_ENABLED =
False``) are written as they are.

Outside a crawl an exporter can drive its own stage: pass ``stage=`` (an
:class:`~corpuscrawl.export.stage.ExportStage`) and it submits each item
itself and flushes in ``finish_exporting``.
"""

from __future__ import annotations

import contextlib
import hashlib
import re
from collections.abc import Iterable
from datetime import UTC
from pathlib import Path
from typing import IO, Any
from xml.sax.saxutils import escape

from itemadapter import ItemAdapter
from scrapy.crawler import Crawler
from scrapy.exporters import (
    BaseItemExporter,
    CsvItemExporter,
    JsonItemExporter,
    JsonLinesItemExporter,
    XmlItemExporter,
)

from corpuscrawl.config.setting_values import flag_setting
from corpuscrawl.crawlstate.export_ledger import ExportLedger
from corpuscrawl.crawlstate.lookup import run_state
from corpuscrawl.crawlstate.scrapy_glue.output_failure import failure_of, output_failed
from corpuscrawl.export.scrapy_glue.stage_pipeline import ExportState, existing_state
from corpuscrawl.export.stage import ExportStage
from corpuscrawl.extract.lines.structure import decode_roles
from corpuscrawl.formats.markdown import to_markdown
from corpuscrawl.formats.tei import CORPUS_END, corpus_start, tei_document, tei_string
from corpuscrawl.items import Document

__all__ = [
    "CleaningExporterMixin",
    "CorpusCsvExporter",
    "CorpusJsonExporter",
    "CorpusJsonLinesExporter",
    "TextDirectoryExporter",
    "VerticalExporter",
    "CorpusXmlExporter",
    "TeiExporter",
]

#: Document fields written as ``<doc>`` attributes by the vertical exporter: field -> attribute.
VERTICAL_ATTRIBUTES_DEFAULT = {"url": "url", "title": "title", "language": "lang",
                               "domain": "domain", "date": "date"}
# A token of the vertical format's optional one-token-per-line mode: a word or one symbol.
_QUOTE = {'"': "&quot;"}  # attributes are always double-quoted, as cwb-encode expects
_TOKEN_RE = re.compile(r"\w+(?:[-'’]\w+)*|[^\w\s]", re.UNICODE)


class CleaningExporterMixin:
    """Turns "items handed by Scrapy" into "documents to write" (see the module docstring).

    Put it first among the bases; the next base is the Scrapy exporter whose
    ``export_item`` writes one document (or override :meth:`write_document`).
    """

    _state: ExportState | None = None
    _own_stage: ExportStage | None = None
    _final_done: bool = False
    _ledger: ExportLedger | None = None
    #: Add each document's text as Markdown in a ``markdown`` field (CORPUSCRAWL_MARKDOWN).
    markdown: bool = False
    _crawler: Crawler | None = None

    def __init__(self, file: IO[bytes], *, stage: ExportStage | None = None,
                 **kwargs: Any) -> None:
        super().__init__(file, **kwargs)  # type: ignore[call-arg]
        self._own_stage = stage

    @classmethod
    def from_crawler(cls, crawler: Crawler, file: IO[bytes], **kwargs: Any) -> Any:
        """Build for a feed of ``crawler``, attached to its export stage when it runs."""
        exporter = cls(file, **kwargs)
        exporter.markdown = markdown_setting(crawler.settings)
        exporter._crawler = crawler
        exporter._state = existing_state(crawler)
        state = run_state(crawler)  # the export ledger: each document once per generation
        if state is not None and state.ledger.register(file):
            exporter._ledger = state.ledger
        return exporter

    def write_document(self, item: Any) -> None:
        """Write one (cleaned) document in the exporter's format."""
        super().export_item(feed_fields(item, self.markdown))  # type: ignore[misc]

    def export_item(self, item: Any) -> None:
        """Write the documents released with ``item`` (itself when the stage did not see it).

        In a crawl, a failed write stops the crawl (:mod:`corpuscrawl.crawlstate.scrapy_glue.output_failure`) and
        nothing more is written: the documents not written stay pending."""
        if self._failed():
            return
        for doc in self._documents_for(item):
            if not self._write(doc):
                return

    def finish_exporting(self) -> None:
        """Write the documents released at the end of the crawl, then finish the format."""
        if not self._failed():
            for doc in self._final_documents():
                if not self._write(doc):
                    break
            else:
                try:
                    super().finish_exporting()  # type: ignore[misc]
                    if self._ledger is not None:
                        self._ledger.feed_finished(getattr(self, "file", None))
                except OSError as exc:
                    if self._crawler is None:
                        raise
                    output_failed(self._crawler, self._output_name(), exc)
        if self._failed():
            # What is still buffered cannot be written either: close the file here, so the
            # feed storage's own close does not fail again with a traceback.
            with contextlib.suppress(OSError, ValueError, AttributeError):
                self.file.close()  # type: ignore[attr-defined]

    def _failed(self) -> bool:
        return self._crawler is not None and failure_of(self._crawler) is not None

    def _output_name(self) -> str:
        name = getattr(getattr(self, "file", None), "name", None)
        return name if isinstance(name, str) else type(self).__name__

    def _write(self, doc: Any) -> bool:
        """Write one document and enter it in the ledger; False when the write failed in a
        crawl (reported, the crawl stopping).  Outside a crawl the error is raised."""
        try:
            self.write_document(doc)
        except OSError as exc:
            if self._crawler is None:
                raise
            output_failed(self._crawler, self._output_name(), exc)
            return False
        if self._ledger is not None:
            self._ledger.written(doc)
        return True

    def _documents_for(self, item: Any) -> Iterable[Any]:
        if self._state is not None:
            outcomes = self._state.released_with(item)
            if outcomes is None:
                return [item]
            return [o.document for o in outcomes if o.exported]
        if self._own_stage is not None and isinstance(item, Document):
            return [o.document for o in self._own_stage.submit(item) if o.exported]
        return [item]

    def _final_documents(self) -> list[Any]:
        """Documents released at the end of the crawl (once per exporter; none mid-crawl)."""
        if self._final_done:
            return []
        if self._state is not None:
            if self._state.final is None:  # a batch ends mid-crawl: nothing final yet
                return []
            outcomes = self._state.final
        elif self._own_stage is not None:
            outcomes = self._own_stage.flush()
        else:
            outcomes = []
        self._final_done = True
        return [o.document for o in outcomes if o.exported]


def markdown_setting(settings: Any) -> bool:
    """``CORPUSCRAWL_MARKDOWN`` as a bool, read as the extraction reads it (a bad value fails
    naming the setting)."""
    return flag_setting(settings, "CORPUSCRAWL_MARKDOWN", False, ValueError)


#: Document fields no feed writes as they are (the line roles become ``markdown`` or TEI).
FEED_HIDDEN_FIELDS = ("structure",)


def feed_fields(item: Any, markdown: bool = False) -> Any:
    """What a feed writes of ``item``: a Document's fields without its line roles
    (``structure``), with its text as Markdown in ``markdown`` when asked; other items as
    they are."""
    if not isinstance(item, Document):
        return item
    fields = ItemAdapter(item).asdict()
    structure = fields.get("structure") or []
    for name in FEED_HIDDEN_FIELDS:
        fields.pop(name, None)
    if markdown:
        fields["markdown"] = to_markdown(item.text, decode_roles(structure, item.text))
    return fields


class CorpusJsonLinesExporter(CleaningExporterMixin, JsonLinesItemExporter):
    """JSON Lines, one cleaned document per line (the default corpus format)."""


class CorpusJsonExporter(CleaningExporterMixin, JsonItemExporter):
    """A JSON array of cleaned documents (Scrapy's ``json`` format, cleaned)."""


class CorpusCsvExporter(CleaningExporterMixin, CsvItemExporter):
    """CSV of cleaned documents (Scrapy's ``csv`` format, cleaned)."""


class CorpusXmlExporter(CleaningExporterMixin, XmlItemExporter):
    """XML of cleaned documents (Scrapy's ``xml`` format, cleaned)."""


def _tsv_field(value: Any) -> str:
    return " ".join(str(value or "").split())


class TextDirectoryExporter(CleaningExporterMixin, BaseItemExporter):
    """One ``.txt`` per document in a directory; the feed file itself becomes a TSV index.

    ``-O corpus/index.tsv:txtdir`` writes ``corpus/<domain>/<key>.txt`` (key:
    16 hex digits of BLAKE2b of the URL, so a page crawled again overwrites its
    file) and one index line ``path<TAB>url<TAB>title<TAB>language`` per
    document into ``corpus/index.tsv``.  The directory defaults to the feed
    file's directory.  A document's reader comments (its ``comments`` field) go to
    ``<key>.comments.txt`` beside its text.  ``FEEDS = {"...": {"format": "txtdir",
    "item_export_kwargs": {"directory": "..."}}}`` sets it explicitly (needed
    for storages without a local path, e.g. stdout or S3).
    """

    def __init__(self, file: IO[bytes], *, directory: str | Path | None = None,
                 stage: ExportStage | None = None, **kwargs: Any) -> None:
        BaseItemExporter.__init__(self, **kwargs)
        self.file = file
        self.text_encoding: str = self.encoding or "utf-8"
        self._own_stage = stage
        if directory is None:
            name = getattr(file, "name", None)
            if not isinstance(name, str) or name.startswith("<"):
                raise ValueError(
                    "the txtdir feed needs a directory: use a local feed path such as "
                    "'corpus/index.tsv:txtdir' or set FEEDS[...]['item_export_kwargs']"
                    "['directory']")
            directory = Path(name).resolve().parent
        self.directory = Path(directory)

    def start_exporting(self) -> None:
        """Create the directory; write the index header into an empty index file."""
        self.directory.mkdir(parents=True, exist_ok=True)
        try:
            empty = self.file.tell() == 0
        except (OSError, AttributeError, ValueError):
            empty = False
        if empty:
            self.file.write("path\turl\ttitle\tlanguage\n".encode(self.text_encoding))

    def path_for(self, adapter: ItemAdapter) -> Path:
        """Relative path of a document's text file."""
        url = str(adapter.get("url") or "")
        domain = str(adapter.get("domain") or "") or "unknown"
        safe_domain = re.sub(r"[^\w.-]+", "_", domain)[:100] or "unknown"
        key = hashlib.blake2b((url or str(adapter.get("text", ""))).encode("utf-8"),
                              digest_size=8).hexdigest()
        return Path(safe_domain) / f"{key}.txt"

    def write_document(self, item: Any) -> None:
        """Write the text file and its index line."""
        adapter = ItemAdapter(item)
        rel = self.path_for(adapter)
        target = self.directory / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        text = str(adapter.get("text") or "")
        target.write_text(text + "\n", encoding=self.text_encoding)
        comments = str(adapter.get("comments") or "")
        comments_path = target.with_suffix(".comments.txt")
        if comments:
            comments_path.write_text(comments + "\n", encoding=self.text_encoding)
        else:  # a page crawled again whose comments are gone
            comments_path.unlink(missing_ok=True)
        row = "\t".join([rel.as_posix(), _tsv_field(adapter.get("url")),
                         _tsv_field(adapter.get("title")), _tsv_field(adapter.get("language"))])
        self.file.write((row + "\n").encode(self.text_encoding))



class VerticalExporter(CleaningExporterMixin, BaseItemExporter):
    """The (pre)vertical format of corpus tools (Sketch Engine, CWB, SpiderLing).

    ::

        <doc url="https://…" title="…" lang="en" domain="…" date="…">
        <p>
        First paragraph.
        </p>
        <comments>
        <p>
        A reader's comment.
        </p>
        </comments>
        </doc>

    Attribute values and text are XML-escaped.  With ``tokens=True`` (FEEDS
    ``item_export_kwargs``) each paragraph is written one token per line, the
    input CWB's ``cwb-encode`` expects; by default a paragraph is one line, to
    be tokenized by the corpus tool.  ``fields_to_export`` picks the
    attributes (``language`` is written as ``lang``).  A document's reader comments (its
    ``comments`` field) follow its text inside ``<comments>``, so a corpus tool can index
    or leave out the structure.
    """

    def __init__(self, file: IO[bytes], *, tokens: bool = False,
                 stage: ExportStage | None = None, **kwargs: Any) -> None:
        BaseItemExporter.__init__(self, **kwargs)
        self.file = file
        self.text_encoding: str = self.encoding or "utf-8"
        self.tokens = bool(tokens)
        self._own_stage = stage

    def _attributes(self, adapter: ItemAdapter) -> list[tuple[str, str]]:
        fields = self.fields_to_export or VERTICAL_ATTRIBUTES_DEFAULT
        names = fields.items() if isinstance(fields, dict) else (
            (f, VERTICAL_ATTRIBUTES_DEFAULT.get(f, f)) for f in fields
            if f not in ("text", "comments"))
        return [(attr, " ".join(str(adapter.get(field) or "").split()))
                for field, attr in names]

    def render(self, item: Any) -> str:
        """The vertical text of one document."""
        adapter = ItemAdapter(item)
        attrs = "".join(f' {name}="{escape(value, _QUOTE)}"'
                        for name, value in self._attributes(adapter))
        lines = [f"<doc{attrs}>", *self._paragraphs(str(adapter.get("text") or ""))]
        comments = self._paragraphs(str(adapter.get("comments") or ""))
        if comments:
            lines += ["<comments>", *comments, "</comments>"]
        lines.append("</doc>")
        return "\n".join(lines) + "\n"

    def _paragraphs(self, text: str) -> list[str]:
        """The ``<p>`` elements of a text's paragraphs (one per line)."""
        lines: list[str] = []
        for paragraph in text.split("\n"):
            paragraph = paragraph.strip()
            if not paragraph:
                continue
            lines.append("<p>")
            if self.tokens:
                lines.extend(escape(tok) for tok in _TOKEN_RE.findall(paragraph))
            else:
                lines.append(escape(paragraph))
            lines.append("</p>")
        return lines

    def write_document(self, item: Any) -> None:
        """Write one ``<doc>`` element."""
        self.file.write(self.render(item).encode(self.text_encoding))



class TeiExporter(CleaningExporterMixin, BaseItemExporter):
    """TEI P5 XML: one ``teiCorpus`` holding one ``TEI`` element per cleaned document
    (:mod:`corpuscrawl.formats.tei`; ``-O corpus.xml:tei``).

    Headings, lists, tables, quotations and code come from each line's role, found at
    extraction when a ``tei`` feed is configured (:func:`corpuscrawl.pagetext.extraction.structure_wanted`).
    """

    def __init__(self, file: IO[bytes], *, title: str = "corpuscrawl corpus",
                 stage: ExportStage | None = None, **kwargs: Any) -> None:
        BaseItemExporter.__init__(self, **kwargs)
        self.file = file
        self.title = title
        self._own_stage = stage

    def start_exporting(self) -> None:
        """Write the XML declaration, the ``teiCorpus`` start and its header."""
        from datetime import datetime

        self.file.write(corpus_start(self.title, datetime.now(UTC).isoformat(
            timespec="seconds")))

    def write_document(self, item: Any) -> None:
        """Write one document as a ``TEI`` element."""
        if not isinstance(item, Document):
            return
        fields = ItemAdapter(item).asdict()
        structure = fields.get("structure") or []
        element = tei_document(fields, decode_roles(structure, item.text),
                               decode_roles(structure, item.comments))
        self.file.write(tei_string(element) + b"\n")

    def finish_exporting(self) -> None:
        """Write the documents released at the end, then close the ``teiCorpus``."""
        super().finish_exporting()
        self.file.write(CORPUS_END)
