"""The ``tokenomics`` command line.

Subcommands print tables readable in a terminal, or CSV/JSON for scripts (``--format``). Bad
input gives a one-line error on stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

import pandas as pd

import tokenomics as tk

EPILOG = """examples:
  tokenomics hardware                      list every accelerator
  tokenomics hardware show "GB200 NVL72"   one system with units and sources
  tokenomics models --format csv           model architectures as CSV
  tokenomics prices --model deepseek-r1    API prices of one model
"""


def _emit(frame: pd.DataFrame, fmt: str, *, index: bool = True) -> None:
    """Print a table in the requested format."""
    if fmt == "csv":
        sys.stdout.write(frame.to_csv(index=index))
    elif fmt == "json":
        out = frame.reset_index() if index else frame
        sys.stdout.write(out.to_json(orient="records", date_format="iso", indent=2) + "\n")
    else:
        with pd.option_context("display.max_rows", 500, "display.max_columns", 50, "display.width", 200,
                               "display.max_colwidth", 60):
            sys.stdout.write(frame.to_string(index=index, na_rep="-") + "\n")


HARDWARE_COLUMNS = [
    "name", "bf16_dense_tflops", "fp8_dense_tflops", "fp4_dense_tflops", "hbm_capacity_gb",
    "hbm_bandwidth_tb_per_s", "scaleup_domain_accelerators", "scaleup_bw_unidir_gb_per_s", "tdp_w",
    "release_year",
]


def _cmd_hardware(args: argparse.Namespace) -> None:
    if args.action == "show":
        if not args.name:
            raise ValueError("hardware show needs a NAME, e.g. tokenomics hardware show GB200")
        _emit(tk.hardware(args.name).to_frame(), args.format, index=False)
        return
    table = tk.hardware_table()
    cols = [c for c in HARDWARE_COLUMNS if c in table.columns] if args.format == "table" else list(table.columns)
    _emit(table[cols], args.format)


def _cmd_models(args: argparse.Namespace) -> None:
    if args.name:
        _emit(tk.model(args.name).to_frame(), args.format, index=False)
        return
    _emit(tk.model_table().drop(columns=["aliases", "note"], errors="ignore"), args.format)


def _cmd_prices(args: argparse.Namespace) -> None:
    table = tk.price_table(model=args.model, provider=args.provider)
    if args.format == "table":
        table = table.drop(columns=["source"], errors="ignore")
    _emit(table, args.format, index=False)


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser of the ``tokenomics`` command.

    Returns
    -------
    argparse.ArgumentParser
        Parser with one subparser per subcommand; each sets ``func``.
    """
    parser = argparse.ArgumentParser(
        prog="tokenomics",
        description="LLM inference economics on sourced catalogs: hardware, TCO, curves, cost and margin.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {tk.__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    def add(name: str, func: Callable[[argparse.Namespace], None], help_text: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_text, description=help_text)
        p.add_argument("--format", choices=("table", "csv", "json"), default="table",
                       help="output format (default: table)")
        p.set_defaults(func=func)
        return p

    hw = add("hardware", _cmd_hardware, "list accelerators, or show one with units and sources")
    hw.add_argument("action", nargs="?", choices=("list", "show"), default="list")
    hw.add_argument("name", nargs="?", help="hardware name or alias (for show)")
    md = add("models", _cmd_models, "list model architectures, or show one")
    md.add_argument("name", nargs="?", help="model name or alias")
    pr = add("prices", _cmd_prices, "list API prices [USD per million tokens]")
    pr.add_argument("--model", help="only this model")
    pr.add_argument("--provider", help="only this provider")
    # (section: more subcommands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line.

    Parameters
    ----------
    argv : sequence of str, optional
        Arguments without the program name (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        Exit status: 0 on success, 2 on bad input.
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    try:
        args.func(args)
    except (KeyError, ValueError, FileNotFoundError, FileExistsError) as err:
        message = err.args[0] if isinstance(err, KeyError) and err.args else err
        sys.stderr.write(f"tokenomics {args.command}: error: {message}\n")
        return 2
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
