"""Which paragraphs of a document are its domain's boilerplate.

Source: NewsFeed (Trampuš & Novak), end: notices "do not change or change very
infrequently, they would be easy to detect" given the previous articles of
the domain; the site-level methods the spec cites (Bar-Yossef & Rajagopalan,
Site Style Tree, Gibson et al.) share the idea that blocks repeated across a
site's pages are template.  A paragraph is boilerplate of its domain when

1. **history** — its normalized form occurs in at least ``min_documents``
   distinct documents of the domain *and* in at least ``min_fraction`` of the
   domain's documents (the document being judged counts: it was observed
   first); a sentence of *prose* (:func:`is_prose`: at least ``prose_words``
   words ending like a sentence) needs more, at least ``prose_min_documents``
   documents and ``prose_min_fraction`` of the domain's documents; and a
   sentence of prose of at least ``figures_words`` words whose figures are
   its own (:func:`figures_fingerprint`: too few documents hold it with the
   same figures for the prose thresholds) and that stands in the text's flow (a
   sentence of prose that is kept comes before or after it, see
   ``figures_flow``) is never history boilerplate, or
2. **template** — it was seen on one of the domain's HTTP error pages, or
3. **prior** — it is a short copyright / rights-reserved / cookie line, share
   prompt or newsletter box (:mod:`corpuscrawl.boilerplate.patterns`); this
   works on a domain's very first page.

A paragraph the caller names as the document's own (its headline, given as
``keep``) is never removed: a headline recurs on listing pages and in other
stories' "related" lists as often as template text does.

Why prose is held to more: after number folding, sentences that differ only
in figures ("Shares rose 3.2 percent to 45.10" / "... 1.1 percent to 44.30")
are one paragraph, and sites repeat such sentences in market reports, results
and weather stories — two or three stories of a large domain, far below what
a template line reaches (nearly every page, or one page in k for a prompt
rotating over k variants).  Template lines that read like sentences (share
prompts, newsletter boxes, notices) are the prior's; a long notice is on
nearly every page and still reaches the prose thresholds.

A share alone cannot tell them apart, though: a market report's closing line
("Shares of the ferry operator closed at 40 crowns, up 2 percent ...") or a
weather line can be in half of a news site's stories.  What can: a template
line is written by the page's template, so it is the same in every document
or in a few variants (a rotating prompt, the copyright year), and it stands
with the page's chrome, at the edges of the text, next to other template
lines; a sentence of a story differs in its figures from story to story and
stands between the story's other sentences.  The history therefore also
counts each long sentence of prose with figures under a second fingerprint
that keeps its figures, and such a sentence is kept when this document's
figures are its own and a kept sentence of prose neighbours it.  "Its own"
is judged by the prose thresholds, as if numbers were not folded: two stories
of the same week may print the same fuel price, and their sentence is no more
a template's than a quote two stories share.  Chosen by
measurement (``benchmarks/results/boilerplate.md``, "figures").

Deviation from the source: NewsFeed gives no rule, only the observation; the
rule and its defaults were chosen by measurement on the benchmark datasets
grouped by domain (``benchmarks/boilerplate.py``, results in
``benchmarks/results/boilerplate.md``).

A domain is *warm* when it has ``warm_documents`` documents in the history:
before that a repeated paragraph cannot yet have reached the thresholds, so
the export stage (:mod:`corpuscrawl.export.stage`) holds the domain's
documents until it is warm.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from corpuscrawl.boilerplate.figures import figures_fingerprint
from corpuscrawl.boilerplate.history import DomainHistory, ParagraphStats
from corpuscrawl.boilerplate.normalize import Paragraph, split_paragraphs
from corpuscrawl.boilerplate.patterns import (
    PATTERN_MAX_WORDS_DEFAULT,
    notice_candidates,
    notice_kind,
)

__all__ = [
    "MIN_DOCUMENTS_DEFAULT",
    "MIN_FRACTION_DEFAULT",
    "PROSE_MIN_DOCUMENTS_DEFAULT",
    "PROSE_MIN_FRACTION_DEFAULT",
    "PROSE_WORDS_DEFAULT",
    "WARM_DOCUMENTS_DEFAULT",
    "Cleaned",
    "Detector",
    "DetectorConfig",
    "FIGURES_FLOWS",
    "FIGURES_WORDS_DEFAULT",
    "Verdict",
    "figures_fingerprint",
    "is_prose",
]

#: A paragraph must occur in at least this many distinct documents of its domain: the
#: value of the largest mean F1 gain on the benchmark's repeating domains, train and
#: test part alike (benchmarks/results/boilerplate.md).
MIN_DOCUMENTS_DEFAULT = 2
#: ... and in at least this share of the domain's documents, so that in a large
#: domain two pages sharing a paragraph (a quote repeated in a follow-up, a wire
#: paragraph) do not make it boilerplate.  Low shares give the same gain on the
#: benchmark domains, where min_documents binds (benchmarks/results/boilerplate.md);
#: 0.05 keeps a prompt rotating among up to 20 variants removable in a large domain.
MIN_FRACTION_DEFAULT = 0.05
#: Documents a domain needs in the history before its pages are judged (cold start):
#: past where prompts stop leaking on the synthetic domain and the gain on the benchmark
#: domains equals judging at the end (benchmarks/results/boilerplate.md), with a margin
#: for sites with more variants.
WARM_DOCUMENTS_DEFAULT = 20
#: Words from which a paragraph ending like a sentence counts as prose (see the module
#: docstring; chosen in benchmarks/results/boilerplate.md, "prose rule").
PROSE_WORDS_DEFAULT = 4
#: Fewest documents a sentence of prose must be in to be history boilerplate ...
PROSE_MIN_DOCUMENTS_DEFAULT = 2
#: ... and the share of the domain's documents it must be in.
PROSE_MIN_FRACTION_DEFAULT = 0.2
#: Words from which a sentence of prose whose figures are its own is not history
#: boilerplate when it stands in the text's flow (0: never; see the module docstring;
#: chosen in benchmarks/results/boilerplate.md, "figures").
FIGURES_WORDS_DEFAULT = 6
#: Where a kept sentence of prose must stand for a sentence with its own figures to be
#: kept: "both" sides, "either" side (the default, measured), or "any" (anywhere:
#: its own figures suffice).
FIGURES_FLOWS = ("both", "either", "any")
#: Characters a sentence ends with (before closing quotes and brackets); an ellipsis is
#: a cut teaser, not the end of a sentence.
_SENTENCE_ENDS = frozenset(".!?。！？")
_CLOSERS = " \"'”’»)]"


def is_prose(paragraph: Paragraph, min_words: int = PROSE_WORDS_DEFAULT) -> bool:
    """True for a paragraph of at least ``min_words`` words that ends like a sentence.

    A line cut short with an ellipsis ("…", "...") is not: that is a teaser.
    """
    if paragraph.words < min_words:
        return False
    text = paragraph.text.rstrip(_CLOSERS)
    return bool(text) and text[-1] in _SENTENCE_ENDS and not text.endswith("...")


@dataclass(frozen=True, slots=True)
class DetectorConfig:
    """Thresholds of the detector (see the module docstring)."""

    min_documents: int = MIN_DOCUMENTS_DEFAULT
    min_fraction: float = MIN_FRACTION_DEFAULT
    warm_documents: int = WARM_DOCUMENTS_DEFAULT
    use_patterns: bool = True
    pattern_max_words: int = PATTERN_MAX_WORDS_DEFAULT
    prose_words: int = PROSE_WORDS_DEFAULT
    prose_min_documents: int = PROSE_MIN_DOCUMENTS_DEFAULT
    prose_min_fraction: float = PROSE_MIN_FRACTION_DEFAULT
    figures_words: int = FIGURES_WORDS_DEFAULT
    figures_flow: str = "either"

    def __post_init__(self) -> None:
        if self.figures_words < 0:
            raise ValueError(f"figures_words must be >= 0, got {self.figures_words}")
        if self.figures_flow not in FIGURES_FLOWS:
            raise ValueError(f"figures_flow must be one of {', '.join(FIGURES_FLOWS)}, "
                             f"got {self.figures_flow!r}")
        if self.min_documents < 1:
            raise ValueError(f"min_documents must be >= 1, got {self.min_documents}")
        if self.prose_min_documents < 1:
            raise ValueError(f"prose_min_documents must be >= 1, got {self.prose_min_documents}")
        if not 0.0 <= self.prose_min_fraction <= 1.0:
            raise ValueError(
                f"prose_min_fraction must be within [0, 1], got {self.prose_min_fraction}")
        if self.prose_words < 1:
            raise ValueError(f"prose_words must be >= 1, got {self.prose_words}")
        if not 0.0 <= self.min_fraction <= 1.0:
            raise ValueError(f"min_fraction must be within [0, 1], got {self.min_fraction}")
        if self.warm_documents < 0:
            raise ValueError(f"warm_documents must be >= 0, got {self.warm_documents}")


class Verdict(NamedTuple):
    """Why a paragraph is boilerplate: "history", "template" or a prior kind; None = content."""

    paragraph: Paragraph
    reason: str | None

    @property
    def boilerplate(self) -> bool:
        """True when the paragraph is to be removed."""
        return self.reason is not None


@dataclass(frozen=True, slots=True)
class Cleaned:
    """A document's text with its boilerplate removed, and what was removed."""

    text: str
    removed: tuple[Paragraph, ...]

    @property
    def removed_hashes(self) -> list[str]:
        """Hex fingerprints of the removed paragraphs, in document order.

        :func:`fingerprint_hex` of each, computed as one hex string cut in 16s.
        """
        fps = [p.fingerprint for p in self.removed]
        digits = struct.pack(f">{len(fps)}q", *fps).hex()
        return [digits[i:i + 16] for i in range(0, len(digits), 16)]


