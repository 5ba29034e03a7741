"""Build hook for the optional C accelerators (export stage, ``auto``'s tree walks).

Everything else is declared in pyproject.toml.  The extensions are optional:
when they cannot be built (no compiler or Python headers) the install still
succeeds and the modules they speed up use their pure-Python/numpy code, which
gives the same output (tests/test_boilerplate_fold.py, tests/test_dedup.py and
tests/test_forest.py compare the two).
"""

from setuptools import Extension, setup

setup(ext_modules=[
    Extension("corpuscrawl.boilerplate._fold",
              ["corpuscrawl/boilerplate/_fold.c"],
              optional=True),
    Extension("corpuscrawl.extract._forest", ["corpuscrawl/extract/_forest.c"], optional=True),
])
