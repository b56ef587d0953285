"""One module per ``wikisilver`` subcommand.

Each module defines ``NAME``, ``HELP``, ``configure(parser)`` and ``run(args) -> int``; a module
that sets ``ACCEPTS_BEAM_OPTIONS = True`` receives unknown options as ``args.beam_args`` so every
Beam pipeline option (``--runner``, ``--direct_num_workers``, …) passes through unchanged. A module
that sets ``ACCEPTS_CONFIG = True`` takes ``--config FILE`` (TOML) and gets only the options given
on the command line in ``args``: wikisilver.config layers them over the file and the defaults.
"""

from __future__ import annotations

import argparse
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


GLOBAL_OPTIONS = ("command", "verbose", "quiet")  # the options of `wikisilver` itself, not of a command


def job_options(args: argparse.Namespace) -> dict[str, Any]:
    """A command's own options as given, for wikisilver.config's resolvers."""
    return {name: value for name, value in vars(args).items() if name not in GLOBAL_OPTIONS}
