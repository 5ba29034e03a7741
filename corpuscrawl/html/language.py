"""Language identification of extracted text with py3langid (its model ships in the wheel).

Also maps ISO 639-1 codes to jusText stoplist names, so users can say
``language=hr`` or ``language=Croatian`` alike.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from functools import lru_cache

from corpuscrawl.resources.accelerators import accelerator

#: The interface of ``_langid.c`` this module calls.
LANGID_API = 2
#: The C feature walk; None when not built for :data:`LANGID_API` (py3langid's own walk
#: then, same answers).
_langid = accelerator("corpuscrawl._langid", LANGID_API)

#: Texts shorter than this many characters get no language (identification is a guess).
MIN_CHARS_DEFAULT = 20  # below ~20 chars py3langid is close to chance on short snippets
#: Characters of text passed to the identifier; the start of a document is enough.
SAMPLE_CHARS_DEFAULT = 1000  # ~150 words: langid is near its full accuracy there

#: ISO 639-1 code -> jusText stoplist name (the languages both sides know).
ISO_TO_STOPLIST = {
    "af": "Afrikaans", "sq": "Albanian", "ar": "Arabic", "an": "Aragonese", "hy": "Armenian",
    "ast": "Asturian", "az": "Azerbaijani", "eu": "Basque", "be": "Belarusian",
    "bn": "Bengali", "bs": "Bosnian", "br": "Breton", "bg": "Bulgarian", "ca": "Catalan",
    "ceb": "Cebuano", "cv": "Chuvash", "hr": "Croatian", "cs": "Czech", "da": "Danish",
    "nl": "Dutch", "en": "English", "eo": "Esperanto", "et": "Estonian", "fi": "Finnish",
    "fr": "French", "gl": "Galician", "ka": "Georgian", "de": "German", "el": "Greek",
    "gu": "Gujarati", "ht": "Haitian", "he": "Hebrew", "hi": "Hindi", "hu": "Hungarian",
    "is": "Icelandic", "io": "Ido", "ig": "Igbo", "id": "Indonesian", "ga": "Irish",
    "it": "Italian", "jv": "Javanese", "kn": "Kannada", "kk": "Kazakh", "ko": "Korean",
    "ku": "Kurdish", "ky": "Kyrgyz", "la": "Latin", "lv": "Latvian", "lt": "Lithuanian",
    "lb": "Luxembourgish", "mk": "Macedonian", "ms": "Malay", "ml": "Malayalam",
    "mt": "Maltese", "mr": "Marathi", "ne": "Nepali", "nb": "Norwegian_Bokmal",
    "no": "Norwegian_Bokmal", "nn": "Norwegian_Nynorsk", "oc": "Occitan", "fa": "Persian",
    "pl": "Polish", "pt": "Portuguese", "qu": "Quechua", "ro": "Romanian", "ru": "Russian",
    "sr": "Serbian", "sh": "Serbo_Croatian", "sk": "Slovak", "sl": "Slovenian",
    "es": "Spanish", "su": "Sundanese", "sw": "Swahili", "sv": "Swedish", "tl": "Tagalog",
    "ta": "Tamil", "te": "Telugu", "tr": "Turkish", "tk": "Turkmen", "uk": "Ukrainian",
    "ur": "Urdu", "uz": "Uzbek", "vi": "Vietnamese", "vo": "Volapuk", "wa": "Walloon",
    "cy": "Welsh", "fy": "West_Frisian", "yo": "Yoruba",
}


@lru_cache(maxsize=1)
def _identifier():  # type: ignore[no-untyped-def]
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    if _langid is None:
        return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)

    class FastWalkIdentifier(LanguageIdentifier):
        """py3langid's identifier with its feature walk (a Python loop over the text's bytes,
        most of its time) in the C accelerator ``_langid``: the same counts in the same
        order, so the same scores (``tests/test_language_fast.py``)."""

        def _raw_score(self, text):  # type: ignore[no-untyped-def]
            visits = _langid.visit_counts(self._tables[0], self._tables[1], text)
            if visits:
                return self._sparse_score(visits, self.nb_ptc)
            return super()._raw_score(text)  # no feature: the library's own answer

    identifier = FastWalkIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    nextmove = identifier.tk_nextmove
    if not (isinstance(nextmove, array) and nextmove.itemsize == 4):
        nextmove = array("I", nextmove)
    identifier._tables = (nextmove, automaton_states(identifier._rowbase, identifier.tk_output))
    return identifier


def automaton_states(rowbase: Sequence[int], output: Sequence[int]) -> array:
    """py3langid's per-state row offsets and outputs as one array of ``(offset, output)``
    pairs of 4-byte integers (``_langid.visit_counts`` reads a state's two from one place).

    Raises ``ValueError`` when the tables do not pair up or a value needs more than 31 bits.
    """
    if len(rowbase) != len(output):
        raise ValueError(f"{len(rowbase)} row offsets for {len(output)} state outputs")
    pairs = array("i", bytes(8 * len(rowbase)))
    try:
        pairs[0::2] = array("i", rowbase)
        pairs[1::2] = array("i", output)
    except OverflowError as exc:
        raise ValueError(f"automaton tables beyond 31-bit integers: {exc}") from exc
    return pairs


def detect(text: str, min_chars: int = MIN_CHARS_DEFAULT) -> tuple[str, float]:
    """ISO 639-1 code of ``text``'s language and its probability; ``("", 0.0)`` if too short."""
    sample = text[:SAMPLE_CHARS_DEFAULT]
    if len(sample.strip()) < min_chars:
        return "", 0.0
    code, prob = _identifier().classify(sample)
    return str(code), float(prob)


def stoplist_name(language: str) -> str:
    """The jusText stoplist name for an ISO code or a stoplist name (case-insensitive).

    Raises ``ValueError`` naming the accepted forms for an unknown language.
    """
    import justext

    known = {name.lower(): name for name in justext.get_stoplists()}
    key = language.strip().lower()
    if key in known:
        return known[key]
    if key in ISO_TO_STOPLIST:
        return ISO_TO_STOPLIST[key]
    raise ValueError(
        f"no jusText stoplist for language {language!r}; use an ISO 639-1 code "
        f"({', '.join(sorted(ISO_TO_STOPLIST)[:12])}, ...) or a stoplist name "
        f"({', '.join(sorted(known.values())[:6])}, ...)"
    )
