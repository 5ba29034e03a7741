"""An lxml or libxml2 release other than the one the native walks were built against: the
Python walks and lookups run, with one warning per native module that reads lxml's tree
(the collapsed-DOM walk, the page-type walk), and every extractor gives the same output.

Each case runs in a fresh interpreter whose ``lxml.etree`` reports another release before
corpuscrawl is imported (as after ``pip install -U lxml`` without a rebuild); its outputs
are compared with this process's, where the native walk is in use.
"""

from __future__ import annotations

import functools
import json
import subprocess
import sys
from pathlib import Path

import pytest
from lxml import etree

from corpuscrawl.extract import get_extractor
from corpuscrawl.extract.meta.title import extract_title
from corpuscrawl.extract.segment import cdom
from corpuscrawl.html.page import Page

pytestmark = pytest.mark.skipif(not cdom.accelerated(),
                                reason=f"the native walk is not in use: "
                                       f"{cdom.accelerator_problem()}")

#: Extractors whose work goes through the collapsed-DOM walk or the title lookups.
EXTRACTORS = ("auto", "sequence", "segment-svm", "bte")

CHILD = r"""
import json, logging, sys
from lxml import etree
attribute, version = sys.argv[1], tuple(json.loads(sys.argv[2]))
setattr(etree, attribute, version)
records = []
class Keep(logging.Handler):
    def emit(self, record):
        records.append(record.getMessage())
logging.getLogger("corpuscrawl").addHandler(Keep())
logging.getLogger("corpuscrawl").setLevel(logging.WARNING)
from corpuscrawl.extract import get_extractor
from corpuscrawl.extract.meta.title import extract_title
from corpuscrawl.extract.segment import cdom
from corpuscrawl.html.page import Page
names, files = json.loads(sys.argv[3]), json.loads(sys.argv[4])
out = {"accelerated": cdom.accelerated(), "outputs": {}}
extractors = [get_extractor(n) for n in names]
for f in files:
    html = open(f, encoding="utf-8").read()
    page = Page.from_html(html, "http://example.com/a")
    out["outputs"][f] = [extract_title(page)] + [extractor.extract(
        Page.from_html(html, "http://example.com/a")) for extractor in extractors]
out["warnings"] = [m for m in records if "Python" in m and "rebuild" in m]
print(json.dumps(out))
"""


@functools.cache
def outputs_here(files: tuple[str, ...]) -> dict[str, list[str]]:
    """Title and extractor outputs of ``files`` in this process (native walk in use; the
    same for every case, so computed once)."""
    extractors = [get_extractor(n) for n in EXTRACTORS]
    out = {}
    for f in files:
        html = Path(f).read_text(encoding="utf-8")
        page = Page.from_html(html, "http://example.com/a")
        out[f] = [extract_title(page)] + [extractor.extract(
            Page.from_html(html, "http://example.com/a")) for extractor in extractors]
    return out


def another_release(attribute: str) -> tuple[int, ...]:
    """The running lxml's (or libxml2's) version with its minor release moved on."""
    running = getattr(etree, attribute)
    return (running[0], running[1] + 1, *(0,) * (len(running) - 2))


@pytest.mark.slow
@pytest.mark.parametrize("attribute", ["LXML_VERSION", "LIBXML_VERSION"])
def test_another_release_runs_the_python_walks_with_a_warning_each(data_dir, attribute) -> None:
    files = sorted(str(p) for p in (data_dir / "extractors").glob("*.html"))
    assert files
    run = subprocess.run(
        [sys.executable, "-c", CHILD, attribute, json.dumps(another_release(attribute)),
         json.dumps(EXTRACTORS), json.dumps(files)],
        capture_output=True, text=True, timeout=240, cwd=Path(__file__).parent.parent)
    assert run.returncode == 0, run.stderr[-3000:]
    child = json.loads(run.stdout.strip().splitlines()[-1])
    assert child["accelerated"] is False
    warnings = child["warnings"]
    assert len(warnings) == 2 and all("was built against lxml" in w for w in warnings), warnings
    assert any(w.startswith("collapsed-DOM walk") for w in warnings), warnings
    assert any("page_typing._ptwalk" in w for w in warnings), warnings
    assert child["outputs"] == outputs_here(tuple(files))
