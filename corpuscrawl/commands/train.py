"""``corpuscrawl train``: train a learned extractor and write ``models/<name>.skops`` + card.

    corpuscrawl train auto --data ../shared/datasets/cleaneval,../shared/datasets/dragnet
    corpuscrawl train all                      # every shipped model on the shipped datasets
    corpuscrawl train page-type                # the page-type classifier (datasets root)
    corpuscrawl train element-classifier       # from its shipped labelled set
    corpuscrawl train hybrid-b --base bte,readability,boilerpipe-default,boilerpipe-article
    corpuscrawl train auto --convert old/auto.skops   # an earlier version's file, same outputs
    corpuscrawl train auto --card-only         # the card of models/auto.skops as it is

Models train on the train part of the project's split (by document id) and
are scored on the test part; progress is shown per stage.  Fitting always
runs with one thread (``fit_model``: the model must not depend on the thread
count); here the scoring does too, as the machine is shared.  Base-extractor outputs
are cached under ``$CORPUSCRAWL_CACHE`` so a rerun is cheap.  ``all`` also trains the
two classifiers that are not extractors (:data:`OWN_TRAINERS`), each by its own module
with its own card: the page-type classifier on the labelled pages under the datasets
root, the element classifier on the labelled set ``elements-train.jsonl`` on the models'
search path.  Exit codes: 0 done, 2 bad arguments.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from corpuscrawl.evaluation.datasets import DatasetError, datasets_root

#: Shipped classifiers trained by modules of their own (not extractors: no ``--data``,
#: ``--base``, ``--card-only`` or ``--convert``), after the extractors under ``all``.
OWN_TRAINERS = ("page-type", "element-classifier")


def register(subparsers: Any) -> None:
    """Add the ``train`` subcommand."""
    from corpuscrawl.learn.training import SHIPPED_DATASETS, SHIPPED_MODELS

    p = subparsers.add_parser(
        "train", help="train a learned extractor (hybrid-a, hybrid-b, segment-svm, sequence, "
                      "auto), the page-type or element classifier, or all",
        description="Train MODEL on the train split of the given datasets, score it on their "
                    "test split and write models/MODEL.skops with its card models/MODEL.md.",
    )
    p.add_argument("model", choices=(*SHIPPED_MODELS, *OWN_TRAINERS, "all"), metavar="MODEL",
                   help=f"one of {', '.join((*SHIPPED_MODELS, *OWN_TRAINERS))}, or all")
    p.add_argument("--data", metavar="DATASET_DIR[,...]",
                   help="comma-separated gold-text dataset directories (default: "
                        f"{', '.join(SHIPPED_DATASETS)} under the datasets root, and for "
                        "auto also wcxb)")
    p.add_argument("--base", metavar="NAME[,...]",
                   help="base extractors for hybrids / votes for auto (default: the model's own)")
    p.add_argument("--models-dir", metavar="DIR",
                   help="where to write the model and card (default: $CORPUSCRAWL_MODELS_DIR, "
                        "else a checkout's models/)")
    p.add_argument("--no-eval", action="store_true", help="skip scoring on the test split")
    p.add_argument("--convert", metavar="FILE",
                   help="instead of training, convert FILE, a model file of an earlier "
                        "corpuscrawl (dict format), into MODEL's class with the same fitted "
                        "estimators, written to the models directory")
    p.add_argument("--card-only", action="store_true",
                   help="no training: write the card of the model file already in the models "
                        "directory (its parameters and training facts as the file holds them, "
                        "its scores on the test split measured now)")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.set_defaults(func=run)


def dataset_dirs(arg: str | None, model: str = "") -> list[Path]:
    """The dataset directories named by ``--data`` (or the ones ``model`` ships trained on)."""
    from corpuscrawl.learn.training import shipped_datasets

    if arg:
        dirs = [Path(p.strip()) for p in arg.split(",") if p.strip()]
    else:
        root = datasets_root()
        dirs = [root / name for name in shipped_datasets(model)]
    missing = [str(d) for d in dirs if not (d / "html").is_dir() or not (d / "clean").is_dir()]
    if missing:
        raise DatasetError("not gold-text dataset directories (need html/ and clean/): "
                           + ", ".join(missing))
    return dirs


def run(args: argparse.Namespace) -> int:
    """Train the requested model(s); returns the exit code."""
    from threadpoolctl import threadpool_limits

    from corpuscrawl.learn.training import SHIPPED_MODELS, train

    if args.model in OWN_TRAINERS and (args.data or args.base or args.card_only
                                       or args.convert):
        print(f"corpuscrawl train: {args.model} takes no --data, --base, --card-only or "
              "--convert", file=sys.stderr)
        return 2
    if args.convert:
        return convert(args)
    if args.model == "all":
        models, own = SHIPPED_MODELS, OWN_TRAINERS
    elif args.model in OWN_TRAINERS:
        models, own = (), (args.model,)
    else:
        models, own = (args.model,), ()
    try:
        dirs_of = {name: dataset_dirs(args.data, name) for name in models}
    except DatasetError as exc:
        print(f"corpuscrawl train: {exc}", file=sys.stderr)
        return 2
    base = [b.strip() for b in args.base.split(",") if b.strip()] if args.base else None
    if args.card_only:
        return cards(models, dirs_of, args)
    for name in models:
        dirs = dirs_of[name]
        started = time.monotonic()
        print(f"training {name} on {', '.join(d.name for d in dirs)}", file=sys.stderr)
        with threadpool_limits(limits=1):
            path = train(name, dirs, base_names=base, models_dir=args.models_dir,
                         evaluate=not args.no_eval, show_progress=not args.quiet)
        print(f"{name}: wrote {path} and {path.with_suffix('.md')} "
              f"({time.monotonic() - started:.0f} s)", file=sys.stderr)
    for name in own:
        if code := train_own(name, args):
            return code
    return 0


def train_own(name: str, args: argparse.Namespace) -> int:
    """Train one of :data:`OWN_TRAINERS` into the models directory; returns the exit code."""
    from threadpoolctl import threadpool_limits

    from corpuscrawl.resources.shipped import find_model, models_write_dir

    out = models_write_dir(args.models_dir)
    started = time.monotonic()
    if name == "page-type":
        from corpuscrawl.extract.page_typing.page_type import MODEL_FILE
        from corpuscrawl.learn import page_type_trainer as page_type

        root = datasets_root()
        print(f"training page-type on the labelled pages under {root}", file=sys.stderr)
        try:
            with threadpool_limits(limits=1):
                page_type.train(root, out)
        except ValueError as exc:
            print(f"corpuscrawl train: {exc}", file=sys.stderr)
            return 2
        written = [out / MODEL_FILE, out / page_type.CARD_FILE]
    else:
        from corpuscrawl.learn import element_trainer as elements

        # the set beside the models written (a user's own), else on the search path
        labelled = ((args.models_dir and find_model(elements.TRAIN_SET_NAME, args.models_dir))
                    or find_model(elements.TRAIN_SET_NAME))
        if labelled is None:
            print(f"corpuscrawl train: no labelled set {elements.TRAIN_SET_NAME} on the models' "
                  "search path (build one: python -m corpuscrawl.learn.element_trainer build --bed)",
                  file=sys.stderr)
            return 2
        print(f"training element-classifier on {labelled}", file=sys.stderr)
        elements.train(labelled, out)
        written = [out / elements.MODEL_NAME, out / elements.CARD_NAME]
    print(f"{name}: wrote {' and '.join(map(str, written))} "
          f"({time.monotonic() - started:.0f} s)", file=sys.stderr)
    return 0


def cards(models: tuple[str, ...], dirs_of: dict[str, list[Path]],
          args: argparse.Namespace) -> int:
    """``--card-only``: write the cards of existing model files; returns the exit code."""
    from threadpoolctl import threadpool_limits

    from corpuscrawl.extract.base import ExtractorError
    from corpuscrawl.learn.training import write_file_card

    for name in models:
        try:
            with threadpool_limits(limits=1):
                path = write_file_card(name, dirs_of[name], args.models_dir, show_progress=not args.quiet)
        except (ExtractorError, ValueError) as exc:
            print(f"corpuscrawl train: {exc}", file=sys.stderr)
            return 2
        print(f"{name}: wrote {path}", file=sys.stderr)
    return 0


def convert(args: argparse.Namespace) -> int:
    """``--convert FILE``: write FILE's model in today's format; returns the exit code."""
    from corpuscrawl.extract.base import ExtractorError
    from corpuscrawl.learn.convert import convert_file

    if args.model == "all":
        print("corpuscrawl train: --convert needs one MODEL, not all", file=sys.stderr)
        return 2
    try:
        path = convert_file(args.model, args.convert, args.models_dir)
    except (ExtractorError, OSError) as exc:
        print(f"corpuscrawl train: {exc}", file=sys.stderr)
        return 2
    print(f"{args.model}: converted {args.convert} into {path}", file=sys.stderr)
    return 0
