"""Converting model files of the earlier dict format into model objects, outputs unchanged.

Earlier versions saved a learned model as a dict (``kind``, ``params``, the fitted
scikit-learn estimators under keys such as ``unary`` or ``svm``).  Such a file is
refused when loaded (:class:`~corpuscrawl.extract.learned.models.LegacyModelError`,
naming ``corpuscrawl train NAME --convert FILE``); :func:`convert_file` turns it
into the model class of its kind with the *same* fitted estimators and
parameters, so the converted model extracts the same text byte for byte.  The
feature names the estimators were fitted on are today's names of the columns
they read; a file whose estimators read another number of columns than today's
feature code makes is refused (it must be retrained).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from corpuscrawl.extract.learned.auto import STAGE2_MAX_ITER_DEFAULT, AutoModel
from corpuscrawl.extract.learned.block_features import EDGE_FEATURE_NAMES, UNARY_FEATURE_NAMES
from corpuscrawl.extract.learned.columns import prefixed
from corpuscrawl.extract.learned.features import FEATURE_NAMES
from corpuscrawl.extract.learned.hybrid import (
    HybridAModel,
    HybridBModel,
    SegmentSVMModel,
)
from corpuscrawl.extract.learned.models import (
    LearnedModel,
    ModelFileError,
    model_class,
    read_model_file,
)
from corpuscrawl.extract.learned.page_check import PageCheck
from corpuscrawl.extract.learned.sequence import SequenceModel
from corpuscrawl.extract.learned.title_features import TITLE_FEATURE_NAMES
from corpuscrawl.learn.model_files import card_path, file_sha256, save_model

_SHA_LINE = re.compile(r"^File SHA-256: `[0-9a-f]*`$", re.MULTILINE)


def _widths(path: Path, estimator: Any, names: tuple[str, ...]) -> tuple[str, ...]:
    """``names`` when ``estimator`` reads that many columns; else refuse the file."""
    width = getattr(estimator, "n_features_in_", len(names))
    if width != len(names):
        raise ModelFileError(
            f"cannot convert model file {path}: its estimator reads {width} feature columns "
            f"and today's feature code makes {len(names)}; retrain the model instead")
    return names


def _pair_names(unary: tuple[str, ...], columns: int | None) -> tuple[tuple[str, ...],
                                                                     tuple[str, ...]]:
    chosen = unary if columns is None else unary[:columns]
    return chosen, prefixed("left_", chosen) + prefixed("right_", chosen) + EDGE_FEATURE_NAMES


def _auto(path: Path, state: Mapping[str, Any]) -> AutoModel:
    params = dict(state.get("params", {}))
    check = state.get("page_check")
    model = AutoModel(
        votes=tuple(state.get("votes", ())), threshold=params["threshold"],
        max_iter=params["max_iter"], max_leaf_nodes=params["max_leaf_nodes"],
        learning_rate=params["learning_rate"], max_pair_rows=params["max_pair_rows"],
        decoding_folds=params["decoding_folds"], stacking=bool(params.get("stacking")),
        stage2_max_iter=params.get("stage2_max_iter") or STAGE2_MAX_ITER_DEFAULT,
        title_features=bool(state.get("title_features", False)),
        relative_masks=bool(state.get("relative_masks", False)),
        page_check="page_check" in state, fallback=state.get("fallback", True),
        comment_cut=state.get("comment_cut", True), related_cut=state.get("related_cut", True))
    votes = tuple(state.get("votes", ()))
    unary = UNARY_FEATURE_NAMES + prefixed("vote_", votes) + (
        TITLE_FEATURE_NAMES if model.title_features else ())
    model.unary_, model.stage2_, model.pairwise_ = (state["unary"], state.get("stage2"),
                                                    state["pairwise"])
    model.feature_names_in_ = _widths(path, model.unary_, unary)
    model.pair_columns_, pair_names = _pair_names(unary, state.get("pair_columns"))
    model.pair_feature_names_ = _widths(path, model.pairwise_, pair_names)
    model.lambda_, model.bias_ = float(state["lambda"]), float(state["bias"])
    model.votes_ = votes
    model.page_check_ = None
    if check:
        model.page_check_ = PageCheck(
            robust=tuple(check["robust"]), min_running_words=check["min_running_words"],
            min_consensus_words=check["min_consensus_words"],
            min_agreement=check["min_agreement"])
        model.page_check_.keep_share_ = check["keep_share"]
        model.page_check_.confidence_ = check["confidence"]
        model.page_check_.fit_info_ = dict(params.get("page_check", {}))
    model.label_counts_ = dict(state.get("label_counts", {}))
    constructor = set(model.get_params(deep=False))
    model.fit_info_ = {k: v for k, v in params.items()
                       if k not in constructor and k != "pair_columns"}
    return model


def _sequence(path: Path, state: Mapping[str, Any]) -> SequenceModel:
    params = dict(state.get("params", {}))
    model = SequenceModel(threshold=params["threshold"], lam=float(state["lambda"]),
                          hidden=tuple(params["hidden"]), alpha=params["alpha"],
                          max_pair_rows=params["max_pair_rows"])
    model.unary_, model.pairwise_ = state["unary"], state["pairwise"]
    model.feature_names_in_ = _widths(path, model.unary_, UNARY_FEATURE_NAMES)
    _, pair_names = _pair_names(UNARY_FEATURE_NAMES, state.get("pair_columns"))
    model.pair_feature_names_ = _widths(path, model.pairwise_, pair_names)
    model.label_counts_ = dict(state.get("label_counts", {}))
    model.fit_info_ = {}
    return model


def _hybrid_a(path: Path, state: Mapping[str, Any]) -> HybridAModel:
    params = dict(state.get("params", {}))
    model = HybridAModel(base=tuple(state["base"]), c=params.get("C", 1.0))
    model.svm_ = state["svm"]
    model.constant_ = int(state.get("constant", 0))
    model.base_ = tuple(state["base"])
    model.feature_names_in_ = _widths(path, model.svm_, FEATURE_NAMES) if model.svm_ \
        is not None else FEATURE_NAMES
    model.label_counts_ = dict(state.get("label_counts", {}))
    model.fit_info_ = {"kernel": params.get("kernel", "rbf"), "gamma": params.get("gamma", "scale")}
    return model


def _segments(path: Path, state: Mapping[str, Any]) -> SegmentSVMModel:
    params = dict(state.get("params", {}))
    cls = HybridBModel if state["kind"] == "hybrid-b" else SegmentSVMModel
    base = tuple(state.get("base", ()))
    model = cls(base=base, c=params.get("C", 1.0), threshold=params["threshold"],
                max_segments=params["max_segments"])
    model.svm_ = state["svm"]
    model.base_ = base
    model.feature_names_in_ = _widths(path, model.svm_, FEATURE_NAMES + prefixed("lcs_", base))
    model.label_counts_ = dict(state.get("label_counts", {}))
    model.fit_info_ = {"kernel": params.get("kernel", "rbf"), "gamma": params.get("gamma", "scale")}
    return model


CONVERTERS = {"auto": _auto, "sequence": _sequence, "hybrid-a": _hybrid_a,
              "hybrid-b": _segments, "segment-svm": _segments}


def convert_state(state: Mapping[str, Any], path: str | Path = "<memory>") -> LearnedModel:
    """The model object of an earlier dict ``state`` (same fitted estimators)."""
    kind = state.get("kind")
    if kind not in CONVERTERS:
        raise ModelFileError(f"cannot convert model file {path}: unknown kind {kind!r}")
    try:
        model = CONVERTERS[kind](Path(path), state)
    except KeyError as exc:
        raise ModelFileError(f"cannot convert model file {path}: its {kind} state has no "
                             f"{exc}; retrain the model instead") from exc
    if state.get("meta"):
        model.meta_ = dict(state["meta"])
    return model


def convert_file(name: str, source: str | Path, models_dir: str | Path | None = None) -> Path:
    """Convert the dict-format model file ``source`` of model ``name`` and write it as
    ``<models_dir>/<name>.skops`` (it may be the same file); the card beside it, if any,
    gets the new file's SHA-256.  Returns the written path."""
    source = Path(source)
    state = read_model_file(source)
    if isinstance(state, LearnedModel):
        raise ModelFileError(f"model file {source} already holds a {type(state).__name__}; "
                             "nothing to convert")
    if not isinstance(state, dict):
        raise ModelFileError(f"cannot convert model file {source}: it holds a "
                             f"{type(state).__name__}, not a model state")
    wanted = model_class(name)
    if state.get("kind") != wanted.name:
        raise ModelFileError(f"model file {source} holds a {state.get('kind')!r} model, not "
                             f"{name!r}")
    path = save_model(name, convert_state(state, source), models_dir)
    card = card_path(name, models_dir)
    if card.is_file():
        text = card.read_text(encoding="utf-8")
        card.write_text(_SHA_LINE.sub(f"File SHA-256: `{file_sha256(path)}`", text),
                        encoding="utf-8")
    return path


__all__ = ["CONVERTERS", "convert_file", "convert_state"]
