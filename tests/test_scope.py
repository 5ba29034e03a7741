"""Crawl scope (corpuscrawl/net/scope.py): allow/deny rules, blocklist, per-domain cap; real crawls."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corpuscrawl.net.scope import Scope, ScopeError, split_patterns
from corpuscrawl.pagetext.rules import DomainRules, RulesError, load_rules_file
from tests.crawl_helpers import run_crawl, stat
from tests.local_server import LocalServer, Reply, article


@pytest.mark.parametrize("value, patterns", [
    ("/news/,/blog/", ["/news/", "/blog/"]),
    (r"/\d{2,4}/,x", [r"/\d{2,4}/", "x"]),
    (r"a\,b,c", ["a,b", "c"]),
    ("(a|b),[,;]", ["(a|b)", "[,;]"]),
    ("", []),
    (["/x/", " "], ["/x/"]),
])
def test_split_patterns_keeps_commas_inside_expressions(value: str, patterns: list[str]) -> None:
    assert split_patterns(value) == patterns


def test_verdicts(tmp_path: Path) -> None:
    blocklist = tmp_path / "block.txt"
    blocklist.write_text("# ads and a private corner\nads.example.com\n"
                         "https://example.com/private/  # staff only\n", encoding="utf-8")
    scope = Scope.build("/news/,/blog/", r"\?replytocom=", str(blocklist))
    assert scope.verdict("https://example.com/news/1") == ""
    assert scope.verdict("https://example.com/about") == "allow"
    assert scope.verdict("https://example.com/about", seed=True) == ""  # seeds are fetched
    assert scope.verdict("https://example.com/news/1?replytocom=3") == "deny"
    assert scope.verdict("https://example.com/private/news/") == "blocklist"
    assert scope.verdict("https://x.ads.example.com/news/") == "blocklist"
    assert scope.verdict("https://example.com/private/news/", seed=True) == "blocklist"


def test_per_domain_rules_and_cap(tmp_path: Path) -> None:
    rules_file = tmp_path / "rules.toml"
    rules_file.write_text('[domains."example.com"]\nallow = ["/articles/"]\ndeny = ["/print/"]\n'
                          'max_pages = 1\n', encoding="utf-8")
    scope = Scope.build(max_pages_per_domain=5, rules=DomainRules(load_rules_file(rules_file)))
    assert scope.verdict("https://www.example.com/articles/a") == ""
    assert scope.verdict("https://sub.example.com/other") == "allow"
    assert scope.verdict("https://example.com/articles/print/a") == "deny"
    assert scope.verdict("https://other.org/anything") == ""
    scope.count_document("https://example.com/articles/a")
    assert scope.verdict("https://example.com/articles/b") == "domain_cap"  # its own cap: 1
    for _ in range(5):
        scope.count_document("https://other.org/x")
    assert scope.verdict("https://other.org/y") == "domain_cap"  # the crawl-wide cap: 5


def test_bad_rules_name_their_source(tmp_path: Path) -> None:
    with pytest.raises(ScopeError, match=r"argument allow: '\(unclosed' is not a regular"):
        Scope.build("(unclosed", names=("argument allow", "deny", "blocklist"))
    with pytest.raises(ScopeError, match="cannot read"):
        Scope.build(blocklist=str(tmp_path / "missing.txt"))
    bad = tmp_path / "block.txt"
    bad.write_text("not a host!\n", encoding="utf-8")
    with pytest.raises(ScopeError, match="line 1"):
        Scope.build(blocklist=str(bad))
    rules = tmp_path / "rules.toml"
    rules.write_text('[domains."example.com"]\ndeny = "/print/"\n', encoding="utf-8")
    with pytest.raises(RulesError, match="deny must be list"):
        load_rules_file(rules)


def _site() -> LocalServer:
    paths = ["/news/1", "/news/2", "/news/3", "/blog/1", "/blog/2", "/tag/rivers", "/private/x"]
    routes: dict[str, Reply] = {"/": Reply(article("Front page", paths))}
    topics = ["Harbour", "Orchard", "Glacier", "Lantern", "Meadow", "Quarry", "Violin"]
    for path, topic in zip(paths, topics, strict=True):  # texts far apart: no near-duplicates
        routes[path] = Reply(article(f"{topic} {topic.lower()}s and {topic.lower()}keepers"))
    return LocalServer(routes)


def _paths(docs: list[dict], base: str) -> set[str]:
    return {"/" + d["url"][len(base):] for d in docs}


def test_crawl_follows_only_what_the_rules_allow(tmp_path: Path) -> None:
    blocklist = tmp_path / "blocklist.txt"
    with _site() as site:
        blocklist.write_text(f"{site.url}news/3\n", encoding="utf-8")
        out = tmp_path / "corpus.jsonl"
        docs, log, code = run_crawl(out, f"seeds={site.url}", "allow=/news/,/blog/",
                                    r"deny=/blog/\d{1}$", f"blocklist={blocklist}",
                                    settings={"CORPUSCRAWL_EXTRACTOR": "bte"})
        fetched = set(site.paths())
    assert code == 0, log[-2000:]
    assert _paths(docs, site.url) == {"/", "/news/1", "/news/2"}
    assert not fetched & {"/news/3", "/blog/1", "/blog/2", "/tag/rivers", "/private/x"}
    assert stat(log, "corpuscrawl/scope/allow") == 2
    assert stat(log, "corpuscrawl/scope/deny") == 2
    assert stat(log, "corpuscrawl/scope/blocklist") == 1
    summary = json.loads(Path(f"{out}.summary.json").read_text())
    assert summary["scope"] == {"dropped": 5, "by_rule": {"allow": 2, "deny": 2, "blocklist": 1}}


def test_crawl_per_domain_cap_and_rules_file(tmp_path: Path) -> None:
    with _site() as site:
        out = tmp_path / "capped.jsonl"
        docs, log, code = run_crawl(out, f"seeds={site.url}", "max_pages_per_domain=3",
                                    settings={"CORPUSCRAWL_EXTRACTOR": "bte"})
        assert code == 0, log[-2000:]
        assert len(docs) == 3
        summary = json.loads(Path(f"{out}.summary.json").read_text())
        assert summary["scope"]["by_rule"].get("domain_cap", 0) >= 1
        rules = tmp_path / "rules.toml"
        rules.write_text('[domains."127.0.0.1"]\ndeny = ["/news/", "/private/"]\n', encoding="utf-8")
        out2 = tmp_path / "ruled.jsonl"
        docs2, log2, code2 = run_crawl(out2, f"seeds={site.url}",
                                       settings={"CORPUSCRAWL_EXTRACTOR": "bte",
                                                 "CORPUSCRAWL_RULES_FILE": str(rules)})
    assert code2 == 0, log2[-2000:]
    assert _paths(docs2, site.url) == {"/", "/blog/1", "/blog/2", "/tag/rivers"}
    assert stat(log2, "corpuscrawl/scope/deny") == 4


def test_bad_scope_argument_stops_the_crawl(tmp_path: Path) -> None:
    with _site() as site:
        docs, log, code = run_crawl(tmp_path / "c.jsonl", f"seeds={site.url}", "deny=(oops")
        assert not site.paths()
    assert code != 0 and not docs
    assert "argument deny: '(oops' is not a regular expression" in log
