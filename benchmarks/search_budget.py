"""Plot win rate against time per move from `skyjo eval --json` reports (the search agent's budgets).

    python benchmarks/search_budget.py REPORT.json [REPORT.json ...] --out docs/search_budget.png

Each report is one point: seat 0's agent (the first named on the `skyjo eval` line), its win rate
with the 95 % interval as an error bar, at its median time per move; one line per opponent and
table size (the other agents of the report). Needs matplotlib (the `train` extra).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reports", nargs="+", type=Path, help="skyjo eval --json reports")
    parser.add_argument("--out", type=Path, required=True, help="the PNG to write")
    args = parser.parse_args(argv)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    lines: dict[str, list[tuple[float, float, float, float, str]]] = defaultdict(list)
    for path in args.reports:
        try:
            report = json.loads(path.read_text())
            me = report["results"][0]
            others = sorted({r["agent"] for r in report["results"][1:]})
            point = (me["ms_per_move_median"], me["win_rate"], *me["win_rate_ci95"], me["agent"])
        except (OSError, json.JSONDecodeError, KeyError, IndexError, TypeError) as e:
            print(f"{path}: not a skyjo eval --json report with time per move ({e})", file=sys.stderr)
            return 2
        lines[f"{report['num_players']}p vs {' + '.join(others)}"].append(point)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for label, points in sorted(lines.items()):
        points.sort()
        xs = [p[0] for p in points]
        ys = [p[1] for p in points]
        err = [[p[1] - p[2] for p in points], [p[3] - p[1] for p in points]]
        ax.errorbar(xs, ys, yerr=err, marker="o", capsize=3, label=label)
    ax.set_xscale("log")
    ax.set_xlabel("median time per move of seat 0's agent (ms, one core)")
    ax.set_ylabel("win rate (95 % interval)")
    ax.set_title("ppo (left point) and ppo+search at its budgets")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(args.out, dpi=110)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
