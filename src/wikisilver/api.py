"""The Python API: the CLI's building blocks (build, load, train, evaluate) as plain functions.

Every step of the method is reachable from Python without argparse: :func:`build` runs the
Beam job (steps 1-5) exactly as ``wikisilver build`` does, :func:`load_corpus` opens its output
for streaming, and :func:`train` / :func:`evaluate` wrap the CRF of §6. The functions use the
same resolver of options (wikisilver.config) and the same jobs as the CLI, so the two cannot
drift apart.

Example::

    import wikisilver

    stats = wikisilver.build(demo=True, out="out/demo")
    corpus = wikisilver.load_corpus("out/demo")
    for sentence in corpus.sentences(exclude_low_quality=True):
        print(sentence.tokens, sentence.conll_tags)

The corpus's Parquet parts also load with Hugging Face ``datasets``; :func:`hf_features` gives
their schema as ``datasets.Features``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from wikisilver import paths
from wikisilver.corpus import read
from wikisilver.corpus.schema import hf_feature_dict
from wikisilver.errors import AlreadyBuilt, BuildProblems
from wikisilver.records import LabelledSentence

if TYPE_CHECKING:  # heavy or optional imports, only for the annotations
    import datasets
    import pandas

    from wikisilver.ner.crf import Tagger, TrainReport
    from wikisilver.ner.scores import Scores

__all__ = [
    "HF_FEATURES",
    "BuildProblems",
    "Corpus",
    "build",
    "evaluate",
    "hf_features",
    "load_corpus",
    "train",
]


# --------------------------------------------------------------------------- build


def build(
    dump: str | os.PathLike | Iterable[str | os.PathLike] | None = None,
    *,
    out: str | os.PathLike,
    lang: str | None = None,
    types: Iterable[str | os.PathLike] | str | None = None,
    ontology: str | os.PathLike | None = None,
    entities: Iterable[str | os.PathLike] | str | None = None,
    infobox_mappings: str | os.PathLike | None = None,
    overwrite: bool = False,
    beam_args: Sequence[str] = (),
    demo: bool = False,
    **options: Any,
) -> dict:
    """Build a silver NER corpus in ``out``, as ``wikisilver build``; returns the stats.json object.

    ``dump`` is one dump file or several; ``lang`` defaults to the language of the first dump's
    ``<siteinfo>``. ``entities`` takes tables or directories written by ``wikisilver entities``.
    ``options`` are the other fields of :class:`wikisilver.config.BuildConfig` (``shards``,
    ``strict``, ``drop_low_quality``, ``disabled_rules``, ``sparql``, ``redirect_sql``, …);
    ``shards`` defaults to one part per 16 MiB of compressed dump. ``beam_args`` are passed to
    Apache Beam unchanged (``["--direct_num_workers", "2"]``). ``demo=True`` fills in the demo dump
    and types bundled with the package.

    A rerun over a finished corpus of the same inputs and options does nothing and returns its
    stats. With ``strict=True``, rejected pages or stream errors raise :class:`BuildProblems`
    (after the corpus is written). Bad input raises :class:`~wikisilver.errors.InputError`.

    Example::

        stats = wikisilver.build("huwiki-pages-articles.xml.bz2", out="out/hu",
                                 types=["instance_types_hu.ttl.bz2"], shards=8)
        print(stats["sentences_kept"], stats["entities_by_tag"])
    """
    from wikisilver.config import resolve_build
    from wikisilver.pipelines.build import run_build
    from wikisilver.stats import describe_problems, page_problems

    config = resolve_build({
        **options, "dumps": dump, "out": out, "lang": lang, "types": types, "ontology": ontology,
        "entities": entities, "infobox_mappings": infobox_mappings, "overwrite": overwrite,
        "beam_args": beam_args, "demo": demo,
    })
    try:
        stats = run_build(config)
    except AlreadyBuilt as done:  # a no-op rerun answers --strict as the run it repeats did
        stats = done.stats
    rejected, stream_errors = page_problems(stats)
    if config.strict and (rejected or stream_errors):
        raise BuildProblems(f"{describe_problems(stats)}; see {config.out}/rejects/", stats)
    return stats


# --------------------------------------------------------------------------- reading


class Corpus:
    """A built corpus on disk, read lazily: nothing is loaded until asked for.

    Example::

        corpus = wikisilver.load_corpus("out/demo")
        len(corpus)                      # sentences, from the Parquet footers
        corpus.stats["ne_density"]
        corpus.article("Budapest")[0].conll_tags
    """

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = os.fspath(path) if paths.is_remote(path) else Path(path)  # gs://, s3://: as given
        self.files: list[Path] = read.parquet_files(self.path)  # raises InputError when there are none

    def __repr__(self) -> str:
        return f"Corpus({str(self.path)!r}, parts={len(self.files)})"

    @property
    def stats(self) -> dict:
        """The build's ``stats.json`` (see docs/output.md)."""
        return read.read_corpus_json(self.path, "stats.json")

    @property
    def manifest(self) -> dict:
        """The build's ``manifest.json``: inputs with checksums, configuration, outputs."""
        return read.read_corpus_json(self.path, "manifest.json")

    def __len__(self) -> int:
        """Sentences (rows) in all parts, low-quality ones included; only the footers are read."""
        return read.sentence_count(self.path)

    def sentences(self, exclude_low_quality: bool = False, exclude_second_pass: bool = False) -> Iterator[LabelledSentence]:
        """Every sentence, streamed part by part (within a part: by page id, sentence index);
        ``exclude_second_pass``: only those the rules labelled (``source`` ``links``)."""
        return read.read_sentences(self.path, exclude_low_quality=exclude_low_quality,
                                   exclude_second_pass=exclude_second_pass)

    def __iter__(self) -> Iterator[LabelledSentence]:
        return self.sentences()

    def article(self, title: str) -> list[LabelledSentence]:
        """The sentences of one article by sentence index; ``[]`` when the title is not in the corpus."""
        return read.read_article(self.path, title)

    def to_arrow(self, exclude_low_quality: bool = False) -> pa.Table:
        """All rows as one Arrow table (loads the whole corpus: fine for a small wiki or a sample)."""
        return read.read_table(self.path, exclude_low_quality=exclude_low_quality)

    def to_pandas(self, exclude_low_quality: bool = False) -> pandas.DataFrame:
        """All rows as a pandas DataFrame (needs pandas; loads the whole corpus)."""
        try:
            import pandas  # noqa: F401 - only checked for: pyarrow does the conversion
        except ImportError:
            raise ImportError("Corpus.to_pandas() needs pandas, which is not installed "
                              "(pip install pandas); Corpus.to_arrow() needs nothing extra") from None
        return self.to_arrow(exclude_low_quality).to_pandas()


