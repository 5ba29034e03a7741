"""Build hook for the optional C accelerators of the export stage.

Everything else is declared in pyproject.toml.  The extensions are optional:
when they cannot be built (no compiler or Python headers) the install still
succeeds and the modules they speed up use their pure-Python/numpy code, which
gives the same output (tests/test_boilerplate_fold.py and tests/test_dedup.py
compare the two).
"""

from setuptools import Extension, setup

setup(ext_modules=[
    Extension("corpuscrawl.boilerplate._fold",
              ["corpuscrawl/boilerplate/_fold.c", "corpuscrawl/boilerplate/_blake2b.c"],
              optional=True),
    Extension("corpuscrawl._minhash", ["corpuscrawl/_minhash.c"], optional=True),
])