class Detector:
    """Judges paragraphs against a :class:`DomainHistory` (observe first, then judge)."""

    def __init__(self, history: DomainHistory, config: DetectorConfig | None = None) -> None:
        self.history = history
        self.config = config or DetectorConfig()

    def observe(self, domain: str, doc_key: int, paragraphs: Sequence[Paragraph]) -> bool:
        """Record a document in the domain's history (False when it was already counted)."""
        return self.history.observe(domain, doc_key, self._counted(paragraphs))

    def figure_markers(self, paragraphs: Iterable[Paragraph]) -> list[Paragraph]:
        """What the history counts besides the paragraphs: one pseudo-paragraph (no text,
        :func:`figures_fingerprint` as its fingerprint) per sentence of prose of at least
        ``figures_words`` words that holds figures."""
        least = self.config.figures_words
        if not least:
            return []
        prose_words = self.config.prose_words
        out = []
        for p in paragraphs:
            if p.words >= least and is_prose(p, prose_words):
                fp = figures_fingerprint(p)
                if fp is not None:
                    out.append(Paragraph("", "", fp))
        return out

    def fingerprints(self, paragraphs: Iterable[Paragraph]) -> set[int]:
        """Every fingerprint the history holds for these paragraphs (theirs and the
        figures fingerprints of :meth:`figure_markers`): what a look-up to judge them needs."""
        paragraphs = list(paragraphs)
        return {p.fingerprint for p in (*paragraphs, *self.figure_markers(paragraphs))}

    def _counted(self, paragraphs: Sequence[Paragraph]) -> Sequence[Paragraph]:
        markers = self.figure_markers(paragraphs)
        return [*paragraphs, *markers] if markers else paragraphs

    def record(self, domain: str, doc_key: int, paragraphs: Sequence[Paragraph],
               judge: bool = True) -> tuple[int, dict[int, ParagraphStats] | None]:
        """Record a document; return the domain's document count afterwards and, when
        ``judge`` and the domain is then warm, its :meth:`boilerplate_stats` (else None).

        One call to the history, which can find the stats while counting; the
        count is what :meth:`is_warm` and :meth:`history_floor` read, so the
        export stage passes it on to spare the history a query per use.
        """
        def floor(documents: int) -> float | None:
            if not self.is_warm(domain, documents):
                return None
            return self.history_floor(domain, documents)

        return self.history.record(domain, doc_key, self._counted(paragraphs),
                                   floor if judge else None)

    def is_warm(self, domain: str, documents: int | None = None) -> bool:
        """True when the domain has enough documents in its history to judge its pages.

        ``documents``: the domain's document count when already known.
        """
        if documents is None:
            documents = self.history.document_count(domain)
        return documents >= self.config.warm_documents

    def history_floor(self, domain: str, documents: int | None = None) -> float:
        """Fewest documents of ``domain`` a paragraph must be in to be history boilerplate.

        Both thresholds of rule 1 at once (``min_documents`` and
        ``min_fraction`` of the domain's documents so far, ``documents`` when
        already known).
        """
        if documents is None:
            documents = self.history.document_count(domain)
        cfg = self.config
        return max(cfg.min_documents, cfg.min_fraction * documents)

    def prose_floor(self, documents: int) -> float:
        """Fewest documents of a domain with ``documents`` documents a sentence of prose
        must be in to be history boilerplate (never below :meth:`history_floor`)."""
        cfg = self.config
        return max(cfg.min_documents, cfg.min_fraction * documents, cfg.prose_min_documents,
                   cfg.prose_min_fraction * documents)

    def boilerplate_stats(self, domain: str, fingerprints: Iterable[int],
                          documents: int | None = None) -> dict[int, ParagraphStats]:
        """History stats of those of ``fingerprints`` that rule 1 or 2 makes boilerplate now.

        Enough to judge (a paragraph absent here is content unless the prior
        flags it) and several times cheaper to fetch than every paragraph's
        stats.  ``documents``: the domain's document count when already known.
        """
        return self.history.lookup(domain, fingerprints, self.history_floor(domain, documents))

    def is_history_boilerplate(self, stats: ParagraphStats, domain_documents: int,
                               paragraph: Paragraph | None = None) -> bool:
        """Rule 1 of the module docstring for one paragraph's stats (the prose thresholds
        when ``paragraph`` is given and is prose)."""
        cfg = self.config
        if paragraph is not None and is_prose(paragraph, cfg.prose_words):
            return stats.documents >= self.prose_floor(domain_documents)
        return (stats.documents >= cfg.min_documents
                and stats.documents >= cfg.min_fraction * domain_documents)

    def notices(self, paragraphs: Sequence[Paragraph]) -> list[str | None]:
        """The prior's verdict per paragraph (all None when the prior is off).

        One scan of the whole text finds the few lines that can contain a
        notice keyword at all; only those are matched against the patterns.
        """
        out: list[str | None] = [None] * len(paragraphs)
        if not self.config.use_patterns or not paragraphs:
            return out
        for index in notice_candidates([p.text for p in paragraphs]):
            out[index] = notice_kind(paragraphs[index].text, self.config.pattern_max_words)
        return out

    def judge(self, domain: str, paragraphs: Sequence[Paragraph],
              notices: Sequence[str | None] | None = None,
              stats: dict[int, ParagraphStats] | None = None,
              keep: frozenset[int] = frozenset()) -> list[Verdict]:
        """One verdict per paragraph, in order.

        ``notices`` (:meth:`notices`) and ``stats`` (from :meth:`record`) may be
        passed when already known; otherwise they are computed / looked up.
        ``keep``: fingerprints of the document's own paragraphs (its headline),
        never boilerplate.
        """
        if stats is None:
            stats = self.history.lookup(domain, self.fingerprints(paragraphs))
        total = self.history.document_count(domain)
        if notices is None:
            notices = self.notices(paragraphs)
        reasons: list[str | None] = []
        for p, notice in zip(paragraphs, notices, strict=True):
            reason: str | None = notice
            known = stats.get(p.fingerprint)
            if known is not None:
                if known.template:
                    reason = "template"
                elif self.is_history_boilerplate(known, total, p):
                    reason = "history"
            reasons.append(None if p.fingerprint in keep else reason)
        candidates = [i for i, r in enumerate(reasons) if r == "history"]
        if candidates and self.config.figures_words:
            kept = [r is None for r in reasons]
            for i in self._own_figures(paragraphs, kept, candidates, stats,
                                       self.prose_floor(total)):
                reasons[i] = None
        return [Verdict(p, r) for p, r in zip(paragraphs, reasons, strict=True)]

    def clean_paragraphs(self, domain: str, paragraphs: Sequence[Paragraph],
                         notices: Sequence[str | None] | None = None,
                         stats: dict[int, ParagraphStats] | None = None,
                         documents: int | None = None,
                         keep: frozenset[int] = frozenset()) -> Cleaned:
        """Remove the boilerplate paragraphs; the rest keep their order.

        The rules of :meth:`judge`, without building a verdict per paragraph
        (this runs for every exported document).  ``documents``: the domain's
        document count when already known; ``keep`` as for :meth:`judge`.
        """
        if stats is None:
            stats = self.history.lookup(domain, self.fingerprints(paragraphs))
        if notices is None:
            notices = self.notices(paragraphs)
        if documents is None:
            documents = self.history.document_count(domain)
        # is_history_boilerplate: documents >= both bounds (prose: both prose bounds too)
        least = self.history_floor(domain, documents)
        prose_least = self.prose_floor(documents)
        prose_words = self.config.prose_words
        figures_words = self.config.figures_words or 1 << 30
        flags: list[bool] = []
        candidates: list[int] = []
        get = stats.get
        for index, (p, notice) in enumerate(zip(paragraphs, notices, strict=True)):
            known = get(p.fingerprint)
            if (p.fingerprint in keep
                    or (notice is None
                        and (known is None
                             or not (known.template
                                     or (known.documents >= least
                                         and (known.documents >= prose_least
                                              or not is_prose(p, prose_words))))))):
                flags.append(True)
            else:
                flags.append(False)
                # removed by the prose thresholds alone: maybe a sentence with its own figures
                if notice is None and not known.template and p.words >= figures_words:
                    candidates.append(index)
        if candidates:
            for index in self._own_figures(paragraphs, flags, candidates, stats, prose_least):
                flags[index] = True
        kept = [p.text for p, flag in zip(paragraphs, flags, strict=True) if flag]
        removed = tuple(p for p, flag in zip(paragraphs, flags, strict=True) if not flag)
        return Cleaned("\n".join(kept), removed)

    def _own_figures(self, paragraphs: Sequence[Paragraph], kept: Sequence[bool],
                     candidates: Sequence[int], stats: dict[int, ParagraphStats],
                     least: float) -> list[int]:
        """Those of ``candidates`` (indexes of sentences of prose removed as history
        boilerplate) that are kept after all: at least ``figures_words`` words, figures
        their own (their :func:`figures_fingerprint` in fewer than ``least`` documents: the
        prose floor, :meth:`prose_floor`) and
        standing in the text's flow (``figures_flow``: a kept sentence of prose before and
        after them, or on either side, past other such sentences; "any": anywhere).

        ``kept``: per paragraph, whether it is kept so far."""
        cfg = self.config
        own: set[int] = set()
        for index in candidates:
            p = paragraphs[index]
            if p.words < cfg.figures_words or not is_prose(p, cfg.prose_words):
                continue
            fp = figures_fingerprint(p)
            if fp is None:
                continue
            known = stats.get(fp)
            if known is None or known.documents < least:
                own.add(index)
        if not own or cfg.figures_flow == "any":
            return sorted(own)

        def anchored(index: int, step: int) -> bool:
            """A kept sentence of prose next to ``index`` in direction ``step``, past others
            of ``own``."""
            index += step
            while 0 <= index < len(paragraphs):
                if index not in own:
                    return kept[index] and is_prose(paragraphs[index], cfg.prose_words)
                index += step
            return False

        if cfg.figures_flow == "both":
            return [index for index in sorted(own)
                    if anchored(index, -1) and anchored(index, 1)]
        return [index for index in sorted(own) if anchored(index, -1) or anchored(index, 1)]

    def clean(self, domain: str, text: str) -> Cleaned:
        """Remove the boilerplate from a text without recording it (judge only)."""
        return self.clean_paragraphs(domain, split_paragraphs(text))
