"""The ``wikisilver`` command line: a thin dispatcher over ``wikisilver.commands``.

Expected failures (:class:`~wikisilver.errors.WikisilverError`) become one line on stderr and
exit code 2; nothing the user did wrong ends in a traceback.
"""

from __future__ import annotations

import argparse
import logging
import sys

from wikisilver import __version__
from wikisilver.commands import load_commands
from wikisilver.errors import WikisilverError


def build_parser() -> tuple[argparse.ArgumentParser, dict]:
    """The ``wikisilver`` parser, and each command's (module, sub-parser) by name."""
    parser = argparse.ArgumentParser(
        prog="wikisilver",
        description="Build silver-standard NER corpora from Wikipedia dumps (Apache Beam).",
    )
    parser.add_argument("--version", action="version", version=f"wikisilver {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    parser.add_argument("-q", "--quiet", action="store_true", help="warnings and errors only")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    modules = {}
    for module in load_commands():
        layered = getattr(module, "ACCEPTS_CONFIG", False)
        # A command whose options can come from a file sees only the flags given: the file's values
        # and the defaults are layered under them by wikisilver.config.
        sub_parser = sub.add_parser(module.NAME, help=module.HELP, description=module.HELP,
                                    argument_default=argparse.SUPPRESS if layered else None)
        module.configure(sub_parser)
        if layered:
            sub_parser.add_argument(
                "--config", metavar="FILE",
                help="TOML file of options (keys are the long option names, e.g. lang = \"hu\", "
                     "types = [\"a.nt.bz2\"]); flags on the command line win",
            )
        modules[module.NAME] = (module, sub_parser)
    return parser, modules


class _QuietBeamImports(logging.Filter):
    """Beam warns at import time that Google Cloud clients are missing; they are not used here."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("apitools not found")


def main(argv: list[str] | None = None) -> int:
    """Run one command; its exit code (2: bad input, one line on stderr)."""
    parser, modules = build_parser()
    args, extra = parser.parse_known_args(argv)
    if not args.command:
        parser.print_help()
        return 2
    module, _ = modules[args.command]
    if extra and not getattr(module, "ACCEPTS_BEAM_OPTIONS", False):
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    args.beam_args = extra
    level = logging.DEBUG if args.verbose else logging.WARNING if args.quiet else logging.INFO
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    for handler in logging.getLogger().handlers:
        handler.addFilter(_QuietBeamImports())
    try:
        return int(module.run(args) or 0)
    except WikisilverError as error:
        print(f"wikisilver {args.command}: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"wikisilver {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
