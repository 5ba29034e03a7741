"""One way to choose languages: ``-a languages=`` and ``CORPUSCRAWL_LANGUAGES`` are the same value,
and the language filter drops documents in other languages whichever way they were named."""

from __future__ import annotations

import json
import random

import pytest

from tests.crawl_helpers import run_crawl
from tests.local_server import LocalServer, Reply

CROATIAN = (
    "Grad je u ponedjeljak objavio da će novi proračun za lučke radove biti odobren nakon "
    "što inženjeri završe pregled staroga mosta i seoske škole. Stanovnici su pitali "
    "gradonačelnika o željezničkim vezama, čekanju u bolnici i budućnosti gradske knjižnice, "
    "koju volonteri drže otvorenom otkako su studenti započeli istraživanje obale i šume. "
    "Ove je godine zima bila duga, a berba kasna, pa su seljaci zabrinuti zbog cijena.")
ENGLISH = (
    "The council said on Monday that the new budget for the harbour works would be approved "
    "after engineers finished their survey of the old bridge and the village school. "
    "Residents asked the mayor about railway services, hospital waiting times and the future "
    "of the town library, which volunteers have kept open since students began a study of "
    "the coastline and the forest. The winter was long this year and the harvest late.")


def _paragraphs(text: str, seed: str) -> list[str]:
    """Three paragraphs of ``text``'s words, shuffled per page (no two pages near-duplicates)."""
    rng = random.Random(seed)
    out = []
    for _ in range(3):
        words = text.split()
        rng.shuffle(words)
        out.append(" ".join(words))
    return out


def _page(title: str, text: str, links: list[str], lang: str) -> str:
    anchors = "".join(f'<li><a href="{h}">Story {h.strip("/")}</a></li>' for h in links)
    return (f'<html lang="{lang}"><head><title>{title}</title></head><body><article>'
            f"<h1>{title}</h1>" + "".join(f"<p>{p}</p>" for p in _paragraphs(text, title))
            + f"</article><ul>{anchors}</ul></body></html>")


def _site() -> dict[str, Reply]:
    pages = {f"/hr{i}/": Reply(_page(f"Vijest {i}", CROATIAN, [], "hr")) for i in range(3)}
    pages.update({f"/en{i}/": Reply(_page(f"Story {i}", ENGLISH, [], "en")) for i in range(4)})
    pages["/"] = Reply(_page("Naslovnica", CROATIAN, sorted(pages), "hr"))
    return pages


def _crawl(tmp_path, args: list[str], settings: dict[str, str]) -> tuple[list[dict], dict]:
    with LocalServer(_site()) as server:
        out = tmp_path / "out.jsonl"
        docs, log, code = run_crawl(out, f"seeds={server.url}", "sitemaps=0", "feeds=0", *args,
                                    settings=settings)
    assert code == 0, log[-3000:]
    summary = json.loads(out.with_name(out.name + ".summary.json").read_text(encoding="utf-8"))
    return docs, summary


@pytest.mark.parametrize(("args", "settings"), [
    (["languages=hr", "language_filter=1"], {}),
    (["languages=hr"], {"CORPUSCRAWL_LANGUAGE_FILTER": "True"}),
    ([], {"CORPUSCRAWL_LANGUAGES": "hr", "CORPUSCRAWL_LANGUAGE_FILTER": "True"}),
    (["languages=hr", "language_filter=1"], {"CORPUSCRAWL_LANGUAGES": "en"}),  # argument wins
], ids=["arguments", "argument-and-filter-setting", "settings", "argument-over-setting"])
def test_the_filter_keeps_target_languages_however_they_are_named(tmp_path, args, settings) -> None:
    docs, summary = _crawl(tmp_path, args, settings)
    assert sorted(d["language"] for d in docs) == ["hr"] * 4
    assert summary["documents"]["dropped_language"] == 4
    assert summary["documents"]["exported"] == 4


def test_languages_alone_prefer_and_drop_nothing(tmp_path) -> None:
    docs, summary = _crawl(tmp_path, ["languages=hr"], {})
    assert sorted(d["language"] for d in docs) == ["en"] * 4 + ["hr"] * 4
    assert summary["documents"]["dropped_language"] == 0


def test_a_bad_language_filter_argument_is_named(tmp_path) -> None:
    with LocalServer(_site()) as server:
        _, log, code = run_crawl(tmp_path / "out.jsonl", f"seeds={server.url}",
                                 "language_filter=maybe")
    assert code != 0
    assert "language_filter" in log
