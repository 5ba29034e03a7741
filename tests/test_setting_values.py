"""Whole-number settings: one check and one message, naming the key, for every component."""

from __future__ import annotations

import re

import pytest
from scrapy.settings import Settings

from corpuscrawl.config.setting_values import whole_number_setting
from corpuscrawl.export.scrapy_glue.pipelines import PipelineConfig
from corpuscrawl.spiders.traps import TrapConfig


@pytest.mark.parametrize(("raw", "minimum", "expected"), [
    (None, 0, 7), ("12", 0, 12), (3, 3, 3), ("0", 0, 0)])
def test_good_values_and_the_default(raw, minimum, expected):
    settings = Settings({} if raw is None else {"CORPUSCRAWL_X": raw})
    assert whole_number_setting(settings, "CORPUSCRAWL_X", 7, minimum) == expected


@pytest.mark.parametrize(("raw", "minimum"), [("ten", 0), ("1.5", 0), ("-1", 0), ("0", 1),
                                              ([], 0)])
def test_bad_values_name_the_key_the_bound_and_the_value(raw, minimum):
    message = f"CORPUSCRAWL_X must be a whole number >= {minimum}, got {raw!r}"
    with pytest.raises(ValueError, match=re.escape(message)):
        whole_number_setting(Settings({"CORPUSCRAWL_X": raw}), "CORPUSCRAWL_X", 7, minimum)


def test_the_pipeline_and_the_trap_guard_check_theirs_alike():
    with pytest.raises(ValueError, match="CORPUSCRAWL_MIN_TEXT_CHARS must be a whole number "
                                         ">= 1, got '0'"):
        PipelineConfig.from_settings(Settings({"CORPUSCRAWL_MIN_TEXT_CHARS": "0"}))
    with pytest.raises(ValueError, match="CORPUSCRAWL_FAILED_MAX_BYTES must be a whole number "
                                         ">= 0, got 'lots'"):
        PipelineConfig.from_settings(Settings({"CORPUSCRAWL_FAILED_MAX_BYTES": "lots"}))
    with pytest.raises(ValueError, match="CORPUSCRAWL_TRAP_MAX_RUN must be a whole number "
                                         ">= 0, got '-3'"):
        TrapConfig.from_settings(Settings({"CORPUSCRAWL_TRAP_MAX_RUN": "-3"}))
    config = PipelineConfig.from_settings(Settings({"CORPUSCRAWL_MIN_TEXT_CHARS": "40"}))
    assert config.min_text_chars == 40 and config.failed_max_bytes == 0
    assert TrapConfig.from_settings(Settings({})) == TrapConfig()
