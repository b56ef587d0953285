"""Entity sources declared once (wikisilver.entities.sources): every list that names sources is
derived from the declarations, every file input is fingerprinted, and a new source of
(title, class) files is a declaration and a reader -- typed, fingerprinted and in the manifest."""

from __future__ import annotations

import argparse
import dataclasses
import json
from collections import Counter
from pathlib import Path

import apache_beam as beam
import pytest

from build_support import check_accounting, read_corpus, read_stats
from wikisilver.config import BuildConfig, resolve_build
from wikisilver.config.checks import check_inputs
from wikisilver.config.options import ENTITIES_OPTIONS, ENTITY_SOURCE_OPTIONS, path_options
from wikisilver.config.resolve import demo_inputs
from wikisilver.entities import sources
from wikisilver.entities.sources import Source
from wikisilver.entities.typing import TitleEvidence, evidence_fields, type_title
from wikisilver.errors import InputError
from wikisilver.ontology import load_builtin_ontology, resolve_classes
from wikisilver.rerun import comparable_config, input_fingerprints
from wikisilver.titles import normalize_title

ONTOLOGY = load_builtin_ontology()
TABLE = resolve_classes(ONTOLOGY)
DEMO_DUMP, DEMO_TYPES = demo_inputs()


def read_tsv_classes(path: str, problems: Counter):
    """The fake source's reader: ``title<TAB>DBpedia class`` lines."""
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            title, tab, cls = line.rstrip("\n").partition("\t")
            if not (tab and title and cls):
                problems["malformed_lines"] += 1
                continue
            yield normalize_title(title), cls


# Between the types (20) and the SPARQL endpoint (30).
TSV = Source("tsv_types", "file", "title<TAB>DBpedia class table (repeatable)", repeatable=True,
             evidence="tsv", precedence=25, reader=read_tsv_classes)
# What adding the source's field to BuildConfig gives.
TsvConfig = dataclasses.make_dataclass(
    "TsvConfig", [("tsv_types", tuple, dataclasses.field(default=()))], bases=(BuildConfig,), frozen=True
)


def declare_tsv(monkeypatch) -> None:
    """The fake source, declared for the test only (every config must have its field from then on)."""
    monkeypatch.setattr(sources, "SOURCES", sources.SOURCES)
    sources.register(TSV)


def demo_config(tmp_path: Path, **changes) -> BuildConfig:
    return dataclasses.replace(resolve_build({"demo": True, "out": str(tmp_path / "out")}), **changes)


@pytest.fixture
def base(tmp_path) -> BuildConfig:
    """The demo's config, resolved before the fake source is declared."""
    return demo_config(tmp_path)


@pytest.fixture
def tsv_source(monkeypatch, base):
    declare_tsv(monkeypatch)
    return TSV


def test_every_declared_source_is_a_config_field_of_its_shape():
    fields = {field.name: field for field in dataclasses.fields(BuildConfig)}
    for source in sources.SOURCES:
        assert source.option in fields, f"declare BuildConfig.{source.option} for {source.flag}"
        assert str(fields[source.option].type).startswith("tuple") == source.repeatable, source.option
        assert all(setting in fields for setting in source.settings), source.option
    assert set(ENTITY_SOURCE_OPTIONS) <= set(ENTITIES_OPTIONS)


def test_every_path_option_and_every_file_source_is_fingerprinted(tmp_path):
    # Each option of the config that names files, and each declared source, set to files of its
    # own: each of those files must be among the rerun's fingerprints.
    config = demo_config(tmp_path)
    names = {f.name for f in dataclasses.fields(BuildConfig)} & (path_options() - {"out", "config"})
    names |= {source.option for source in sources.SOURCES} | {"second_pass"}
    for name in sorted(names):
        source = next((s for s in sources.SOURCES if s.option == name), None)
        if source is not None and source.kind == "url":
            assert not source.fingerprinted  # an endpoint's answers have no content to compare
            continue
        target = tmp_path / name
        if source is not None and source.kind == "dir":
            target.mkdir()
            (target / "Mapping_en:Infobox_x.ttl").write_text("# mapping\n")
            wanted = str(target / "Mapping_en:Infobox_x.ttl")
        else:
            target.write_text(f"content of {name}\n")
            wanted = str(target)
        repeatable = isinstance(getattr(config, name), tuple)
        value = (*((DEMO_DUMP,) if name == "dumps" else ()), str(target)) if repeatable else str(target)
        prints = input_fingerprints(dataclasses.replace(config, **{name: value}))
        fingerprinted = {record["path"] for records in prints.values() for record in records}
        assert str(Path(wanted).resolve()) in fingerprinted, f"{name} is not fingerprinted"


def test_declarations_that_contradict_each_other_fail_at_import():
    with pytest.raises(ValueError, match="declared twice"):
        sources.checked((*sources.SOURCES, dataclasses.replace(TSV, option="types")))
    with pytest.raises(ValueError, match="must be fingerprinted"):
        sources.checked((*sources.SOURCES, dataclasses.replace(TSV, fingerprinted=False)))
    with pytest.raises(ValueError, match="declared twice"):
        sources.checked((*sources.SOURCES, dataclasses.replace(TSV, precedence=20)))


def test_the_documented_precedence_comes_from_the_declarations():
    assert sources.precedence() == ("entities", "types", "sparql", "langlinks", "infobox")
    assert sources.tie_breaker() == "infobox"
    assert evidence_fields() == ("flags", "aliases", *sources.precedence())


