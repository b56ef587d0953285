"""One module per ``wikisilver`` subcommand.

Each module defines ``NAME``, ``HELP``, ``configure(parser)`` and ``run(args) -> int``; a module
that sets ``ACCEPTS_BEAM_OPTIONS = True`` receives the options Beam's PipelineOptions knows as
``args.beam_args``, so every Beam pipeline option (``--runner``, ``--direct_num_workers``, …) passes
through unchanged; any other unknown option fails (:func:`unknown_option`). A module
that sets ``ACCEPTS_CONFIG = True`` takes ``--config FILE`` (TOML) and gets only the options given
on the command line in ``args``: wikisilver.config layers them over the file and the defaults.
"""

from __future__ import annotations

import argparse
import difflib
import importlib
from typing import Any

# Order is the order in `wikisilver --help`.
COMMAND_MODULES = (
    "build",
    "entities",
    "classes",
    "train",
    "evaluate",
    "tag",
    "anonymize",
    "split",
    "gazetteers",
    "export",
    "show",
    "report",
    "download",
)


def load_commands() -> list:
    """Import every command module that exists (so a partial checkout still has a working CLI)."""
    modules = []
    for name in COMMAND_MODULES:
        try:
            modules.append(importlib.import_module(f"wikisilver.commands.{name}"))
        except ModuleNotFoundError as error:
            if error.name != f"wikisilver.commands.{name}":
                raise
    return modules


GLOBAL_OPTIONS = ("command", "verbose", "quiet", "version")  # the options of `wikisilver` itself, not of a command


def job_options(args: argparse.Namespace) -> dict[str, Any]:
    """A command's own options as given, for wikisilver.config's resolvers."""
    return {name: value for name, value in vars(args).items() if name not in GLOBAL_OPTIONS}


def unknown_option(extra: list[str], parser: argparse.ArgumentParser, beam: bool) -> str | None:
    """The one line for the first argument in ``extra`` that nobody knows (None: all are known).

    ``extra`` is what a command's parser left over; for a command that runs a Beam job, the options
    Beam's PipelineOptions knows pass through, anything else is a mistake (most often a typo of
    one of the command's own options, which the line then suggests).
    """
    beam_parser = _beam_parser() if beam else None
    left = beam_parser.parse_known_args(extra)[1] if beam_parser else extra
    if not left:
        return None
    first = next((arg for arg in left if arg.startswith("-")), left[0])
    if not first.startswith("-"):
        return f"unexpected argument {first!r}"
    name = first.split("=", 1)[0]
    known = [s for action in parser._actions for s in action.option_strings if s.startswith("--")]
    if beam_parser is not None:
        known += [s for action in beam_parser._actions for s in action.option_strings if s.startswith("--")]
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.75)
    return f"unknown option {name}" + (f" (did you mean {close[0]}?)" if close else "")


def _beam_parser() -> argparse.ArgumentParser:
    """The parser Beam's PipelineOptions parses its flags with, holding every option it knows."""
    from apache_beam.options.pipeline_options import PipelineOptions

    found: list[argparse.ArgumentParser] = []
    PipelineOptions([]).get_all_options(add_extra_args_fn=found.append)
    return found[0]
