"""A built wheel, installed into a fresh environment, carries everything the code loads.

The sdist is built from a copy of the sources and the wheel from that sdist
(``python -m build``), so both build paths are covered.  Everything then runs
from a directory outside the repository with nothing pointing at the checkout:
``corpuscrawl extract -e auto``, the element classifier of ``render=auto``, the
shipped templates, the demo crawl, and the user's override directories taking
precedence over the shipped copies.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tarfile
import zipfile
from pathlib import Path

import pytest

from corpuscrawl.extract.learned.block_features import BLOCKTEXT_API
from tests.packaging_helpers import REPO, clean_env

# the installed package (``installed``, tests/conftest.py) is built once, on one worker,
# for this module and tests/test_scrapyd_redeploy.py
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("installed_package")]

SHIPPED_MODELS = sorted(p.name for p in (REPO / "models").iterdir() if p.is_file())
SHIPPED_TEMPLATES = sorted(p.name for p in (REPO / "templates").iterdir() if p.is_file())


def run(installed: dict[str, Path], *cmd: str, **env: str) -> subprocess.CompletedProcess:
    """Run a command of the installed environment in the work directory."""
    exe = cmd[0] if "/" in cmd[0] else str(installed["venv"] / "bin" / cmd[0])
    return subprocess.run([exe, *cmd[1:]], cwd=installed["work"], capture_output=True, text=True,
                          timeout=300, env=clean_env(**env))


def python(installed: dict[str, Path], code: str, **env: str) -> str:
    """Run Python code in the installed environment; its stdout (asserting success)."""
    proc = run(installed, str(installed["python"]), "-c", code, **env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def test_sdist_and_wheel_carry_models_cards_and_templates(installed):
    with tarfile.open(installed["sdist"]) as tar:
        names = {Path(n).relative_to(Path(n).parts[0]).as_posix() for n in tar.getnames()
                 if len(Path(n).parts) > 1}
    assert {f"models/{n}" for n in SHIPPED_MODELS} <= names
    assert {f"templates/{n}" for n in SHIPPED_TEMPLATES} <= names
    assert {"deploy/scrapyd.conf", "deploy/corpuscrawl-schedule", "deploy/crontab",
            "deploy/systemd/corpuscrawl-crawl@.timer"} <= names
    wheel_names = set(zipfile.ZipFile(installed["wheel"]).namelist())
    assert {f"corpuscrawl/data/models/{n}" for n in SHIPPED_MODELS} <= wheel_names
    assert {f"corpuscrawl/data/templates/{n}" for n in SHIPPED_TEMPLATES} <= wheel_names
    assert any(n.endswith(".md") for n in SHIPPED_MODELS), "model cards are shipped too"
    metadata = next(n for n in wheel_names if n.endswith(".dist-info/METADATA"))
    text = zipfile.ZipFile(installed["wheel"]).read(metadata).decode()
    assert "Provides-Extra: server" in text
    assert any(line.startswith("Requires-Dist: scrapyd") and "extra == \"server\"" in line
               for line in text.splitlines())
    entry_points = next(n for n in wheel_names if n.endswith(".dist-info/entry_points.txt"))
    assert "[scrapy]\nsettings = corpuscrawl.settings" in \
        zipfile.ZipFile(installed["wheel"]).read(entry_points).decode()


def test_package_and_its_data_come_from_the_installed_environment(installed):
    out = python(installed, "import corpuscrawl, corpuscrawl.resources.shipped as s; "
                            "print(corpuscrawl.__file__); print(s.shipped_dir('models')); "
                            "print(s.shipped_dir('templates'))").split()
    venv = str(installed["venv"].resolve())
    assert all(line.startswith(venv) for line in out), out
    assert out[1].endswith("corpuscrawl/data/models")


def test_extract_auto_from_the_installed_package(installed):
    dataset = installed["work"] / "dataset"
    (dataset / "html").mkdir(parents=True)
    shutil.copy(REPO / "tests/data/extractors/article.html", dataset / "html" / "article.html")
    proc = run(installed, "corpuscrawl", "extract", "-e", "auto", "-o", "out", "--no-progress",
               "-j", "1", str(dataset))
    assert proc.returncode == 0, proc.stderr[-3000:]
    text = (installed["work"] / "out" / "auto" / "article.txt").read_text(encoding="utf-8")
    assert "station keepers again at three remote lighthouses" in text
    assert "Most read" not in text


def test_render_auto_loads_the_installed_element_classifier(installed):
    code = """
import json
from scrapy.settings import Settings
from corpuscrawl.browse.render import RenderPlan
from corpuscrawl.browse.rendered import Renderer
from corpuscrawl.learn.element_trainer import read_jsonl
from corpuscrawl.resources.shipped import find_model, models_dir
renderer = Renderer(RenderPlan.from_args(Settings(), render="auto"))
records = read_jsonl(models_dir() / "elements-train.jsonl")
predicted = renderer.classifier.predict(records)
right = sum(p == r.label for p, r in zip(predicted, records))
print(json.dumps({"path": str(find_model("element-classifier.json")),
                  "accuracy": right / len(records), "n": len(records)}))
