"""Build corpuscrawl's distributions and install them into throw-away environments.

Shared by the installed-wheel test and the Scrapyd test.  Builds run from a
copy of the sources (so the worktree gets no build/ or egg-info litter) with the
test interpreter's setuptools (``--no-isolation``: no download).  A fresh venv
gets the wheel with ``--no-deps`` and sees the dependencies of the test
interpreter's environment through a ``.pth`` line (Python does not process the
``.pth`` files of a directory added that way, so the test environment's own
editable corpuscrawl stays invisible).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
#: What a distribution is built from (everything else in the checkout is not needed).
SOURCES = ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "scrapy.cfg", "corpuscrawl",
           "models", "templates", "deploy")
_IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", "*.so", "build", "*.egg-info")


def copy_sources(dest: Path) -> Path:
    """Copy what a build needs into ``dest`` (returned)."""
    dest.mkdir(parents=True, exist_ok=True)
    for name in SOURCES:
        src = REPO / name
        if src.is_dir():
            shutil.copytree(src, dest / name, ignore=_IGNORE)
        elif src.exists():
            shutil.copy2(src, dest / name)
    return dest


def clean_env(**extra: str) -> dict[str, str]:
    """The environment without anything pointing at the checkout or a models override."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "CORPUSCRAWL_MODELS_DIR", "SCRAPY_SETTINGS_MODULE",
                        "SCRAPY_PROJECT", "PYTHONHOME")}
    env.update(extra)
    return env


def build_sdist_and_wheel(src: Path, out: Path) -> tuple[Path, Path]:
    """``python -m build``: the sdist, then the wheel built from the sdist."""
    proc = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out),
                           str(src)], capture_output=True, text=True, timeout=600,
                          env=clean_env())
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return next(out.glob("*.tar.gz")), next(out.glob("*.whl"))


def make_venv(path: Path) -> Path:
    """A fresh venv (no pip) whose imports fall back to the test environment's packages."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True,
                   timeout=120)
    python = path / "bin" / "python"
    purelib = subprocess.run([str(python), "-c", "import sysconfig; "
                              "print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    shared = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    Path(purelib, "zz_shared_dependencies.pth").write_text(
        "".join(f"{p}\n" for p in sorted(shared)), encoding="utf-8")
    return python


def pip_install(python: Path, *args: str) -> None:
    """``pip install --no-deps --no-index ARGS`` into the environment of ``python``."""
    proc = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install",
                           "--no-deps", "--no-index", "--disable-pip-version-check", "-q", *args],
                          capture_output=True, text=True, timeout=300, env=clean_env())
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]


def build_and_install(base: Path) -> dict[str, Path]:
    """Copy the sources, build sdist -> wheel, install the wheel into a fresh venv under
    ``base``; the paths of interest (``sdist``, ``wheel``, ``python``, ``venv``, and
    ``work``: an empty directory outside the repository, no scrapy.cfg, no models/ or
    templates/)."""
    sdist, wheel = build_sdist_and_wheel(copy_sources(base / "src"), base / "dist")
    python = make_venv(base / "venv")
    pip_install(python, str(wheel))
    work = base / "work"
    work.mkdir()
    return {"sdist": sdist, "wheel": wheel, "python": python, "venv": base / "venv",
            "work": work}
