"""Build hooks: the shipped data directories and the optional C accelerators.

Everything else is declared in pyproject.toml.

*Shipped data.*  ``models/`` (trained models, their cards, the element
classifier) and ``templates/`` stay at the top of the repository, where users
look at and edit them; git holds that one copy.  ``package_dir`` maps them into
the package as ``corpuscrawl.data.models`` and ``corpuscrawl.data.templates``,
so wheels, sdists (and wheels built from them) and eggs (``scrapyd-deploy``)
carry them; :mod:`corpuscrawl.resources.shipped` finds them at run time.

*Accelerators* (``auto``'s tree walks in C; in Cython, compiled to C here, its block text
statistics, over CPython's API only, and its collapsed-DOM walk, which cimports lxml's public
``etreepublic.pxd`` and ``tree.pxd`` and compiles against lxml's and libxml2's headers:
Cython and lxml are build requirements).  Eggs (``scrapyd-deploy``) are built without them
(see :class:`bdist_egg_without_extensions`).  They are optional: when they cannot be built
(no compiler or Python headers, no Cython) the install still succeeds and the modules they
speed up use their pure-Python/numpy code, which gives the same output (tests/test_forest.py,
tests/test_cdom_walk.py, tests/test_title_lookups.py and tests/test_block_text.py compare the
two).
"""

from setuptools import Extension, find_packages, setup
from setuptools.command.bdist_egg import bdist_egg

try:  # a build requirement (pyproject.toml); without it the Cython modules are not built
    from Cython.Build import cythonize
except ImportError:
    cythonize = None


class bdist_egg_without_extensions(bdist_egg):  # noqa: N801 (setuptools' command naming)
    """An egg of pure Python: Scrapyd imports eggs from the zip file, where extension
    modules cannot be loaded (their loader stubs fail); the fallbacks give the same output."""

    def run(self) -> None:
        """Build the egg with no extension modules."""
        self.distribution.ext_modules = []
        super().run()


def lxml_include_dirs() -> list[str] | None:
    """lxml's C API and libxml2 headers (the collapsed-DOM walk reads lxml's tree through
    them); None when lxml is not installed in the build environment."""
    try:
        import lxml
    except ImportError:
        return None
    return lxml.get_include()


LXML_INCLUDES = lxml_include_dirs()

def cython_extensions() -> list[Extension]:
    """The accelerators written in Cython, compiled to C here: the block text statistics
    (``_blocktext``, CPython's API only) and, with lxml in the build environment, the
    collapsed-DOM walk (``_cdom``) and the page-type features' walk (``_ptwalk``), over
    lxml's public ``.pxd`` files, which both cimport through ``extract/_lxml_nodes.pxd``
    (with the subtree step they share); none without Cython
    (the Python code then runs, same output)."""
    if cythonize is None:
        return []
    extensions = [Extension("corpuscrawl.extract.learned._blocktext",
                            ["corpuscrawl/extract/learned/_blocktext.pyx"], optional=True)]
    if LXML_INCLUDES is not None:
        extensions.append(Extension("corpuscrawl.extract.segment._cdom",
                                    ["corpuscrawl/extract/segment/_cdom.pyx"],
                                    include_dirs=LXML_INCLUDES, optional=True))
        extensions.append(Extension("corpuscrawl.extract.page_typing._ptwalk",
                                    ["corpuscrawl/extract/page_typing/_ptwalk.pyx"],
                                    include_dirs=LXML_INCLUDES, optional=True))
    built = cythonize(extensions, compiler_directives={"language_level": 3}, quiet=True)
    for extension in built:  # cythonize's copies drop `optional`: no compiler must not fail
        extension.optional = True
    return built


#: Top-level directory -> package it is installed as.
SHIPPED = {"corpuscrawl.data.models": "models",
           "corpuscrawl.data.templates": "templates"}

setup(
    packages=find_packages(include=["corpuscrawl", "corpuscrawl.*"]) + list(SHIPPED),
    package_dir=SHIPPED,
    package_data={
        "corpuscrawl.data.models": ["*.skops", "*.json", "*.jsonl", "*.md"],
        "corpuscrawl.data.templates": ["*.txt", "*.md"],
    },
    # the accelerators' sources (and the C Cython generates) belong to the sdist only
    exclude_package_data={"": ["*.c", "*.pyx", "*.pxd"]},
    cmdclass={"bdist_egg": bdist_egg_without_extensions},
    ext_modules=[
        Extension("corpuscrawl.extract.learned._forest", ["corpuscrawl/extract/learned/_forest.c"],
                  optional=True),
    ] + cython_extensions(),
)