"""
    result = json.loads(python(installed, code))
    assert result["path"].startswith(str(installed["venv"].resolve()))
    assert result["n"] > 100 and result["accuracy"] > 0.8  # the shipped tree on its training set


def test_shipped_template_applies_and_user_templates_come_first(installed):
    code = """
import sys
from scrapy.settings import Settings
from corpuscrawl.pagetext.rules import DomainRules
rules = DomainRules.from_settings(Settings({"CORPUSCRAWL_TEMPLATES_DIR": sys.argv[1]}))
print(rules.for_url("https://hr.wikipedia.org/wiki/Alder").template)
print(rules.for_url("https://news.example.org/a").template)
"""
    user = installed["work"] / "my-templates"
    user.mkdir(exist_ok=True)
    proc = run(installed, str(installed["python"]), "-c", code, str(user))
    assert proc.returncode == 0, proc.stderr
    wiki, other = proc.stdout.split()
    assert wiki.startswith(str(installed["venv"].resolve())) and wiki.endswith("wikipedia.org.txt")
    assert other == "None"
    (user / "wikipedia.org.txt").write_text("article\n", encoding="utf-8")
    (user / "example.org.txt").write_text("main\n", encoding="utf-8")
    proc = run(installed, str(installed["python"]), "-c", code, str(user))
    assert proc.stdout.split() == [str(user / "wikipedia.org.txt"), str(user / "example.org.txt")]


def test_models_dir_environment_overrides_the_shipped_models(installed, tmp_path):
    code = ("from corpuscrawl.resources.shipped import find_model; "
            "print(find_model('element-classifier.json')); print(find_model('auto.skops'))")
    shutil.copy(REPO / "models" / "element-classifier.json", tmp_path / "element-classifier.json")
    own, shipped = python(installed, code, CORPUSCRAWL_MODELS_DIR=str(tmp_path)).split()
    assert own == str(tmp_path / "element-classifier.json")
    assert shipped.startswith(str(installed["venv"].resolve()))  # not overridden: shipped copy


def test_demo_crawl_from_the_installed_package(installed):
    proc = run(installed, "corpuscrawl", "crawl", "-o", "corpus.jsonl", "-a", "max_pages=3",
               "-s", "LOG_LEVEL=INFO", "-a", "extractor=auto")
    assert proc.returncode == 0, proc.stderr[-3000:]
    docs = [json.loads(line) for line in
            (installed["work"] / "corpus.jsonl").read_text(encoding="utf-8").splitlines()]
    assert docs and all(d["extractor"] == "auto" and d["text"] for d in docs)
    assert "corpuscrawl/data/models/auto.skops" in proc.stderr


def test_new_models_are_never_written_into_the_installed_package(installed, tmp_path):
    code = "from corpuscrawl.learn.model_files import model_path; print(model_path('mine'))"
    proc = run(installed, str(installed["python"]), "-c", code)
    assert proc.returncode != 0 and "Set CORPUSCRAWL_MODELS_DIR" in proc.stderr
    assert python(installed, code, CORPUSCRAWL_MODELS_DIR=str(tmp_path)).strip() == \
        str(tmp_path / "mine.skops")


def test_c_accelerators_are_built_and_in_use(installed):
    """The wheel built from the sdist compiles the collapsed-DOM walk against lxml's headers
    (lxml is a build requirement) and the installed lxml is one it accepts; it compiles the
    block text statistics from their Cython source too, and they are the ones in use."""
    out = python(installed, "from corpuscrawl.extract.segment import cdom; "
                            "print(cdom.accelerator_problem())")
    assert out.strip() == "None", out
    names = zipfile.ZipFile(installed["wheel"]).namelist()
    assert any(n.startswith("corpuscrawl/extract/learned/_blocktext.") and n.endswith(".so")
               for n in names), names
    out = python(installed, "from corpuscrawl.extract.learned import block_features as bf; "
                            "print(bf._blocktext.__file__, bf._blocktext.API)")
    path, api = out.split()
    assert path.startswith(str(installed["venv"])) and api == str(BLOCKTEXT_API), out


def test_the_lxml_walks_build_from_their_shared_declarations(installed):
    """The sdist carries the ``.pxd`` both lxml walks cimport, the wheel built from it holds
    the two compiled walks and no Cython source, and the page-type walk is in use."""
    with tarfile.open(installed["sdist"]) as tar:
        assert any(n.endswith("corpuscrawl/extract/_lxml_nodes.pxd") for n in tar.getnames())
    names = zipfile.ZipFile(installed["wheel"]).namelist()
    for module in ("segment/_cdom.", "page_typing/_ptwalk."):
        assert any(n.startswith(f"corpuscrawl/extract/{module}") and n.endswith(".so")
                   for n in names), names
    assert not [n for n in names if n.endswith((".pyx", ".pxd"))]
    out = python(installed, "from corpuscrawl.extract.page_typing import page_type_features as f; "
                            "print(f._ptwalk.__file__)")
    assert out.strip().startswith(str(installed["venv"])), out
