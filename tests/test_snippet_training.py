"""Snippet pages as partial training labels for ``auto`` (``train auto --snippets``)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from corpuscrawl.cli import main
from corpuscrawl.evaluation.snippets import score_snippets, summarize_snippets
from corpuscrawl.extract.alignment import UNKNOWN, snippet_block_labels
from corpuscrawl.extract.auto import PAIR_COLUMNS_DEFAULT, AutoExtractor, fit_auto
from corpuscrawl.extract.sequence import collect_snippet_rows, page_inputs
from corpuscrawl.extract.trainset import documents, snippet_documents
from corpuscrawl.models import load_model

U = UNKNOWN


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("CORPUSCRAWL_CACHE", str(tmp_path / "cache"))


def test_with_snippet_labels_the_blocks_it_covers():
    blocks = ["Home", "The article starts here with words.", "and goes on for a while.",
              "Share this", "Comments"]
    # The snippet covers all of block 1 and "and goes on" (11 of 24 characters, under half
    # of the block and of the 47-character snippet) of block 2.
    labels = snippet_block_labels(blocks, ["The article starts here with words. and goes on"], [])
    assert labels.tolist() == [U, 1, U, U, U]
    # Inside one block: the block holds all of the snippet.
    assert snippet_block_labels(blocks, ["goes on for a"], []).tolist() == [U, U, 1, U, U]


def test_without_snippet_needs_half_of_the_block():
    blocks = ["Share this story with your friends", "A long paragraph that happens to say "
              "share this story somewhere in the middle of its many words."]
    labels = snippet_block_labels(blocks, [], ["Share this story with your friends"])
    assert labels.tolist() == [0, U]
    assert snippet_block_labels(blocks, [], ["share this story somewhere"]).tolist() == [U, U]


def test_whitespace_is_collapsed_as_in_scoring():
    labels = snippet_block_labels(["The   whale\nskeleton is back", "Footer links here"],
                                  ["The whale skeleton"], ["Footer  links here"])
    assert labels.tolist() == [1, 0]


def test_short_repeated_missing_and_conflicting_snippets_label_nothing():
    blocks = ["Read more about it", "Read more about it", "Unique paragraph of the article",
              "Tiny"]
    assert snippet_block_labels(blocks, ["Read more about it"], []).tolist() == [U] * 4
    assert snippet_block_labels(blocks, ["Tiny"], []).tolist() == [U] * 4
    assert snippet_block_labels(blocks, ["not on this page at all"], []).tolist() == [U] * 4
    both = snippet_block_labels(blocks, ["Unique paragraph"], ["paragraph of the article"])
    assert both.tolist() == [U] * 4
    assert snippet_block_labels([], ["anything at all"], ["nothing"]).tolist() == []


ARTICLE = ("The {topic} committee met on Tuesday and agreed on a plan for the coming year. "
           "Members discussed the budget, the new building and the volunteers who keep the "
           "{topic} project alive, and they voted to publish the minutes next week.")
NOTICE = ("Legal notice of the {topic} site: all texts and pictures on these pages are "
          "protected, any copy or reuse needs the written consent of the publisher, and the "
          "publisher answers for no content of the sites these pages link to or quote.")
TOPICS = ["harbour", "orchard", "library", "bridge", "festival", "garden", "market", "school",
          "railway", "forest", "museum", "river", "castle", "meadow"]


def _snippet_set(root: Path) -> Path:
    """News pages ending in a long legal notice: a paragraph of running text, which the
    gold pages of ``tinyset`` teach to keep; the pages' "without" snippets say it goes."""
    (root / "html").mkdir(parents=True)
    records = []
    for k, topic in enumerate(TOPICS):
        paragraphs = "".join(f"<p>{ARTICLE.format(topic=f'{topic} {n}')}</p>"
                             for n in range(3))
        nav = "".join(f'<li><a href="/{t}">{t.title()} news</a></li>' for t in TOPICS)
        html = (f"<html><head><title>{topic}</title></head><body><ul class='nav'>{nav}</ul>"
                f"<div class='article'><h1>News of the {topic}</h1>{paragraphs}</div>"
                f"<div class='legal'><p>{NOTICE.format(topic=topic)}</p></div></body></html>")
        (root / "html" / f"p{k:02d}.html").write_text(html, encoding="utf-8")
        records.append({"id": f"p{k:02d}", "with": [f"The {topic} 1 committee met on Tuesday"],
                        "without": [NOTICE.format(topic=topic)]})
    (root / "snippets.jsonl").write_text("\n".join(json.dumps(r) for r in records) + "\n",
                                         encoding="utf-8")
    return root


def test_snippet_documents_split_like_gold_documents(tmp_path):
    snipset = _snippet_set(tmp_path / "snip")
    train, test = snippet_documents([snipset], "train"), snippet_documents([snipset], "test")
    assert train and test
    assert {d.id for d in train} | {d.id for d in test} == {f"p{k:02d}" for k in range(14)}
    assert not {d.id for d in train} & {d.id for d in test}
    assert train[0].snippets.with_[0].endswith("committee met on Tuesday")
    with pytest.raises(TypeError, match="snippet page"):
        _ = train[0].gold
    assert snippet_documents([snipset], "all") == snippet_documents([snipset], "all")


