"""Per-collection crawl state: where it lives, resume after a kill, incremental recrawls.

A *collection* is one named corpus that a crawl builds and later recrawls.  Its
state (frontier, seen requests, exported documents, per-URL validators and text
hashes, domain boilerplate history) lives in one directory, chosen by
:func:`corpuscrawl.crawlstate.state_paths.state_dir`.

Resume after a kill (one SQLite file, ``state.sqlite3``, committed in step with
the feed files):

* ``store`` — the state database and its batched, durable commits;
* ``runs`` — run generations: resume an interrupted run or start a new one (``RunInfo``);
* ``frontier`` — the durable Scrapy scheduler and duplicate filter;
* ``completion`` — when a request is done (its output exported or queued);
* ``ledger`` — documents written once per generation, feeds repaired on resume;
* ``hosts`` — each host's robots.txt and error-page probe, not asked again on a resume;
* ``requests_json`` — requests as JSON (``Request.to_dict``), never pickle;
* ``addon`` — the Scrapy add-on that wires them (``run_info(crawler)``).
"""