def load_corpus(path: str | os.PathLike) -> Corpus:
    """Open a corpus written by :func:`build` (its directory, or a directory of Parquet parts).

    Example::

        corpus = wikisilver.load_corpus("output/huwiki/20240601")
        kept = sum(1 for _ in corpus.sentences(exclude_low_quality=True))
    """
    return Corpus(path)


# --------------------------------------------------------------------------- §6: train, evaluate


def _corpus_paths(corpus: Corpus | str | os.PathLike | Iterable[Corpus | str | os.PathLike]) -> list[str]:
    """Paths for :func:`wikisilver.corpus.inputs.read_corpora`: a :class:`Corpus` by its Parquet parts."""
    items = [corpus] if isinstance(corpus, (Corpus, str, os.PathLike)) else list(corpus)
    paths: list[str] = []
    for item in items:
        paths.extend(map(str, item.files) if isinstance(item, Corpus) else [os.fspath(item)])
    return paths


def train(
    corpus: Corpus | str | os.PathLike | Iterable[Corpus | str | os.PathLike],
    model: str | os.PathLike,
    *,
    fmt: str | None = None,
    tagset: str = "conll",
    encoding: str = "utf-8",
    **options: Any,
) -> TrainReport:
    """Train a CRF tagger on one or more corpora and save it to ``model``, as ``wikisilver train``.

    ``corpus`` is a :class:`Corpus`, a corpus file or directory (ours or gold CoNLL files; the
    format comes from the extensions unless ``fmt`` is given), or a list of them. ``options`` go to
    :func:`wikisilver.ner.crf.train`: ``max_tokens``, ``exclude_low_quality``, ``max_iterations``,
    ``c1``, ``c2``, ``gazetteer``, ``min_feature_freq``.

    Example::

        report = wikisilver.train("out/demo/tsv", "demo.crf", max_iterations=50)
        print(report.sentences, report.labels)
    """
    from wikisilver.corpus.inputs import read_corpora
    from wikisilver.ner.crf import train as train_crf

    sentences = read_corpora(_corpus_paths(corpus), fmt, tagset=tagset, encoding=encoding)
    return train_crf(sentences, os.fspath(model), tagset=tagset, **options)


