"""One module per ``wikisilver`` subcommand.

Each module defines ``NAME``, ``HELP``, ``configure(parser)`` and ``run(args) -> int``; a module
that sets ``ACCEPTS_BEAM_OPTIONS = True`` receives unknown options as ``args.beam_args`` so every
Beam pipeline option (``--runner``, ``--direct_num_workers``, …) passes through unchanged.
"""

from __future__ import annotations

import importlib

# Order is the order in `wikisilver --help`.
COMMAND_MODULES = (
    "build",
    "entities",
    "classes",
    "train",
    "evaluate",
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
