"""The OpenAPI document as served and as committed (``openapi.yaml``).

``python -m service.spec`` rewrites ``openapi.yaml`` at the project root from the code;
``python -m service.spec --check`` exits 1 if the committed file differs.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

COMMITTED = Path(__file__).resolve().parent.parent / "openapi.yaml"


def main(argv: list[str] | None = None) -> int:
    """Write (or with --check, compare) the committed openapi.yaml."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if the committed file is out of date")
    parser.add_argument("--output", type=Path, default=COMMITTED)
    args = parser.parse_args(argv)
    if args.output == COMMITTED and not (COMMITTED.parent / "pyproject.toml").exists():
        print(f"{COMMITTED.parent} is not a source checkout (service is installed there): run this from the "
              "project's root, or give --output", file=sys.stderr)
        return 2
    from . import create_app

    text = create_app().extensions["openapi"]["yaml"]
    if args.check:
        current = args.output.read_text(encoding="utf-8") if args.output.exists() else ""
        if current != text:
            print(f"{args.output} is out of date: run python -m service.spec", file=sys.stderr)
            return 1
        return 0
    args.output.write_text(text, encoding="utf-8")
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
