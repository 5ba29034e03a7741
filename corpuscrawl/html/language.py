"""Language identification of extracted text with py3langid (its model ships in the wheel).

Also maps ISO 639-1 codes to jusText stoplist names, so users can say
``language=hr`` or ``language=Croatian`` alike.
"""

from __future__ import annotations

from functools import lru_cache

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
    """py3langid's identifier with probabilities, loaded once per process; its feature walk
    done with array operations (:mod:`corpuscrawl.html.langid_walk`: same counts, same
    answers)."""
    from py3langid.langid import MODEL_FILE

    from corpuscrawl.html.langid_walk import array_walk_identifier

    return array_walk_identifier(MODEL_FILE, norm_probs=True)


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
