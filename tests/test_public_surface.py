"""The names ``corpuscrawl`` exports: each resolves to its defining module's object, and
``import corpuscrawl`` loads none of them until asked."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import corpuscrawl
from corpuscrawl.extract import get_extractor
from corpuscrawl.html.page import Page
from corpuscrawl.items import Document

REPO = Path(corpuscrawl.__file__).resolve().parent.parent


def test_every_public_name_resolves_to_its_module_object() -> None:
    assert corpuscrawl.Page is Page
    assert corpuscrawl.Document is Document
    assert corpuscrawl.get_extractor is get_extractor
    for name in corpuscrawl.__all__:
        assert getattr(corpuscrawl, name) is not None, name
    assert set(corpuscrawl.__all__) <= set(dir(corpuscrawl))
    page = corpuscrawl.Page.from_html("<html><body><p>One sentence of text.</p></body></html>",
                                      url="http://www.example.or.jp/a")
    assert corpuscrawl.site_of(page.url) == "example.or.jp"


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'Pagee'"):
        _ = corpuscrawl.Pagee  # type: ignore[attr-defined]
    with pytest.raises(ImportError):
        exec("from corpuscrawl import Pagee", {})


def test_importing_the_package_loads_no_public_module() -> None:
    script = ("import sys, corpuscrawl\n"
              "print(sorted(m for m in sys.modules if m.startswith('corpuscrawl.')))\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True, cwd=REPO, timeout=120)
    assert out.stdout.strip().splitlines()[-1] == "[]"
