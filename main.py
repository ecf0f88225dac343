"""spinlab: spinning rigid bodies in real time, and why the numerics matter.

The command line (design.md §Contracts). Each subcommand is a small function; every mistake a user can make
ends as one line on stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from sim.errors import InputError, SpinlabError

ROOT = Path(__file__).resolve().parent
DEFAULT_BENCH_JSON = ROOT / "benchmarks" / "results" / "bench.json"
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (with a pointer to --help) and exit status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def _writable_json_path(text: str) -> Path:
    """An argparse type: a path whose directory exists and is writable, checked before any work is done."""
    path = Path(text)
    directory = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"'{text}' is a directory, not a file")
    if not directory.is_dir():
        raise argparse.ArgumentTypeError(f"directory '{directory}' of '{text}' does not exist")
    if not os.access(directory, os.W_OK):
        raise argparse.ArgumentTypeError(f"directory '{directory}' of '{text}' is not writable")
    return path


def _cmd_bench(args: argparse.Namespace) -> int:
    from benchmarks.runner import run_all

    json_path = args.json or DEFAULT_BENCH_JSON
    json_path.parent.mkdir(parents=True, exist_ok=True)
    run_all(quick=args.quick, json_path=json_path)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="spinlab",
        description="Spinning rigid bodies in real time, and why the numerics matter.",
        epilog="Run 'spinlab COMMAND --help' for the options of a command.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    bench = commands.add_parser(
        "bench",
        help="run the benchmark suite and write JSON results",
        description="Run the benchmarks (today: the contiguous-list entity store against a node-based linked "
        "list and a Python list, as in seed 000), print a table per benchmark and write all results as JSON.",
    )
    bench.add_argument("--quick", action="store_true", help="smaller sizes and fewer repeats (well under a minute)")
    bench.add_argument(
        "--json",
        type=_writable_json_path,
        metavar="OUT.json",
        help=f"where to write the results (default: {DEFAULT_BENCH_JSON.relative_to(ROOT)})",
    )
    bench.set_defaults(handler=_cmd_bench)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    try:
        return args.handler(args)
    except InputError as error:
        print(f"spinlab {args.command}: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except SpinlabError as error:
        print(f"spinlab {args.command}: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"spinlab {args.command}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
