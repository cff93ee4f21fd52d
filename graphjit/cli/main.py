"""The `graphjit` command: its parser, and how each kind of failure ends.

- a mistake in the arguments (a missing file, no such NAME, a malformed input spec,
  an unreadable model file): argparse's usage line and one line saying what is
  wrong, exit code 2;
- the user's code fails (a build error, an exception in FILE or at run time): the
  error as Python shows it (a build error names the user's line), exit code 1.
"""
from __future__ import annotations

import argparse
import os
import sys
from typing import List, Optional

from . import bench_cmd, draw_cmd, export_cmd, inspect_cmd, run_cmd
from .targets import UsageError, UserCodeError

__all__ = ["main", "build_parser"]

_COMMANDS = (inspect_cmd, export_cmd, run_cmd, draw_cmd, bench_cmd)


def build_parser() -> argparse.ArgumentParser:
    version = sys.modules["graphjit"].__version__    # the package this module is part of
    parser = argparse.ArgumentParser(
        prog="graphjit",
        description="Compile, inspect, export, run, draw and benchmark graphjit models "
                    "without writing a script. A model is FILE.py:NAME (a Cell class built "
                    "with no arguments, a Cell instance or a function in FILE) with one "
                    "--input per tensor argument, or an exported .gjm file.",
        epilog="Run 'graphjit COMMAND --help' for the options of each command.")
    parser.add_argument("--version", action="version", version=f"graphjit {version}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for cmd in _COMMANDS:
        p = cmd.add_parser(sub)
        p.set_defaults(run=cmd.run, parser=p)
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    """Run the command line; returns the exit code (0 done, 1 the user's code failed,
    2 a mistake in the arguments)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:       # --help, --version, or argparse's usage error
        return e.code if isinstance(e.code, int) else 2
    try:
        return args.run(args) or 0
    except UsageError as e:
        args.parser.print_usage(sys.stderr)
        sys.stderr.write(f"{args.parser.prog}: error: {e}\n")
        return 2
    except UserCodeError as e:
        sys.stdout.flush()
        sys.stderr.write(e.report())
        return 1
    except BrokenPipeError:      # `graphjit inspect ... | head`: the reader left
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        sys.stderr.write("\ninterrupted\n")
        return 130
