"""Crawling JavaScript-built pages (Komporday's thesis, part III:
András Komporday, "Tartalomkinyerés futásidőben generált weblapokról", Pázmány Péter
Catholic University, 2016).

* :mod:`~corpuscrawl.browse.elements` — actionable elements and their features
* :mod:`~corpuscrawl.browse.hrefs` — where an element leads: href kinds, redirect proxies
* :mod:`~corpuscrawl.browse.classifier` — the decision tree (Revealer, Inner, Outer,
  Closer, LanguageSelection, Other): the predictor, loaded from a JSON model in ``models/``
* :mod:`~corpuscrawl.browse.interaction` — the reveal / close / scroll loop on a page
* :mod:`~corpuscrawl.browse.waiting` — waiting until a live page has settled
* :mod:`~corpuscrawl.browse.links` — links to follow, alternates
* :mod:`~corpuscrawl.browse.render` — render=never|always|auto, scrapy-playwright add-on
* :mod:`~corpuscrawl.browse.decision` — ``render=auto``: evidence per page, experience per site
* :mod:`~corpuscrawl.browse.experience` — the per-site experience, kept across crawls
* :mod:`~corpuscrawl.browse.localsite` — local HTTP servers for tests and benchmarks
* :mod:`~corpuscrawl.browse.static` — the plain page: overlays to drop, reveal controls
* :mod:`~corpuscrawl.browse.rendered` — one rendered page for the crawl (close, retry)

Building the training set and training the model (offline, never at crawl time) live in
:mod:`corpuscrawl.learn.labeling` and :mod:`corpuscrawl.learn.element_trainer` (the estimator
``ElementClassifierEstimator``: the predictor plus ``fit``).
"""
