"""Link normalisation speed: ``normalize_url`` over the links of a menu-heavy site.

200 pages, each with the same 40 menu links and 10 links of its own (with a
tracking parameter) — the shape of a news site's link stream.  Run it on two
checkouts side by side to compare: ``PYTHONPATH=CHECKOUT python benchmarks/url_check.py``.
"""

from __future__ import annotations

import argparse
import timeit
from pathlib import Path


def main(argv: list[str] | None = None) -> None:
    """Print links/s of ``normalize_url`` of the corpuscrawl on ``PYTHONPATH``."""
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args(argv)
    import corpuscrawl
    from corpuscrawl.net.urls import normalize_url

    repo = Path(corpuscrawl.__file__).resolve().parent.parent

    menu = [f"https://www.example.com/section/{i}/" for i in range(40)]
    pages = [menu + [f"https://www.example.com/news/{p}/story-{j}.html?utm_source=x&id={j}"
                     for j in range(10)] for p in range(200)]
    seconds = timeit.timeit(lambda: [normalize_url(u) for links in pages for u in links],
                            number=1)
    print(f"{repo}: {200 * 50 / seconds:,.0f} links/s")


if __name__ == "__main__":
    main()
