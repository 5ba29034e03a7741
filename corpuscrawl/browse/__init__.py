"""Crawling JavaScript-built pages (Komporday's thesis, part III:
András Komporday, "Tartalomkinyerés futásidőben generált weblapokról", Pázmány Péter
Catholic University, 2016).

* :mod:`~corpuscrawl.browse.elements` — actionable elements, href kinds, features
* :mod:`~corpuscrawl.browse.classifier` — the decision tree (Revealer, Inner, Outer,
  Closer, LanguageSelection, Other), JSON model in ``models/``
* :mod:`~corpuscrawl.browse.interaction` — the reveal / close / scroll loop on a page
* :mod:`~corpuscrawl.browse.links` — links to follow, alternates
* :mod:`~corpuscrawl.browse.render` — render=never|always|auto, scrapy-playwright add-on
* :mod:`~corpuscrawl.browse.decision` — ``render=auto``: evidence per page, experience per site
* :mod:`~corpuscrawl.browse.static` — the plain page: overlays to drop, reveal controls
* :mod:`~corpuscrawl.browse.rendered` — one rendered page for the crawl (close, retry)

Building the training set and training the model (offline, never at crawl time) live in
:mod:`corpuscrawl.learn.labeling` and :mod:`corpuscrawl.learn.elements`.
"""