def test_snippet_rows_are_the_labelled_blocks_only(tmp_path):
    docs = snippet_documents([_snippet_set(tmp_path / "snip")], "all")
    x, y = collect_snippet_rows(docs, None, pair_columns=PAIR_COLUMNS_DEFAULT, title=True)
    # One article paragraph ("with") and the legal notice ("without") per page.
    assert y.tolist() == [1, 0] * len(docs)
    assert x.shape == (2 * len(docs), page_inputs(docs[0].page, title=True).unary.shape[1])


def _probability(state: dict, doc, words: str) -> float:
    """The first-stage probability of the page's first block containing ``words``."""
    inputs = page_inputs(doc.page, (), PAIR_COLUMNS_DEFAULT, True)
    k = next(i for i, b in enumerate(inputs.blocks) if words in b.text)
    return float(state["unary"].predict_proba(inputs.unary[k:k + 1])[0, 1])


def test_snippet_labels_teach_the_model_what_the_gold_pages_do_not(data_dir, tmp_path):
    gold = documents([data_dir / "learned" / "tinyset"], "train")
    snipset = _snippet_set(tmp_path / "snip")
    train, test = snippet_documents([snipset], "train"), snippet_documents([snipset], "test")
    options = {"max_iter": 30, "decoding_folds": 0}
    plain = fit_auto(gold, **options)
    adapted = fit_auto(gold, snippet_docs=train, snippet_weight=20.0, **options)
    assert "snippet_pages" not in plain["params"]
    assert adapted["params"]["snippet_pages"] == len(train)
    assert adapted["label_counts"]["snippet_content"] == len(train)
    assert adapted["label_counts"]["snippet_boilerplate"] == len(train)
    for doc in test:  # pages neither model saw
        assert _probability(adapted, doc, "Legal notice") < 0.5 < _probability(
            plain, doc, "Legal notice")
        assert _probability(adapted, doc, "committee met") > 0.5
    with pytest.raises(ValueError, match="snippet_weight"):
        fit_auto(gold, snippet_docs=train, snippet_weight=0.0, **options)


def test_train_command_with_snippets_writes_card_rows(data_dir, tmp_path, capsys):
    tinyset = data_dir / "learned" / "tinyset"
    snipset = _snippet_set(tmp_path / "snip")
    rc = main(["train", "auto", "--data", str(tinyset), "--snippets", str(snipset),
               "--snippet-weight", "5", "--models-dir", str(tmp_path / "m"), "--quiet"])
    assert rc == 0, capsys.readouterr().err
    state = load_model("auto", "auto", tmp_path / "m")
    assert state["params"]["snippet_weight"] == 5.0
    assert state["meta"]["snippet_data"] == [str(snipset)]
    card = (tmp_path / "m" / "auto.md").read_text()
    assert "| tinyset |" in card and "| snip (snippets) |" in card
    assert "- `snip`" in card and "snip " in card.split("Training documents per dataset:")[1]


@pytest.mark.parametrize(("args", "message"), [
    (["auto", "--snippets", "{missing}"], "not snippet dataset directories"),
    (["auto", "--snippets", "{tinyset}"], "need html/ and snippets.jsonl"),
    (["sequence", "--snippets", "{snip}"], "apply to auto only"),
    (["auto", "--snippet-weight", "2"], "needs --snippets"),
    (["auto", "--snippets", "{snip}", "--snippet-weight", "0"], "must be positive"),
])
def test_train_command_refuses_bad_snippet_arguments(data_dir, tmp_path, capsys, args, message):
    places = {"missing": tmp_path / "nowhere", "tinyset": data_dir / "learned" / "tinyset",
              "snip": _snippet_set(tmp_path / "snip")}
    argv = ["train", *(a.format(**places) for a in args), "--data",
            str(data_dir / "learned" / "tinyset"), "--models-dir", str(tmp_path / "m"),
            "--quiet"]
    assert main(argv) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "m").exists()



def test_benchmark_trains_once_and_scores_the_snippet_test_pages(
        benchmark_module, data_dir, tmp_path, monkeypatch, capsys):
    root = tmp_path / "datasets"
    shutil.copytree(data_dir / "learned" / "tinyset", root / "tinyset")
    _snippet_set(root / "snip")
    monkeypatch.setenv("CORPUSCRAWL_DATASETS", str(root))
    bench = benchmark_module("snippet_training")
    out = tmp_path / "report.md"
    out.write_text("old\n<!-- analysis -->\nmy analysis\n", encoding="utf-8")
    argv = ["--datasets", "tinyset", "--snippets", "snip", "--weight", "20", "--out", str(out)]
    assert bench.main(argv) == 0
    assert "training auto + snippets (weight 20)" in capsys.readouterr().err
    text = out.read_text(encoding="utf-8")
    assert text.rstrip().endswith("my analysis")
    model = bench.model_dir(20.0, ["tinyset"], "snip")
    adapted = AutoExtractor(models_dir=model)
    test = snippet_documents([root / "snip"], "test")
    expected = summarize_snippets(score_snippets(adapted.extract(d.page), d.snippets)
                                  for d in test)
    section = text.split("## snip snippet pages: the test part (never trained on)", 1)[1]
    row = next(x for x in section.splitlines() if x.startswith("| auto + snippets |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[1] == str(len(test))
    assert float(cells[4].strip("*")) == pytest.approx(expected.f1, abs=5e-5)
    assert f"{len(snippet_documents([root / 'snip'], 'train'))} pages" in text
    assert "| tinyset |" in text.split("## Gold datasets", 1)[1]
    # A second run reuses the model trained for this code, data and weight.
    assert bench.main(argv) == 0
    assert "training auto" not in capsys.readouterr().err
