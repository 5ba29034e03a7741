"""``corpuscrawl label``: label a page's elements for the element classifier's training set.

    corpuscrawl label https://example.com/article -o my-set.jsonl            # interactive
    corpuscrawl label https://example.com/article -o my-set.jsonl --export   # guesses, edit later

The page is rendered in Chromium (the interaction loop runs, so elements that
appear after reveals and scrolls are listed too).  Records are appended to
``-o`` in the training-record format (see ``corpuscrawl/browse/elements.py``);
retrain with ``python -m corpuscrawl.learn.element_trainer train --set my-set.jsonl``.
Each answer is appended as soon as it is given, so the end of the input (Ctrl-D, a
closed pipe) or Ctrl-C loses none.
Exit codes: 0 done, 2 bad arguments or model, 1 the page could not be rendered,
130 interrupted (Ctrl-C; the answers given are kept).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

from corpuscrawl.browse.classifier import DEFAULT_MODEL_NAME, ModelError, load_classifier


def register(subparsers: Any) -> None:
    """Add the ``label`` subcommand."""
    p = subparsers.add_parser(
        "label", help="label a rendered page's elements (Revealer, Inner, Outer, Closer, ...)",
        description=__doc__.split("\n\n")[0])
    p.add_argument("url", help="page to render and label")
    p.add_argument("-o", "--output", type=Path, required=True,
                   help="JSON Lines training set to append to")
    p.add_argument("--export", action="store_true",
                   help="write the model's guesses without asking (correct them in an editor)")
    p.add_argument("--model", default=DEFAULT_MODEL_NAME,
                   help="element-classifier model name in models/ or path (for the guesses)")
    p.add_argument("--max-scrolls", type=int, default=2,
                   help="scrolls before listing elements (default 2)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Render, guess, label (or export) and append to the output set."""
    from playwright.async_api import Error as PlaywrightError

    from corpuscrawl.browse.browser import BrowserNotFoundError
    from corpuscrawl.browse.interaction import InteractionOptions
    from corpuscrawl.learn.labeling import (
        RecordAppender,
        append_records,
        label_interactively,
        page_elements,
    )

    if not args.url.startswith(("http://", "https://")):
        print(f"corpuscrawl label: {args.url!r} is not an http(s) URL", file=sys.stderr)
        return 2
    try:
        model = load_classifier(args.model)
    except ModelError as exc:
        print(f"corpuscrawl label: {exc}", file=sys.stderr)
        return 2
    try:
        records = asyncio.run(page_elements(args.url, model,
                                            InteractionOptions(max_scrolls=args.max_scrolls)))
    except (PlaywrightError, BrowserNotFoundError) as exc:
        print(f"corpuscrawl label: cannot render {args.url}: {exc}", file=sys.stderr)
        return 1
    if args.export:
        written = append_records(records, args.output)
    else:  # each answer is appended as it is given: an interruption loses none
        with RecordAppender(args.output) as save:
            try:
                label_interactively(records, save=save)
            finally:
                print(f"appended {save.written} element(s) to {args.output}", file=sys.stderr)
        return 0
    print(f"appended {written} element(s) to {args.output}", file=sys.stderr)
    return 0
