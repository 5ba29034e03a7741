"""Labelling tool: render a page, list its elements with the model's guess, accept or correct.

Source: Komporday's thesis, part III §9.2.2 — the training set is built by hand, and a
tool (there a Chromium extension) should make that quick.  Ours renders the
page in headless Chromium, runs the interaction loop so that elements that
appear only after reveals or scrolls are listed too, and shows each distinct
element with the current model's guess.  In the terminal one key accepts the
guess or picks another label; ``export`` writes the guesses as JSON Lines for
bulk correction in an editor.  Both append to the output set (one set grows
page by page) in the training-record format of :mod:`corpuscrawl.browse.elements`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TextIO

from corpuscrawl.browse.classifier import ElementClassifier
from corpuscrawl.browse.elements import LABELS, ElementRecord, feature_matrix
from corpuscrawl.browse.interaction import InteractionOptions, PageInteraction, prepare_page

#: One key per label in the interactive prompt.
KEYS = {"r": "Revealer", "i": "Inner", "o": "Outer", "c": "Closer", "l": "LanguageSelection",
        "x": "Other"}
PROMPT = "[Enter] accept  r/i/o/c/l/x relabel  s skip  q save and quit > "


async def page_elements(url: str, model: ElementClassifier,
                        options: InteractionOptions | None = None) -> list[ElementRecord]:
    """Render ``url`` and return every distinct element seen, each with the model's guess."""
    from playwright.async_api import async_playwright

    from corpuscrawl.browse.browser import launch_chromium

    seen: dict[tuple, ElementRecord] = {}

    def guess(records: Sequence[ElementRecord]) -> list[str]:
        labels = model.predict(records)
        for record, label in zip(records, labels, strict=True):
            key = (record.html, record.text, tuple(feature_matrix([record])[0]))
            if key not in seen:
                record.label = label
                seen[key] = record
        return labels

    async with async_playwright() as pw:
        browser = await launch_chromium(pw)
        try:
            page = await browser.new_page()
            await prepare_page(page)
            await page.goto(url, wait_until="load")
            await PageInteraction(page, guess, options or InteractionOptions(max_scrolls=2)).run()
        finally:
            await browser.close()
    return list(seen.values())


def describe(record: ElementRecord, number: int, total: int) -> str:
    """A short, one-screen description of an element for the prompt."""
    href = record.attributes.get("href")
    layout = record.layout
    where = ", ".join(name for name in ("fixed", "in_dialog", "in_nav", "in_footer")
                      if layout.get(name)) or "in page"
    lines = [f"[{number}/{total}] <{record.tag}> {record.text[:80]!r}",
             f"    {'href=' + href[:100] if href is not None else 'no href'}; {where}; "
             f"{'visible' if layout.get('visible', True) else 'hidden'}",
             f"    {record.html[:160]}",
             f"    guess: {record.label}"]
    return "\n".join(lines)


def label_interactively(records: Sequence[ElementRecord], ask: Callable[[str], str] = input,
                        out: TextIO | None = None,
                        save: Callable[[ElementRecord], None] | None = None,
                        ) -> list[ElementRecord]:
    """Ask for each record's label; returns the labelled records (skipped ones left out).

    ``save`` is called with each record as soon as it is labelled, so an answer is kept
    whatever ends the dialogue: ``q``, the end of the input (``EOFError``: returns what
    was labelled) or Ctrl-C (``KeyboardInterrupt`` is raised on, the answers given saved)."""
    import sys

    out = out or sys.stdout
    labelled: list[ElementRecord] = []

    def keep(record: ElementRecord) -> None:
        labelled.append(record)
        if save is not None:
            save(record)

    for number, record in enumerate(records, 1):
        print(describe(record, number, len(records)), file=out)
        while True:
            try:
                answer = ask(PROMPT).strip().lower()
            except EOFError:  # input ended (Ctrl-D, a closed pipe): keep what was given
                print(file=out)
                return labelled
            if answer == "q":
                return labelled
            if answer == "s":
                break
            if answer == "" and record.label in LABELS:
                keep(record)
                break
            if answer in KEYS:
                record.label = KEYS[answer]
                keep(record)
                break
            print(f"    unknown answer {answer!r}; keys: "
                  + ", ".join(f"{k}={v}" for k, v in KEYS.items()), file=out)
    return labelled


class RecordAppender:
    """Appends records to a JSON Lines set one at a time, each flushed to the OS at once
    (a context manager; the file is opened on the first record)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.written = 0
        self._file: TextIO | None = None

    def __call__(self, record: ElementRecord) -> None:
        """Append one record now."""
        if self._file is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file = self.path.open("a", encoding="utf-8")
        self._file.write(json.dumps(record.to_dict(), ensure_ascii=False) + "\n")
        self._file.flush()
        self.written += 1

    def __enter__(self) -> RecordAppender:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._file is not None:
            self._file.close()


def append_records(records: Sequence[ElementRecord], path: Path) -> int:
    """Append records to a JSON Lines set (created if missing); returns how many were written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as fh:
        for record in records:
            fh.write(json.dumps(record.to_dict(), ensure_ascii=False) + "\n")
    return len(records)
