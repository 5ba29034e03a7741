"""Each C accelerator, when built, is the one its Python code uses (same interface), and a
build of another version of its source is not called."""

from __future__ import annotations

import importlib
import logging
import sys
import types

import pytest

from corpuscrawl.extract.learned import block_features, forest, title_features
from corpuscrawl.extract.page_typing import page_type_features
from corpuscrawl.extract.segment import cdom
from corpuscrawl.resources.accelerators import accelerator

#: accelerator module -> (the Python module using it, its attribute, the interface it calls)
USERS = {
    "corpuscrawl.extract.learned._forest": (forest, "_forest", forest.FOREST_API),
    "corpuscrawl.extract.learned._blocktext": (block_features, "_blocktext",
                                               block_features.BLOCKTEXT_API),
    "corpuscrawl.extract.segment._cdom": (cdom, "_cdom", cdom.CDOM_API),
    "corpuscrawl.extract.page_typing._ptwalk": (page_type_features, "_ptwalk",
                                                page_type_features.PTWALK_API),
}


@pytest.mark.parametrize("name", sorted(USERS))
def test_a_built_accelerator_is_the_one_in_use(name: str) -> None:
    built = pytest.importorskip(name, reason="the optional C accelerator is not built")
    user, attribute, api = USERS[name]
    assert api == built.API, f"{name} was built from another version: rebuild it"
    assert getattr(user, attribute) is built
    if name.endswith("_blocktext"):
        assert title_features._blocktext is built


def test_a_build_of_another_interface_is_not_used(monkeypatch, caplog) -> None:
    stale = types.ModuleType("corpuscrawl._stale_accelerator")
    stale.API = 1
    monkeypatch.setitem(sys.modules, stale.__name__, stale)
    with caplog.at_level(logging.WARNING, logger="corpuscrawl.resources.accelerators"):
        assert accelerator(stale.__name__, 2) is None
    assert "rebuild it" in caplog.text
    assert accelerator(stale.__name__, 1) is stale
    del stale.API  # a build from before interfaces were numbered
    assert accelerator(stale.__name__, 1) is None
    assert accelerator("corpuscrawl._no_such_accelerator", 1) is None
    assert importlib.util.find_spec("corpuscrawl._no_such_accelerator") is None
