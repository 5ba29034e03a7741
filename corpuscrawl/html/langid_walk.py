"""py3langid's feature walk as a few array operations per text instead of a loop per byte.

py3langid counts a text's byte n-gram features by walking its automaton one byte at a
time, a Python loop over the (up to ~3,000) bytes of each sample: a third of language
identification's time.  The state after byte ``i`` is ``next[row[state before i] + byte
i]``; :func:`walk_states` solves that recurrence for every byte at once by iterating it
over the whole array from the all-start-state guess.  After ``k`` rounds the state of every
byte is the state of the last ``k`` bytes walked from the start; the automaton's states
stand for n-grams of at most a few bytes, so the states stop changing after a few rounds,
and a state array that the recurrence maps onto itself is *the* walk's (the recurrence has
one solution), so the counts are py3langid's, in its order, and so are the scores and the
answer.  A text whose states have not settled after :data:`MAX_ROUNDS` rounds is walked
by py3langid itself.

:class:`ArrayWalkIdentifier` is py3langid's identifier with only that walk replaced; it
reads the identifier's automaton attributes (``tk_nextmove``, ``_rowbase``,
``tk_output``), so :func:`array_walk_identifier` checks them, and the walk's counts against
py3langid's own on probe texts, before using it (py3langid's identifier as it is
otherwise).  ``tests/test_langid_walk.py`` compares both on cases, random bytes and
every dataset page's sample.
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np
from py3langid.langid import LanguageIdentifier, visit_counts

logger = logging.getLogger(__name__)

#: Rounds of the array walk before a text is walked byte by byte instead; py3langid's
#: shipped automaton settles in at most 7 (its deepest state is 6 bytes from the start).
MAX_ROUNDS = 12
#: Texts the walk is checked on before it is used (py3langid's counts must come out).
PROBE_TEXTS = (
    "The council approved a six-month trial of the late-night bus service.",
    "Gradska knjižnica potpisala je ovog tjedna sporazum o suradnji.",
    "Съвет одобри шестмесечен пробен период. 市议会批准了为期六个月的试验。",
)


class Automaton:
    """py3langid's automaton as numpy arrays: the transition table (a view of its own
    array), each state's row offset and each state's feature (-1: none)."""

    def __init__(self, identifier: LanguageIdentifier):
        nextmove = identifier.tk_nextmove
        self.nextmove = np.frombuffer(nextmove, dtype=np.dtype(nextmove.typecode)) \
            if hasattr(nextmove, "typecode") else np.asarray(nextmove)
        self.rowbase = np.asarray(identifier._rowbase, dtype=np.int64)
        self.output = np.asarray(identifier.tk_output, dtype=np.int64)


def walk_states(automaton: Automaton, data: bytes, max_rounds: int = MAX_ROUNDS
                ) -> np.ndarray | None:
    """The automaton's state after each byte of ``data`` (from the start state), or None
    when the states have not settled after ``max_rounds`` rounds (see the module
    docstring)."""
    letters = np.frombuffer(data, dtype=np.uint8).astype(np.int64)
    states = np.zeros(len(letters) + 1, dtype=np.int64)  # states[i + 1]: after byte i
    for _ in range(max_rounds):
        new = automaton.nextmove[automaton.rowbase[states[:-1]] + letters]
        if np.array_equal(new, states[1:]):
            return new
        states[1:] = new
    return None


def feature_visits(automaton: Automaton, data: bytes) -> dict[int, int] | None:
    """``{feature: count}`` of ``data`` in the order the features are first met (what
    py3langid's ``visit_counts`` gives); None when the array walk did not settle."""
    states = walk_states(automaton, data)
    if states is None:
        return None
    features = automaton.output[states]
    features = features[features >= 0]
    found, first, counts = np.unique(features, return_index=True, return_counts=True)
    order = np.argsort(first)
    return dict(zip(found[order].tolist(), counts[order].tolist(), strict=True))


class ArrayWalkIdentifier(LanguageIdentifier):
    """py3langid's identifier whose feature counts come from the array walk
    (:func:`feature_visits`); everything else is py3langid's."""

    __slots__ = ("_automaton",)

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._automaton = Automaton(self)

    def _raw_score(self, text: bytes) -> np.ndarray:
        visits = feature_visits(self._automaton, text)
        if not visits:  # not settled, or no feature: py3langid's own walk and fill
            return super()._raw_score(text)
        return self._sparse_score(visits, self.nb_ptc)


def walk_matches(identifier: ArrayWalkIdentifier, texts: tuple[str, ...] = PROBE_TEXTS) -> bool:
    """Whether the array walk gives py3langid's own counts, in its order, on ``texts``."""
    for text in texts:
        data = identifier._encode(text)
        ours = feature_visits(identifier._automaton, data)
        theirs = visit_counts(identifier.tk_nextmove, identifier._rowbase,
                              identifier.tk_output, data)
        if ours is None or theirs is None or list(ours.items()) != list(theirs.items()):
            return False
    return True


def array_walk_identifier(model_file: str, norm_probs: bool) -> LanguageIdentifier:
    """py3langid's identifier of ``model_file`` with the array walk when this py3langid has
    the automaton it reads and the walk gives its counts on :data:`PROBE_TEXTS`; py3langid's
    own identifier otherwise (one warning)."""
    try:
        identifier = ArrayWalkIdentifier.from_model_file(model_file, norm_probs=norm_probs)
        if walk_matches(identifier):
            return identifier
        reason = "its counts differ from py3langid's on the probe texts"
    except (AttributeError, TypeError, ValueError) as exc:
        reason = f"{type(exc).__name__}: {exc}"
    logger.warning("language identification walks py3langid's automaton byte by byte "
                   "(same answers, slower): %s", reason)
    return LanguageIdentifier.from_model_file(model_file, norm_probs=norm_probs)


__all__ = ["MAX_ROUNDS", "PROBE_TEXTS", "ArrayWalkIdentifier", "Automaton",
           "array_walk_identifier", "feature_visits", "walk_matches", "walk_states"]
