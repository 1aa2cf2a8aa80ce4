"""How much a one-move search could add to the network: its top moves against its own, many worlds deep.

    python benchmarks/search_headroom.py --players 2 --positions 60 --worlds 256 --seed 1

Positions are drawn from games of the network against itself (or against `--opponent` bots at
the other seats). At each, `ppo+search`'s estimator (`SearchBot.evaluate`: the same sampled
worlds for each candidate, each seat drawing from its own run (`--draws seat`), the network at every seat to the
end of the round, the round's points against the others) scores the network's `--top` moves with
`--worlds` worlds, many more than a search at play time can afford (`--equivalent`: only decisions
where the network's two likeliest moves are the same move up to the grid's symmetries; `--symmetry`:
one candidate of each class, as `ppo+search:symmetry=on`; `--also AGENT`: only decisions the default
searches, with that agent's move searched too, as `ppo+search:also=AGENT`; `--late`: only decisions
near the round's end, some grid with at most one face-down card or the last lap begun, where
`ppo+search:endtop=...` widens the search; `--model-opponent`: the playouts play the other seats with
`--opponent`, as the default's library of opponent models does once it has seen their moves). It prints:

- how often another move beats the network's by more than 2 standard errors of the paired
  difference (with 2 candidates against the network's move, chance alone gives about 2-5 %), and
  how many comparisons fall below it by as much;
- the spread (standard deviation) of one world's difference between a move and the network's:
  what decides how many worlds a search needs;
- the gain of a search that picks the best-looking move on half of the worlds, measured on the
  other half (an unbiased estimate of what choosing by this estimator adds, per decision, in
  round points), with its standard error over the positions;
- with `--top` above 2 (or `all`): that gain for a search of the network's k likeliest moves, for each k
  from 2 up, on the same worlds; with `--late`, apart for the decisions the default searches (the
  network's move under 0.99) and the others;
- with `--also`: how often the agent's move is another move than the network's likeliest, and
  how it compares with the network's move there (the lines above then count it among the moves);
- with `--control-variates`: how much of one world's difference between a move and the network's
  a linear fit on the world's unseen cards explains (each face-down card and each seat's next four
  draws, whose means the view gives exactly: control variates), as an adjusted R^2. What a
  regression estimator would cut the difference's variance by, at best.

A benchmark measures and prints; it asserts nothing.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import time
from collections.abc import Callable
from unittest import mock

import numpy as np
from tqdm import tqdm

import agents.search as search_module
from agents import make
from agents.search import SearchBot, _distinct, _top, legal_chances
from skyjo_env.engine import NUM_SLOTS, Rules, apply_action, legal_actions, new_game
from skyjo_env.engine.codes import HIDDEN, Phase
from skyjo_env.engine.state import GameState
from skyjo_env.engine.symmetry import move_key
from skyjo_env.engine.view import seat_view


def positions(
    players: int,
    count: int,
    opponent: str | None,
    rng: np.random.Generator,
    keep: Callable[[GameState], bool] | None = None,
):
    """States at a decision of seat 0 (the network) with more than one legal move (and that `keep` keeps)."""
    network = make("ppo")
    others = [network] + [make(opponent) if opponent else network for _ in range(players - 1)]
    found = 0
    while found < count:
        state = new_game(Rules(num_players=players), seed=int(rng.integers(2**31)))
        while not state.is_finished:
            seat, legal = state.current_player, legal_actions(state)
            if (
                seat == 0
                and state.phase != Phase.SETUP_REVEAL
                and len(legal) > 1
                and rng.random() < 0.03
                and (keep is None or keep(state))
            ):
                yield state.copy()
                found += 1
                break
            apply_action(state, others[seat].act(seat_view(state, seat), legal))


@contextlib.contextmanager
def _recording(worlds: list, runs: list):
    """Note each world the search deals in `worlds`, and the runs its seats draw from in `runs` (in its order)."""
    sample, deal = search_module.sample_world, search_module._SeatDraws.deal

    def noted_world(view, rng):
        world = sample(view, rng)
        worlds.append(world.copy())
        return world

    def noted_runs(world, rng):
        runs.append(deal(world, rng))
        return runs[-1]

    with (
        mock.patch.object(search_module, "sample_world", noted_world),
        mock.patch.object(search_module._SeatDraws, "deal", noted_runs),
    ):
        yield


def _cards(worlds: list, runs: list) -> np.ndarray:
    """Each world's unseen cards (worlds x features): each face-down card, then each seat's next four draws."""
    rows = []
    for world, seat_runs in zip(worlds, runs, strict=True):
        row = [
            world.values[p][s] if world.status[p][s] == HIDDEN else 0
            for p in range(world.num_players)
            for s in range(NUM_SLOTS)
        ]
        for run in seat_runs.runs:
            row += (list(run[:4]) + [0] * 4)[:4]
        rows.append(row)
    return np.asarray(rows, dtype=np.float64)


def _explained(diffs: np.ndarray, cards: np.ndarray) -> list[float]:
    """The adjusted R^2 of each row of `diffs` (one world's difference, worlds in columns) on `cards`."""
    cards = cards[:, cards.std(axis=0) > 0]
    design = np.column_stack([np.ones(len(cards)), cards])
    worlds, features = design.shape
    out = []
    for diff in diffs:
        total = float(((diff - diff.mean()) ** 2).sum())
        if total == 0 or worlds <= features:
            continue
        coef, *_ = np.linalg.lstsq(design, diff, rcond=None)
        r2 = 1 - float(((diff - design @ coef) ** 2).sum()) / total
        out.append(1 - (1 - r2) * (worlds - 1) / (worlds - features))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--positions", type=int, default=60)
    parser.add_argument("--worlds", type=int, default=256, help="worlds per candidate (even)")
    parser.add_argument(
        "--top", type=_top, default=3, help="the network's most likely moves searched (a number, or all)"
    )
    parser.add_argument("--opponent", default=None, help="a bot at the other seats (default: the network)")
    parser.add_argument("--draws", default="seat", help="pile or seat (SearchBot's draws)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--equivalent",
        action="store_true",
        help="only decisions the default search searches (the network's move under 0.99) where the network's "
        "two likeliest moves are the same move up to the grid's symmetries (move_key)",
    )
    parser.add_argument("--symmetry", action="store_true", help="candidates one of each class (symmetry=on)")
    parser.add_argument(
        "--late",
        action="store_true",
        help="only decisions near the round's end: some grid with at most one face-down card, or the last lap",
    )
    parser.add_argument(
        "--model-opponent",
        action="store_true",
        help="the playouts play the other seats with --opponent (default: the network at every seat)",
    )
    parser.add_argument(
        "--also",
        default=None,
        help="an agent whose move is searched too (ppo+search:also=AGENT), at decisions the default searches",
    )
    parser.add_argument(
        "--control-variates",
        action="store_true",
        help="print how much of a world's difference the world's unseen cards explain linearly (adjusted R^2)",
    )
    args = parser.parse_args(argv)
    if args.model_opponent and not args.opponent:
        parser.error("--model-opponent plays --opponent in the playouts: name one")
    if sum(map(bool, (args.equivalent, args.also, args.late))) > 1:
        parser.error("--equivalent, --also and --late each pick their own decisions: use one")
    if args.control_variates and args.draws != "seat":
        parser.error("--control-variates reads each seat's run of draws: it needs --draws seat")
    rng = np.random.default_rng(args.seed)
    # one batch of all the worlds: every candidate played in each (none dropped on the way)
    search = SearchBot(
        worlds=args.worlds,
        batch=args.worlds,
        top=args.top,
        ms=1e9,
        z=0.0,
        seed=args.seed,
        draws=args.draws,
        # the network's own playouts at every seat (what the positions are measured by), or the bot they face
        opponents=args.opponent if args.model_opponent else "network",
        symmetry=args.symmetry,
    )
    also = make(args.also) if args.also else None

    searched = [0, 0]  # --equivalent: the decisions looked at that the default searches, and those kept

    def equivalent_top_two(state: GameState) -> bool:
        view, legal = seat_view(state, 0), legal_actions(state)
        chances = legal_chances(search._logits(view), legal)
        if chances.max() >= 0.99:
            return False
        first, second = (legal[i] for i in np.argsort(-chances, kind="stable")[:2])
        equivalent = move_key(view, first) == move_key(view, second)
        searched[0] += 1
        searched[1] += equivalent
        return equivalent

    beaten, below, gains, candidates, spreads = 0, 0, [], 0, []
    start = time.perf_counter()

    def searched_by_default(state: GameState) -> bool:
        return bool(legal_chances(search._logits(seat_view(state, 0)), legal_actions(state)).max() < 0.99)

    def near_the_end(state: GameState) -> bool:
        return SearchBot._near_end(seat_view(state, 0), 1)

    keep = (
        equivalent_top_two if args.equivalent else searched_by_default if also else near_the_end if args.late else None
    )
    widths: dict[bool, list[list[float]]] = {True: [], False: []}  # by the network unsure: each k's gain, per decision
    also_other, also_z = 0, []  # --also: positions where its move was another candidate, and its z there
    explained: list[float] = []  # --control-variates: each comparison's adjusted R^2
    worlds: list = []  # --control-variates: the worlds the search dealt, and each one's runs of draws
    runs: list = []
    for state in tqdm(positions(args.players, args.positions, args.opponent, rng, keep), total=args.positions):
        view, legal = seat_view(state, 0), legal_actions(state)
        moves = [also.act(view, legal)] if also else []
        worlds.clear()
        runs.clear()
        with _recording(worlds, runs) if args.control_variates else contextlib.nullcontext():
            result = search.evaluate(view, legal, also=moves)
        scores = result.extra["scores"]  # candidates x worlds; the network's move is candidate 0
        if args.control_variates:
            explained.extend(_explained(scores[1:] - scores[0], _cards(worlds, runs)))
        order = search._network_order(view, legal)[1]
        tops = {move_key(view, a) for a in (_distinct(view, order) if args.symmetry else order)[: args.top]}
        if moves and move_key(view, moves[0]) not in tops:  # then the search added it as the last candidate
            also_other += 1
            diff = scores[-1] - scores[0]
            also_z.append(float(diff.mean() / max(diff.std(ddof=1) / math.sqrt(args.worlds), 1e-9)))
        diffs = scores[1:] - scores[0]
        spreads.extend(diffs.std(axis=1, ddof=1).tolist())
        z = diffs.mean(axis=1) / np.maximum(diffs.std(axis=1, ddof=1) / math.sqrt(args.worlds), 1e-9)
        beaten += bool((z > 2).any())
        below += int((z < -2).sum())
        candidates += len(diffs)
        half = args.worlds // 2
        pick = int(np.argmax(scores[:, :half].mean(axis=1)))
        gains.append(float(scores[pick, half:].mean() - scores[0, half:].mean()))
        if not moves:  # the candidates in the network's order: each k's pick among the first k
            picks = [int(np.argmax(scores[:k, :half].mean(axis=1))) for k in range(2, len(scores) + 1)]
            unsure = searched_by_default(state)
            widths[unsure].append([float(scores[i, half:].mean() - scores[0, half:].mean()) for i in picks])
    g = np.asarray(gains)
    print(
        f"{args.positions} positions at {args.players} players (opponents: {args.opponent or 'the network'}), "
        f"{args.worlds} worlds each, {time.perf_counter() - start:.0f} s"
    )
    if args.equivalent:
        print(
            f"decisions the default searches looked at: {searched[0]}, the two likeliest moves equivalent in {searched[1]}"
        )
    print(f"another move beats the network's by > 2 SE: {beaten} of {args.positions} ({candidates} comparisons)")
    print(f"comparisons where a move falls below the network's by > 2 SE: {below} of {candidates}")
    print(
        f"standard deviation of one world's difference between a move and the network's: median {np.median(spreads):.1f} round points"
    )
    print(
        f"gain of picking on half the worlds, measured on the other half: {g.mean():+.3f} +- {g.std(ddof=1) / math.sqrt(len(g)):.3f} round points per decision"
    )
    if args.top is None or args.top > 2:
        for unsure in (True, False) if args.late else (None,):
            rows = widths[True] + widths[False] if unsure is None else widths[unsure]
            if not rows:
                continue
            label = "" if unsure is None else " where the default searches" if unsure else " where it does not"
            print(f"gain of picking among the network's k likeliest moves{label} ({len(rows)} decisions):")
            most = max(map(len, rows)) + 1  # the most candidates a decision had
            for k in [
                *range(2, min(most, 4 if args.top is None else args.top) + 1),
                *([None] if args.top is None else []),
            ]:
                # a decision with fewer candidates than k picks among all of its own
                g = np.asarray([row[(len(row) + 1 if k is None else min(k, len(row) + 1)) - 2] for row in rows])
                spread = g.std(ddof=1) / math.sqrt(len(g)) if len(g) > 1 else math.nan
                print(f"  k={k or 'all'}: {g.mean():+.3f} +- {spread:.3f} round points per decision")
    if args.control_variates and not explained:
        print("the world's unseen cards: no comparison had more worlds than cards to fit (use more --worlds)")
    elif args.control_variates:
        low, mid, high = np.quantile(explained, [0.1, 0.5, 0.9])
        print(
            f"share of one world's difference that the world's unseen cards explain linearly (adjusted R^2): "
            f"median {mid:.3f} (10 %: {low:.3f}, 90 %: {high:.3f}) over {len(explained)} comparisons"
        )
    if also:
        z = np.asarray(also_z)
        print(
            f"{args.also}'s move another move than the network's {args.top or 'all'} likeliest: {also_other} of {args.positions}; "
            f"there it beats the network's by > 2 SE at {int((z > 2).sum())}, falls below by > 2 SE at {int((z < -2).sum())}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