def test_evidence_no_source_declares_fails_when_the_job_is_constructed():
    from wikisilver.pipelines.typing import _group_evidence

    with pytest.raises(TypeError, match="no entity source gives evidence named wikidata"):
        TitleEvidence(wikidata=("City",))
    with beam.Pipeline() as pipeline, pytest.raises(ValueError, match="wikidata is not a field"):
        flags = pipeline | "Flags" >> beam.Create([])
        _group_evidence({"flags": flags, "wikidata": pipeline | "Other" >> beam.Create([])})


def test_a_new_source_gets_its_flag_its_checks_and_its_place(tsv_source, base, tmp_path):
    from wikisilver.commands import build, entities

    for command in (build, entities):
        parser = argparse.ArgumentParser()
        command.configure(parser)
        args = parser.parse_args(["--tsv-types", "a.tsv", "--tsv-types", "b.tsv"])
        assert args.tsv_types == ["a.tsv", "b.tsv"]
    assert "tsv_types" in path_options() and "tsv_types" in sources.options()
    with pytest.raises(InputError, match="no such file"):
        check_inputs(TsvConfig(**dataclasses.asdict(base), tsv_types=(str(tmp_path / "missing"),)))
    assert sources.precedence() == ("entities", "types", "tsv", "sparql", "langlinks", "infobox")


def test_a_new_source_types_titles_with_its_precedence(tsv_source):
    def typed(**evidence):
        return type_title("Volga", TitleEvidence(**evidence), "en", ONTOLOGY, TABLE)

    alone = typed(tsv=("River",))
    assert (alone.info.entity.dbpedia_class, alone.info.entity.conll, alone.info.entity.source) == ("River", "LOC", "tsv")
    assert alone.decision == "agreed"
    # Agreeing on the tag, the class comes from the first by precedence: types > tsv > sparql.
    assert typed(types=("Stream",), tsv=("River",)).info.entity.source == "types"
    assert typed(tsv=("River",), sparql=("Stream",)).info.entity.source == "tsv"
    conflict = typed(types=("City",), tsv=("Band",), sparql=("River",))
    assert [c.source for c in conflict.conflicts[0].candidates] == ["types", "tsv", "sparql"]
    assert conflict.decision == "majority" and conflict.info.entity.source == "types"


def test_a_new_source_is_read_through_its_reader_and_the_title_filter(tsv_source, tmp_path):
    from wikisilver.entities.bloom import BloomFilter
    from wikisilver.pipelines.evidence import _read_classes

    table = tmp_path / "classes.tsv"
    table.write_text("Volga\tRiver\nnot a row\nBlack_Sea\tSea\n", encoding="utf-8")
    out = list(_read_classes((3, str(table)), TSV))
    assert out[:2] == [("Volga", ("River", 3)), ("Black Sea", ("Sea", 3))]
    assert out[2].value == {"input_problems.tsv_types.malformed_lines": 1}
    bloom = BloomFilter(1 << 12, 4)
    bloom.add("Volga")
    filtered = [pair for pair in _read_classes((0, str(table)), TSV, (bloom.bits, bloom.hashes, bytes(bloom.array)))
                if isinstance(pair, tuple)]
    assert filtered == [("Volga", ("River", 0))]


def test_a_new_source_is_fingerprinted(tsv_source, base, tmp_path):
    table = tmp_path / "classes.tsv"
    table.write_text("Volga\tRiver\n", encoding="utf-8")
    config = TsvConfig(**dataclasses.asdict(base), tsv_types=(str(table),))
    before = comparable_config(config, input_fingerprints(config))
    assert len(before["tsv_types"]) == 1 and before["tsv_types"][0].startswith("sha256:")
    table.write_text("Volga\tStream\n", encoding="utf-8")
    after = comparable_config(config, input_fingerprints(config))
    assert before["tsv_types"] != after["tsv_types"]
    assert {k for k in before if before[k] != after[k]} == {"tsv_types"}


@pytest.mark.slow
def test_a_new_source_types_the_demo_build_and_reruns_on_change(monkeypatch, tmp_path):
    from wikisilver.pipelines.build import run_build
    from wikisilver.errors import AlreadyBuilt

    # The demo's types without the Volga, which the new source types instead: the same corpus.
    types = tmp_path / "types.nt"
    types.write_text("".join(line for line in Path(DEMO_TYPES).read_text(encoding="utf-8").splitlines(True)
                             if "/Volga>" not in line), encoding="utf-8")
    table = tmp_path / "classes.tsv"
    table.write_text("Volga\tRiver\n", encoding="utf-8")
    reference = tmp_path / "reference"
    base = resolve_build({"demo": True, "out": str(reference)})
    run_build(base)
    declare_tsv(monkeypatch)
    out = tmp_path / "out"
    config = TsvConfig(**{**dataclasses.asdict(base), "out": str(out), "types": (str(types),)},
                       tsv_types=(str(table),))
    check_inputs(config)
    stats = run_build(config)
    check_accounting(stats)
    assert read_corpus(out) == read_corpus(reference)
    assert stats["titles_typed_by_source"]["tsv"] == 1 and "tsv" not in read_stats(reference)["titles_typed_by_source"]
    assert stats["titles_typed_by_source"]["types"] == read_stats(reference)["titles_typed_by_source"]["types"] - 1
    manifest = json.loads((out / "manifest.json").read_text())
    assert [r["path"] for r in manifest["inputs"]["tsv_types"]] == [str(table.resolve())]
    assert [r["path"] for r in manifest["fingerprints"]["tsv_types"]] == [str(table.resolve())]
    assert manifest["config"]["tsv_types"] == [str(table)]
    with pytest.raises(AlreadyBuilt):  # the same inputs: a no-op
        run_build(config)
    table.write_text("Volga\tStream\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"changed: tsv_types"):  # not a no-op any more
        run_build(config)
