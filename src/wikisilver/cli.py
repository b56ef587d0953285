"""The ``wikisilver`` command line: a thin dispatcher over ``wikisilver.commands``.

Expected failures (:class:`~wikisilver.errors.WikisilverError`) become one line on stderr and
exit code 2; nothing the user did wrong ends in a traceback. A reader of the output that goes away
(``wikisilver export … --out - | head``) ends the command quietly with status 141, as a Unix tool
killed by SIGPIPE.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys

from wikisilver import __version__
from wikisilver.commands import load_commands, unknown_option
from wikisilver.errors import WikisilverError


def build_parser() -> tuple[argparse.ArgumentParser, dict]:
    """The ``wikisilver`` parser, and each command's (module, sub-parser) by name."""
    parser = argparse.ArgumentParser(
        prog="wikisilver",
        description="Build silver-standard NER corpora from Wikipedia dumps (Apache Beam).",
    )
    parser.add_argument("--version", action="version", version=f"wikisilver {__version__}")
    add_verbosity(parser, argparse.SUPPRESS)
    parser.set_defaults(verbose=False, quiet=False)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    modules = {}
    for module in load_commands():
        layered = getattr(module, "ACCEPTS_CONFIG", False)
        # A command whose options can come from a file sees only the flags given: the file's values
        # and the defaults are layered under them by wikisilver.config.
        sub_parser = sub.add_parser(module.NAME, help=module.HELP, description=module.HELP,
                                    argument_default=argparse.SUPPRESS if layered else None)
        module.configure(sub_parser)
        add_verbosity(sub_parser, argparse.SUPPRESS)  # -q/-v/--version after the command too
        sub_parser.add_argument("--version", action="version", version=f"wikisilver {__version__}")
        if layered:
            sub_parser.add_argument(
                "--config", metavar="FILE",
                help="TOML file of options (keys are the long option names, e.g. lang = \"hu\", "
                     "types = [\"a.nt.bz2\"]); flags on the command line win",
            )
        modules[module.NAME] = (module, sub_parser)
    return parser, modules


def add_verbosity(parser: argparse.ArgumentParser, default: object) -> None:
    parser.add_argument("-v", "--verbose", action="store_true", default=default,
                        help="debug logging, and Apache Beam's own INFO lines")
    parser.add_argument("-q", "--quiet", action="store_true", default=default, help="warnings and errors only")


def configure_logging(verbose: bool, quiet: bool) -> None:
    """Our lines at INFO (DEBUG with -v, WARNING with -q); Beam's own INFO lines (dozens per job)
    only with -v."""
    level = logging.DEBUG if verbose else logging.WARNING if quiet else logging.INFO
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("apache_beam").setLevel(logging.INFO if verbose else logging.WARNING)
    # Beam logs starting and stopping a Flink or Spark job server as WARNINGs: routine, not trouble.
    logging.getLogger("apache_beam.utils.subprocess_server").setLevel(logging.INFO if verbose else logging.ERROR)
    for name in ("botocore", "boto3", "google", "urllib3"):  # the cloud clients of gs:// and s3:// paths
        logging.getLogger(name).setLevel(logging.INFO if verbose else logging.WARNING)
    for handler in logging.getLogger().handlers:
        handler.addFilter(_QuietBeamImports())
        if not verbose:
            handler.addFilter(_QuietBeamRootLines())


class _QuietBeamImports(logging.Filter):
    """Beam warns at import time that Google Cloud clients are missing; they are not used here."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("apitools not found")


class _QuietBeamRootLines(logging.Filter):
    """Beam's file systems log INFO lines on the root logger ("Finished listing 4 files …") at every
    listing of a gs:// or s3:// path; they are Beam's own INFO lines, shown only with -v."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.name == "root" and record.levelno < logging.WARNING
                    and f"{os.sep}apache_beam{os.sep}" in record.pathname)


def main(argv: list[str] | None = None) -> int:
    """Run one command; its exit code (2: bad input, one line on stderr)."""
    parser, modules = build_parser()
    args, extra = parser.parse_known_args(argv)
    if not args.command:
        parser.print_help()
        return 2
    module, sub_parser = modules[args.command]
    beam = getattr(module, "ACCEPTS_BEAM_OPTIONS", False)
    configure_logging(args.verbose, args.quiet)
    mistake = unknown_option(extra, sub_parser, beam) if extra else None
    if mistake:
        print(f"wikisilver {args.command}: error: {mistake}", file=sys.stderr)
        return 2
    args.beam_args = extra
    try:
        return int(module.run(args) or 0)
    except WikisilverError as error:
        print(f"wikisilver {args.command}: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"wikisilver {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # Python's own flush of stdout at exit would fail again: point stdout at /dev/null.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