def evaluate(
    model: Tagger | str | os.PathLike,
    gold: Corpus | str | os.PathLike | Iterable[Corpus | str | os.PathLike],
    fmt: str | None = None,
    *,
    tagset: str | None = None,
    gazetteer: str | None = None,
    encoding: str = "utf-8",
) -> Scores:
    """Score a trained tagger on gold data, as ``wikisilver evaluate`` (conlleval's exact-match P/R/F1).

    ``model`` is a model path or a loaded :class:`wikisilver.ner.crf.Tagger`; ``tagset`` picks the tag
    layer when the gold is our corpus (default: the one the model was trained on).

    Example::

        scores = wikisilver.evaluate("demo.crf", "conll2003/eng.testb", fmt="conll2003")
        print(f"{scores.f1:.1f}", scores.per_type["PER"].f1)
    """
    from wikisilver.corpus.inputs import read_corpora
    from wikisilver.ner.crf import Tagger
    from wikisilver.ner.scores import evaluate_tagger

    tagger = model if isinstance(model, Tagger) else Tagger(os.fspath(model), gazetteer=gazetteer)
    sentences = read_corpora(_corpus_paths(gold), fmt, tagset=tagset or tagger.tagset, encoding=encoding)
    return evaluate_tagger(tagger, sentences)


# --------------------------------------------------------------------------- Hugging Face datasets


def _plain(feature: dict | list) -> str | list | dict:
    """A feature of :func:`~wikisilver.corpus.schema.hf_feature_dict` in the short nested form:
    "dtype", [item], {field: …}, a ClassLabel as {"class_label": {"names": […]}} (as a card's YAML)."""
    if isinstance(feature, list):
        return [_plain(feature[0])]
    kind = feature.get("_type")
    if kind == "Value":
        return feature["dtype"]
    if kind == "Sequence":
        return [_plain(feature["feature"])]
    if kind == "ClassLabel":
        return {"class_label": {"names": list(feature["names"])}}
    return {name: _plain(inner) for name, inner in feature.items()}


HF_FEATURES: dict[str, str | list | dict] = {name: _plain(feature) for name, feature in hf_feature_dict().items()}
"""Our Parquet schema as plain data: ``{"tokens": ["string"], "spans": [{"start": "int32", …}], …,
"ner_tags": [{"class_label": {"names": ["O", "B-PER", …]}}]}``."""


def hf_features() -> datasets.Features:
    """:data:`HF_FEATURES` as ``datasets.Features`` (needs the ``datasets`` package).

    Example::

        import datasets
        ds = datasets.load_dataset("parquet", data_files="out/demo/parquet/*.parquet",
                                   features=wikisilver.hf_features(), split="train")
        ds[0]["tokens"], ds[0]["conll_tags"]
    """
    try:
        import datasets
    except ImportError:
        raise ImportError("hf_features() needs the Hugging Face datasets package (pip install 'wikisilver[hf]')") from None

    return datasets.Features.from_dict(hf_feature_dict())
