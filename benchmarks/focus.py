"""Focused crawling: articles fetched within a page budget on sites where articles hide.

The site (tests/focus_site.py) has articles as 20 % of its pages, reachable only
through link-heavy tag, author, calendar and archive listings.  A crawl of it is
stopped after ``--budget`` responses (``CLOSESPIDER_PAGECOUNT``); reported: the
articles among the exported documents and among the fetched pages.  Per
extractor, a fresh crawl, and a crawl killed (SIGKILL) after half the budget
and resumed with the rest of it.  ``--repo`` runs another checkout's code (e.g.
``git worktree add /tmp/focus-old e0268fc``) on the same site.

    python benchmarks/focus.py --articles 200 --budget 200 --extractors auto,bte \
        --styles wordpress,portal,bulletin --resume
    python benchmarks/focus.py --repo /tmp/focus-old --extractors auto,bte --no-resume
"""

from __future__ import annotations

import argparse
from pathlib import Path

from tests.bulletin_site import BulletinSite
from tests.focus_site import INTERRUPTIONS, STYLES, FocusSite, measure

REPO = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--articles", type=int, default=200)
    parser.add_argument("--budget", type=int, default=200)
    parser.add_argument("--extractors", default="auto,bte")
    parser.add_argument("--styles", default="wordpress", help=f"comma-separated: {','.join(STYLES)},bulletin "
                        "(tests/bulletin_site.py: query-string ids, dated paths, endless calendar)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--related", type=int, default=0, help="related-article links per article")
    parser.add_argument("--resume", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--repo", type=Path, default=REPO, help="checkout whose code crawls")
    parser.add_argument("-s", dest="settings", action="append", default=[],
                        help="extra Scrapy setting NAME=VALUE")
    args = parser.parse_args()
    extra = [x for s in args.settings for x in ("-s", s)]
    print(f"repo {args.repo}, {args.articles} articles (20 % of pages), budget {args.budget} "
          f"responses, seed {args.seed}, related {args.related}\n")
    print("| style | extractor | run | articles exported | articles fetched | requests |")
    print("|---|---|---|---:|---:|---:|")
    for style in args.styles.split(","):
        made = BulletinSite(args.articles, args.seed) if style == "bulletin" else \
            FocusSite(args.articles, style, args.seed, args.related)
        with made as site:
            for extractor in args.extractors.split(","):
                for how in ["", *INTERRUPTIONS] if args.resume else [""]:
                    got = measure(site, extractor, args.budget, how, args.repo, tuple(extra))
                    name = f"{how} at half + resumed" if how else "fresh"
                    if how and not got.resumed:
                        name += " (did NOT resume)"
                    print(f"| {style} | {extractor} | {name} | {got.exported} | {got.fetched} | "
                          f"{got.requests} |", flush=True)


if __name__ == "__main__":
    main()
