"""One resolver of options (wikisilver.config) for the command line, a TOML file and the API."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from wikisilver.cli import build_parser
from wikisilver.commands import GLOBAL_OPTIONS, job_options
from wikisilver.config import BuildConfig, EntitiesConfig, resolve_build, resolve_entities
from wikisilver.config.resolve import demo_inputs
from wikisilver.errors import InputError

DEMO_DUMP, DEMO_TYPES = demo_inputs()


def parsed(argv: list[str]) -> dict:
    """The options a command gets from the command line, as its run() hands them on."""
    parser, _ = build_parser()
    args, extra = parser.parse_known_args(argv)
    args.beam_args = extra
    return job_options(args)


def test_demo_fills_in_the_bundled_inputs_and_the_defaults():
    config = resolve_build({"demo": True})
    assert config.dumps == (DEMO_DUMP,) and config.types == (DEMO_TYPES,)
    assert config.lang == "en" and config.out == os.path.join("output", "demo", "latest")
    assert config.shards == 4 and config.progress_interval == 30.0 and not config.overwrite


def test_the_language_comes_from_siteinfo_when_not_given():
    config = resolve_build({"dumps": [DEMO_DUMP], "types": DEMO_TYPES})
    assert config.lang == "en" and config.out == os.path.join("output", "enwiki", "latest")
    assert config.types == (DEMO_TYPES,)  # a lone path is a list of one


def test_command_line_and_api_give_the_same_config(tmp_path):
    flags = parsed(["build", "--dump", DEMO_DUMP, "--types", DEMO_TYPES, "--out", str(tmp_path), "--shards", "3",
                    "--disable-rule", "derived_word", "--strict", "--runner", "DirectRunner"])
    from_cli = resolve_build(flags)
    from_api = resolve_build({"dumps": DEMO_DUMP, "types": [Path(DEMO_TYPES)], "out": tmp_path, "shards": 3,
                              "disabled_rules": "derived_word", "strict": True, "beam_args": ["--runner", "DirectRunner"]})
    assert from_cli == from_api
    assert from_cli.disabled_rules == ("derived_word",) and from_cli.beam_args == ("--runner", "DirectRunner")


def test_every_flag_of_build_and_entities_reaches_the_config(tmp_path):
    # A flag whose value no resolver takes would be silently dropped: each one lands in a field.
    parser, modules = build_parser()
    fields = set(EntitiesConfig.__dataclass_fields__) | {"demo", "config"}
    for name in ("build", "entities"):
        _, sub_parser = modules[name]
        dests = {action.dest for action in sub_parser._actions} - {"help", *GLOBAL_OPTIONS}  # -q/-v: global
        assert dests <= fields, (name, dests - fields)


def test_a_config_file_gives_options_and_flags_win(tmp_path):
    config = tmp_path / "build.toml"
    config.write_text(f'dump = "{DEMO_DUMP}"\ntypes = ["{DEMO_TYPES}"]\nlang = "en"\nshards = 2\n'
                      f'disable-rule = ["derived_word"]\nout = "{tmp_path / "fromfile"}"\n', encoding="utf-8")
    resolved = resolve_build(parsed(["build", "--config", str(config), "--shards", "3", "--out", str(tmp_path / "o")]))
    assert resolved.shards == 3 and resolved.out == str(tmp_path / "o")
    assert resolved.dumps == (DEMO_DUMP,) and resolved.types == (DEMO_TYPES,)
    assert resolved.disabled_rules == ("derived_word",)


def test_entities_take_their_options_from_a_config_file(tmp_path):
    config = tmp_path / "entities.toml"
    config.write_text(f'dump = ["{DEMO_DUMP}"]\ntypes = "{DEMO_TYPES}"\nout = "{tmp_path / "out"}"\nformat = "parquet"\n',
                      encoding="utf-8")
    resolved = resolve_entities(parsed(["entities", "--config", str(config)]))
    assert isinstance(resolved, EntitiesConfig)
    assert resolved.lang == "en" and resolved.table_format == "parquet" and resolved.shards == 4


def test_bad_config_files_are_named(tmp_path):
    config = tmp_path / "build.toml"
    config.write_text('lang = "en"\nno_such_option = 1\n', encoding="utf-8")
    with pytest.raises(InputError, match="build.toml.*unknown option 'no_such_option'"):
        resolve_build({"config": config})
    config.write_text('lang = "en\n', encoding="utf-8")
    with pytest.raises(InputError, match="not valid TOML"):
        resolve_build({"config": config})
    with pytest.raises(InputError, match="no such config file"):
        resolve_build({"config": tmp_path / "missing.toml"})
    config.write_text('demo = true\n', encoding="utf-8")
    with pytest.raises(InputError, match="unknown option 'demo'"):  # a build option, not an entities one
        resolve_entities({"config": config, "out": str(tmp_path)})


def test_entity_table_directories_become_their_part_files(tmp_path):
    table = tmp_path / "table" / "entities"
    table.mkdir(parents=True)
    for name in ("part-00001-of-00002.tsv", "part-00000-of-00002.tsv", "notes.txt"):
        (table / name).write_text("", encoding="utf-8")
    config = resolve_build({"demo": True, "entities": [str(tmp_path / "table")]})
    assert config.entities == (str(table / "part-00000-of-00002.tsv"), str(table / "part-00001-of-00002.tsv"))


def test_bad_options_fail_with_one_clear_message(tmp_path):
    with pytest.raises(InputError, match="no dump given"):
        resolve_build({})
    with pytest.raises(InputError, match="nope.xml.bz2.*no such file"):
        resolve_build({"dumps": [str(tmp_path / "nope.xml.bz2")], "types": DEMO_TYPES})
    with pytest.raises(InputError, match="not a Wikipedia language code"):
        resolve_build({"demo": True, "lang": "English!"})
    with pytest.raises(InputError, match="unknown rule"):
        resolve_build({"demo": True, "disabled_rules": ["no_such_rule"]})
    with pytest.raises(InputError, match="--shards must be at least 1"):
        resolve_build({"demo": True, "shards": 0})
    with pytest.raises(InputError, match="no output directory"):
        resolve_entities({"dumps": [DEMO_DUMP], "types": [DEMO_TYPES]})
    with pytest.raises(TypeError, match="unexpected option.*shardz"):
        resolve_build({"demo": True, "shardz": 3})


def test_none_means_not_given():
    assert resolve_build({"demo": True, "shards": None, "lang": None, "out": None}) == resolve_build({"demo": True})
    assert isinstance(resolve_build({"demo": True}), BuildConfig)


def test_each_input_is_checked_once(monkeypatch):
    from wikisilver.config import checks

    checked = []
    real = checks.check_file
    monkeypatch.setattr(checks, "check_file", lambda path: checked.append(path) or real(path))
    resolve_build({"demo": True})
    assert sorted(checked) == sorted([DEMO_DUMP, DEMO_TYPES])
    with pytest.raises(InputError, match="no such file"):
        resolve_build({"demo": True, "dumps": [DEMO_DUMP, DEMO_DUMP + ".missing"]})
