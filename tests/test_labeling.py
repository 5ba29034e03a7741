"""The labelling tool's terminal dialogue and output."""

from __future__ import annotations

import io
import json
from pathlib import Path

from corpuscrawl.browse.elements import ElementRecord
from corpuscrawl.learn.labeling import append_records, describe, label_interactively


def records() -> list[ElementRecord]:
    return [ElementRecord(tag="a", attributes={"href": "/x"}, text="X", label="Inner"),
            ElementRecord(tag="button", text="Load more", label="Other"),
            ElementRecord(tag="span", text="★", label="Other"),
            ElementRecord(tag="a", attributes={"href": "#"}, text="Close", label="Closer")]


def test_accept_correct_skip_and_quit() -> None:
    answers = iter(["", "?", "r", "s", "q"])
    out = io.StringIO()
    labelled = label_interactively(records(), ask=lambda _: next(answers), out=out)
    assert [(r.text, r.label) for r in labelled] == [("X", "Inner"), ("Load more", "Revealer")]
    assert "unknown answer '?'" in out.getvalue()
    assert "[2/4] <button> 'Load more'" in out.getvalue()


def test_describe_shows_href_and_position() -> None:
    record = ElementRecord(tag="a", attributes={"href": "/x"}, text="X", label="Inner",
                           layout={"fixed": True, "visible": False})
    text = describe(record, 1, 1)
    assert "href=/x" in text and "fixed" in text and "hidden" in text and "guess: Inner" in text


def test_append_records(tmp_path: Path) -> None:
    path = tmp_path / "set.jsonl"
    append_records(records()[:2], path)
    append_records(records()[2:], path)
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert [r["label"] for r in rows] == ["Inner", "Other", "Other", "Closer"]
    assert set(rows[0]) == {"tag", "attributes", "text", "html", "page_url", "label", "layout",
                            "page_lang"}


def test_each_answer_is_saved_as_it_is_given_and_the_end_of_input_keeps_them(
        tmp_path: Path) -> None:
    from corpuscrawl.learn.labeling import RecordAppender

    path = tmp_path / "set.jsonl"
    answers = iter(["", "r"])

    def ask(_: str) -> str:
        return next(answers)  # then the input ends

    def ask_or_eof(prompt: str) -> str:
        try:
            return ask(prompt)
        except StopIteration:
            raise EOFError from None

    with RecordAppender(path) as save:
        labelled = label_interactively(records(), ask=ask_or_eof, out=io.StringIO(), save=save)
    assert [r.text for r in labelled] == ["X", "Load more"]
    assert [json.loads(line)["label"] for line in path.read_text().splitlines()] == [
        "Inner", "Revealer"]


def test_ctrl_c_in_the_dialogue_keeps_the_answers_given(tmp_path: Path) -> None:
    import pytest

    from corpuscrawl.learn.labeling import RecordAppender

    path = tmp_path / "set.jsonl"
    answers = iter([""])

    def ask(_: str) -> str:
        try:
            return next(answers)
        except StopIteration:
            raise KeyboardInterrupt from None

    with pytest.raises(KeyboardInterrupt), RecordAppender(path) as save:
        label_interactively(records(), ask=ask, out=io.StringIO(), save=save)
    assert [json.loads(line)["text"] for line in path.read_text().splitlines()] == ["X"]
