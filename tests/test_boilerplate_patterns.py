"""The built-in prior: short copyright / rights-reserved / cookie lines in many languages."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpuscrawl.boilerplate.patterns import (
    PATTERN_MAX_WORDS_DEFAULT,
    is_notice,
    keyword_lines,
    notice_kind,
)

DATA = Path(__file__).parent / "data" / "boilerplate"


def lines(name: str) -> list[str]:
    text = (DATA / name).read_text(encoding="utf-8")
    return [line for line in text.splitlines() if line.strip() and not line.startswith("#")]


@pytest.mark.parametrize("line", lines("notices.txt"))
def test_notices_are_recognized(line):
    assert is_notice(line), line


@pytest.mark.parametrize("line", lines("content.txt"))
def test_article_sentences_are_not_notices(line):
    assert not is_notice(line), line


def test_kinds():
    assert notice_kind("© 2020 Example") == "copyright"
    assert notice_kind("All rights reserved") == "rights"
    assert notice_kind("We use cookies on this site.") == "cookies"
    assert notice_kind("This page was last modified on 4 March 2025.") == "stamp"
    assert notice_kind("An ordinary sentence.") is None


def test_long_paragraphs_are_left_to_the_history():
    long_notice = "© 2020 Example Media. " + "word " * PATTERN_MAX_WORDS_DEFAULT
    assert not is_notice(long_notice)
    assert is_notice(long_notice, max_words=10 * PATTERN_MAX_WORDS_DEFAULT)


def test_keyword_lines_finds_only_candidate_lines():
    text = "intro\n© 2020 x and cookies\nnothing here\nall rights reserved\nend"
    assert keyword_lines(text.casefold()) == [1, 3]
    assert keyword_lines("no keywords\nat all") == []


@pytest.mark.parametrize("line", [
    "Share this story: Facebook X Email",
    "Share",
    "Enjoyed this story? Share it with your friends on Facebook and Twitter.",
    "Know someone who would like this article? Send it to them by email today.",
    "Follow Daily Example on social media for the latest news as it happens.",
    "Follow us on Twitter",
])
def test_share_prompts_are_recognized(line):
    assert notice_kind(line) == "share"


@pytest.mark.parametrize("line", [
    "Sign up for our morning newsletter and never miss an important story again.",
    "Get the day's top stories delivered to your inbox every morning.",
    "SIGN UP FOR OUR NEWSLETTER",
    "Newsletter abonnieren",
])
def test_newsletter_boxes_are_recognized(line):
    assert notice_kind(line) == "newsletter"


@pytest.mark.parametrize("line", [
    "The council will share the cost of the new bridge with the regional government.",
    "Shares of Harbour Foods rose 3.2 percent to 45.10 pounds in morning trading.",
    "I was happy to share this blog post through facebook with my 498 friends.",
    "Just because I follow you on Twitter, it doesn't mean you can sell me something.",
    "I also subscribe to every newsletter and magazine about weight loss I can find.",
    "The newsletter, which the club sends to its 400 members, reported the result.",
    # an invitation, but as long as a paragraph of an article: left to the history
    "Sign up for our newsletter " + "and read about the valley's history " * 5 + ".",
])
def test_sentences_about_sharing_or_newsletters_are_not_prompts(line):
    assert notice_kind(line) is None


def test_notice_candidates_on_plain_lines():
    from corpuscrawl.boilerplate.patterns import notice_candidates

    lines = ["intro", "© 2020 x and cookies", "nothing here", "ALL RIGHTS RESERVED", "end",
             "Copyright (C) 2021", "a jog through the park", "x" * 5000 + " cookie"]
    assert notice_candidates(lines) == [1, 3, 5, 6, 7]
    assert keyword_lines("\n".join(lines).casefold()) == [1, 3, 5, 6, 7]
