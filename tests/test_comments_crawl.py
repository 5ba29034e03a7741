"""``CORPUSCRAWL_COMMENTS`` in real crawls: reader comments in their own field (default), at
the end of the text, or dropped; a bad value stops the crawl at start naming the key; the
exporters write the field."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from corpuscrawl.cli import main
from corpuscrawl.export.scrapy_glue.exporters import TextDirectoryExporter, VerticalExporter
from corpuscrawl.items import Document, content_hash
from tests.crawl_helpers import run_crawl, stat
from tests.local_server import LocalServer, Reply, article

DATA = Path(__file__).parent / "data" / "comments"
POST = (DATA / "blog-post.html").read_text(encoding="utf-8")
COMMENTS = ["I walked past the cranes last week and they look wonderful again, the new paint "
            "is exactly the old green.",
            "My grandfather drove the left crane in the fifties. He would have loved to see it "
            "lift again, thank you all.",
            "Count me in for a Saturday in April, I can bring a welder and some patience."]
ARTICLE_LINE = "The boilers were the hardest part."
UI = ["Leave a Reply", "says:", "March 3, 2012 at 10:15 am", "Required fields"]


def _site() -> LocalServer:
    return LocalServer({
        "/": Reply(article("Harbour notes index", ["/post", "/plain"])),
        "/post": Reply(POST),
        "/plain": Reply(article("Lighthouse open days", words=200)),
    })


def _crawl(tmp_path: Path, *args: str, **settings: str) -> tuple[dict[str, dict], str, int]:
    with _site() as site:
        docs, log, code = run_crawl(tmp_path / "out.jsonl", f"seeds={site.url}", "depth=1",
                                    *args, settings={"CORPUSCRAWL_EXTRACTOR": "auto",
                                                     **settings}, timeout=240)
        return {d["url"].rsplit("/", 1)[-1]: d for d in docs}, log, code


@pytest.mark.slow
def test_comments_in_their_own_field_by_default(tmp_path):
    docs, log, code = _crawl(tmp_path)
    assert code == 0, log[-3000:]
    post = docs["post"]
    assert ARTICLE_LINE in post["text"]
    assert post["comments"].split("\n") == COMMENTS
    assert not any(c in post["text"] for c in COMMENTS)
    assert not any(u in post["comments"] for u in UI)
    assert post["content_hash"] == content_hash(post["text"])  # the article's identity
    assert docs["plain"]["comments"] == ""  # the field is always there
    assert stat(log, "corpuscrawl/documents_with_comments") == 1


@pytest.mark.slow
def test_comments_at_the_end_of_the_text_as_a_spider_argument(tmp_path):
    docs, log, code = _crawl(tmp_path, "comments=text", CORPUSCRAWL_COMMENTS="drop")
    assert code == 0, log[-3000:]
    post = docs["post"]
    article, sep, tail = post["text"].partition("\n\n")
    assert sep and ARTICLE_LINE in article
    assert tail.split("\n") == COMMENTS
    assert post["comments"] == ""
    assert "\n\n" not in docs["plain"]["text"]


@pytest.mark.slow
def test_comments_dropped(tmp_path):
    docs, log, code = _crawl(tmp_path, CORPUSCRAWL_COMMENTS="drop")
    assert code == 0, log[-3000:]
    post = docs["post"]
    assert ARTICLE_LINE in post["text"] and post["comments"] == ""
    assert not any(c in post["text"] for c in COMMENTS)


@pytest.mark.parametrize(("args", "settings", "named"), [
    ((), {"CORPUSCRAWL_COMMENTS": "keep"}, "CORPUSCRAWL_COMMENTS"),
    (("comments=yes",), {}, "spider argument comments"),
])
def test_a_bad_value_stops_the_crawl_at_start_naming_it(tmp_path, args, settings, named):
    with _site() as site:
        docs, log, code = run_crawl(tmp_path / "out.jsonl", f"seeds={site.url}", *args,
                                    settings=settings, timeout=120)
        assert site.log == []  # nothing fetched
    assert docs == []
    assert f"{named} must be one of field, text, drop" in log


NEW_COMMENT = ("<li class=\"comment\"><div class=\"comment-author\"><b>Dee</b> says:</div>"
               "<div class=\"comment-content\"><p>The winter photos of the cranes in the snow "
               "were the best part, please post more of them.</p></div></li>")


@pytest.mark.slow
@pytest.mark.parametrize(("mode", "exported"), [("field", False), ("text", True)])
def test_a_new_comment_alone_changes_the_page_only_when_comments_are_text(tmp_path, mode,
                                                                          exported):
    """The recrawl's "changed" is over the text: a new comment re-exports the page only when
    comments are part of it."""
    bodies = {"post": POST}
    site = LocalServer({"/": Reply(article("Harbour notes index", ["/post"])),
                        "/post": lambda hit: Reply(bodies["post"])})
    settings = {"CORPUSCRAWL_EXTRACTOR": "auto", "CORPUSCRAWL_STATE_DIR": str(tmp_path / "st"),
                "CORPUSCRAWL_BOILERPLATE_HISTORY": str(tmp_path / "h.sqlite3")}
    with site:
        runs = []
        for run in ("first", "second"):
            docs, log, code = run_crawl(tmp_path / f"{run}.jsonl", f"seeds={site.url}",
                                        "depth=1", "collection=cranes", f"comments={mode}",
                                        settings=settings, timeout=240)
            assert code == 0, log[-3000:]
            runs.append({d["url"].rsplit("/", 1)[-1]: d for d in docs})
            bodies["post"] = POST.replace("</ol>", NEW_COMMENT + "</ol>")
    assert runs[0]["post"]["change"] == "new"
    assert ("post" in runs[1]) is exported
    if exported:
        assert runs[1]["post"]["change"] == "changed" and "winter photos" in runs[1]["post"]["text"]
    else:  # fetched and extracted again, its text the same
        assert stat(log, "corpuscrawl/recrawl/unchanged") >= 1


@pytest.mark.slow
def test_a_warc_replay_places_the_comments_anew(tmp_path):
    """The WARC keeps the page; ``corpuscrawl extract --comments text`` puts the comments a
    crawl wrote to its field into the text."""
    docs, log, code = _crawl(tmp_path, CORPUSCRAWL_WARC_DIR=str(tmp_path / "warc"))
    assert code == 0, log[-3000:]
    assert docs["post"]["comments"].split("\n") == COMMENTS
    out = tmp_path / "replayed.jsonl"
    files = sorted((tmp_path / "warc").glob("*.warc.gz"))
    assert main(["extract", "-e", "auto", "--comments", "text", *map(str, files),
                 "-o", str(out)]) == 0
    replayed = {json.loads(line)["url"].rsplit("/", 1)[-1]: json.loads(line)
                for line in out.read_text(encoding="utf-8").splitlines()}
    post = replayed["post"]
    assert post["comments"] == "" and post["text"].endswith("\n\n" + "\n".join(COMMENTS))
    assert post["text"].startswith(docs["post"]["text"])


def _doc(**kw: str) -> Document:
    return Document(url="http://127.0.0.1/post", domain="127.0.0.1", title="Cranes",
                    text="First paragraph.\nSecond paragraph.", **kw)


def test_the_vertical_format_writes_comments_in_their_own_structure():
    out = VerticalExporter(io.BytesIO()).render(_doc(comments="Nice & true.\nThanks!"))
    assert out.endswith("<p>\nSecond paragraph.\n</p>\n<comments>\n<p>\nNice &amp; true.\n"
                        "</p>\n<p>\nThanks!\n</p>\n</comments>\n</doc>\n")
    assert "<comments>" not in VerticalExporter(io.BytesIO()).render(_doc())


def test_the_text_directory_writes_comments_beside_the_text(tmp_path):
    exporter = TextDirectoryExporter(io.BytesIO(), directory=tmp_path)
    exporter.start_exporting()
    exporter.write_document(_doc(comments="Nice.\nThanks!"))
    (text_file,) = tmp_path.glob("*/*[0-9a-f].txt")
    comments_file = text_file.with_suffix(".comments.txt")
    assert comments_file.read_text(encoding="utf-8") == "Nice.\nThanks!\n"
    exporter.write_document(_doc())  # crawled again, its comments gone
    assert text_file.is_file() and not comments_file.exists()
