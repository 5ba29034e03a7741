"""Lost articles: pages where one method fails while another method gets the text.

Summed and per-page mean F1 hide a failure that matters most to a corpus: a
page whose article a method (nearly) drops, although the article was there to
be had.  A page counts as a *lost article* for method M when M scores
F1 < :data:`LOST_BELOW_DEFAULT` on it while some other method compared on the
same page reaches F1 ≥ :data:`OTHER_AT_LEAST_DEFAULT` (the definition the extractor comparisons use).
Pages whose gold is empty (no content to lose) never count.  The gold words
lost are M's false negatives on those pages: words of the article M did not
keep.

The comparison is relative to the methods scored together, so a count is
meaningful only beside the other methods of the same table.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from corpuscrawl.evaluation.metrics import Score

__all__ = ["LOST_BELOW_DEFAULT", "OTHER_AT_LEAST_DEFAULT", "LostArticles", "format_lost",
           "lost_articles", "lost_flags", "lost_pages_section"]

#: A method's page F1 below this is a failure on the page.
LOST_BELOW_DEFAULT = 0.5
#: ... when another method reaches at least this F1 on the same page.
OTHER_AT_LEAST_DEFAULT = 0.8


@dataclass(frozen=True, slots=True)
class LostArticles:
    """One method's lost articles among the pages it was compared on."""

    pages: int
    gold_words: int
    documents: int

    @property
    def per_200(self) -> float:
        """Lost pages per 200 pages (the bar for the default extractor is at most one)."""
        return 200 * self.pages / self.documents if self.documents else 0.0


def lost_flags(scores: Mapping[str, Sequence[Score]], below: float = LOST_BELOW_DEFAULT,
               other_at_least: float = OTHER_AT_LEAST_DEFAULT) -> dict[str, list[bool]]:
    """Per method, per page: is the page a lost article for that method?

    ``scores`` maps each method to its scores of the *same* pages in the same
    order; a method with a different number of pages raises ``ValueError``.
    """
    lengths = {len(v) for v in scores.values()}
    if len(lengths) > 1:
        raise ValueError("lost articles need every method scored on the same pages; got "
                         + ", ".join(f"{m}: {len(v)}" for m, v in scores.items()))
    n = lengths.pop() if lengths else 0
    methods = list(scores)
    out: dict[str, list[bool]] = {m: [False] * n for m in methods}
    for i in range(n):
        f1s = [scores[m][i].f1 for m in methods]
        gold = scores[methods[0]][i].tp + scores[methods[0]][i].fn
        if not gold:
            continue
        for j, m in enumerate(methods):
            if f1s[j] < below and any(f >= other_at_least for k, f in enumerate(f1s) if k != j):
                out[m][i] = True
    return out


def lost_articles(scores: Mapping[str, Sequence[Score]], below: float = LOST_BELOW_DEFAULT,
                  other_at_least: float = OTHER_AT_LEAST_DEFAULT) -> dict[str, LostArticles]:
    """Each method's :class:`LostArticles` among ``scores`` (see :func:`lost_flags`)."""
    flags = lost_flags(scores, below, other_at_least)
    return {m: LostArticles(sum(f), sum(s.fn for s, lost in zip(scores[m], f, strict=True)
                                        if lost), len(f))
            for m, f in flags.items()}


def format_lost(lost: LostArticles | None) -> str:
    """A table cell: ``pages (gold words lost)``, or ``-`` when not computed."""
    if lost is None:
        return "-"
    return f"{lost.pages} ({lost.gold_words:,})"


def lost_pages_section(per_method: Mapping[str, Sequence[Score]], doc_ids: Sequence[str],
                       methods: Sequence[str]) -> list[str]:
    """Markdown lines naming the pages each of ``methods`` lost, with its F1, the gold words
    it missed and the best other method's F1 (``per_method``: every method's scores of the
    pages ``doc_ids``, in that order)."""
    flags = lost_flags(per_method)
    lines = ["## Lost articles of the learned block models", ""]
    for m in methods:
        if m not in flags:
            continue
        pages = []
        for i, lost in enumerate(flags[m]):
            if lost:
                best = max((x for x in per_method if x != m), key=lambda x: per_method[x][i].f1)
                s = per_method[m][i]
                pages.append(f"`{doc_ids[i]}` (F1 {s.f1:.2f}, {s.fn:,} of {s.tp + s.fn:,} gold "
                             f"words missed; {best} {per_method[best][i].f1:.2f})")
        lines.append(f"- `{m}`: " + ("; ".join(pages) if pages else "none"))
    return [*lines, ""]
