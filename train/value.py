"""A value head for a policy file, learnt from the policy's own play (what `agents.search` scores with).

    python -m train.value --model agents/models/ppo_all.safetensors --run runs/value --out value.safetensors

Three steps, each resumable (a step whose output exists is not done again):

1. **Play** (`generate`): games at every table size asked for, all in lockstep, one forward pass
   per step over every game. Each seat of each game is, for the whole game, the network playing
   its most likely move, the network sampling from its probabilities, or `expert` (a mix, so that
   the values are not one opponent's). At a fraction of the decision states (`keep`), every
   seat's view is encoded and passed through the network's first part (`PolicyNetwork.features`,
   what the policy reads); that row is labelled, once known, with the seat's share of the game's
   win and its round margin (the others' mean score of that round, after the ender's doubling,
   less its own, in tens of points). Games cut off by the turn limit are dropped. The rows go to
   `RUN/data/{N}p_{chunk}.npz`, one file per chunk of games.
2. **Fit** (`fit`): a small MLP from the features to the two outputs (`win_logit`, binary cross
   entropy on the share; `round_margin`, squared error), on the chunks of all sizes, a
   twentieth of the games held out; the policy's layers stay as they are.
3. **Write** (`attach_value_head`): the policy file again, format version 2, with `value.*`.

Needs the `train` extra (torch) for step 2.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agents.expert import ExpertBot
from agents.model_file import (
    MARGIN_SCALE,
    VALUE_OUTPUTS,
    PolicyNetwork,
    load_policy,
    round_margin,
    save_policy,
)
from skyjo_env.engine import Rules, apply_action, legal_actions, new_game
from skyjo_env.engine.state import GameState
from skyjo_env.engine.view import seat_view
from skyjo_env.observation import encoder

OUTPUTS = VALUE_OUTPUTS
#: Seat kinds and their chances: the network's most likely move, a sample of its policy, `expert`.
SEAT_MIX = (("argmax", 0.4), ("sample", 0.35), ("expert", 0.25))


@dataclass
class _Game:
    state: GameState
    kinds: list[str]
    experts: dict[int, ExpertBot]
    rows: list[np.ndarray]  # features, one per (kept state, seat)
    seats: list[int]
    rounds: list[int]
    margins: dict[tuple[int, int], float]  # (round, seat) -> margin


def _new_game(n: int, seed: int, rng: np.random.Generator) -> _Game:
    names = [name for name, _ in SEAT_MIX]
    chances = [chance for _, chance in SEAT_MIX]
    kinds = [str(k) for k in rng.choice(names, size=n, p=chances)]
    experts = {seat: ExpertBot(seed=seed * 10 + seat) for seat, kind in enumerate(kinds) if kind == "expert"}
    return _Game(new_game(Rules(num_players=n), seed=seed), kinds, experts, [], [], [], {})


def generate(
    network: PolicyNetwork,
    num_players: int,
    games: int,
    seed: int,
    keep: float,
) -> dict[str, np.ndarray]:
    """Play `games` games of `num_players` in lockstep; the labelled feature rows (see the module doc)."""
    rng = np.random.default_rng([seed, num_players])
    coder = encoder(network.observation, num_players)
    live = [_new_game(num_players, seed * 100_000 + g, rng) for g in range(games)]
    done: list[_Game] = []
    buffer = np.empty((games * num_players, network.observation_size), dtype=np.float32)
    while live:
        _record(network, coder, live, rng, keep, buffer)
        _move(network, coder, live, rng, buffer)
        still = []
        for game in live:
            state = game.state
            if len(state.round_history) > (max(game.margins)[0] + 1 if game.margins else 0):
                scores = state.round_history[-1]
                for seat in range(num_players):
                    game.margins[(len(state.round_history) - 1, seat)] = round_margin(scores, seat) / MARGIN_SCALE
            if state.is_finished:
                if not state.is_truncated:
                    done.append(game)
            else:
                still.append(game)
        live = still
    return _labelled(done, network.features_size)


def _record(network, coder, live, rng, keep, buffer) -> None:
    chosen = [g for g in live if rng.random() < keep]
    states = [g.state for g in chosen for _ in range(g.state.num_players)]
    if not states:
        return
    seats = [seat for g in chosen for seat in range(g.state.num_players)]
    coder.encode_states(states, seats, buffer)
    features = network.features(buffer[: len(states)]).astype(np.float32)
    row = 0
    for game in chosen:
        for seat in range(game.state.num_players):
            game.rows.append(features[row])
            game.seats.append(seat)
            game.rounds.append(len(game.state.round_history))
            row += 1


def _move(network, coder, live, rng, buffer) -> None:
    by_net = [g for g in live if g.kinds[g.state.current_player] != "expert"]
    by_expert = [g for g in live if g.kinds[g.state.current_player] == "expert"]
    if by_net:
        coder.encode_states([g.state for g in by_net], [g.state.current_player for g in by_net], buffer)
        logits = network.logits(buffer[: len(by_net)])
        for game, row in zip(by_net, logits):
            legal = np.asarray(legal_actions(game.state))
            scores = row[legal]
            if game.kinds[game.state.current_player] == "argmax":
                action = legal[int(np.argmax(scores))]
            else:
                p = np.exp(scores - scores.max())
                action = rng.choice(legal, p=p / p.sum())
            apply_action(game.state, int(action))
    for game in by_expert:
        seat = game.state.current_player
        bot = game.experts[seat]
        apply_action(game.state, int(bot.act(seat_view(game.state, seat), legal_actions(game.state))))


def _labelled(done: Sequence[_Game], features_size: int) -> dict[str, np.ndarray]:
    rows, wins, margins, game_ids = [], [], [], []
    for index, game in enumerate(done):
        winners = game.state.winners
        for features, seat, round_ in zip(game.rows, game.seats, game.rounds):
            rows.append(features)
            wins.append(1.0 / len(winners) if seat in winners else 0.0)
            margins.append(game.margins[(round_, seat)])
            game_ids.append(index)
    return {
        "features": np.stack(rows) if rows else np.zeros((0, features_size), np.float32),
        "win": np.asarray(wins, np.float32),
        "margin": np.asarray(margins, np.float32),
        "game": np.asarray(game_ids, np.int32),
    }


def load_chunks(data: Path) -> dict[str, np.ndarray]:
    """Every chunk in `data`, concatenated; `game` made unique across chunks."""
    parts = [dict(np.load(p)) for p in sorted(data.glob("*p_*.npz")) if not p.name.endswith(".tmp.npz")]
    if not parts:
        raise FileNotFoundError(f"no data chunks in {data}")
    offset = 0
    for part in parts:
        part["game"] = part["game"].astype(np.int64) + offset
        offset = int(part["game"].max()) + 1 if len(part["game"]) else offset
    return {key: np.concatenate([p[key] for p in parts]) for key in parts[0]}


def _tanh_mlp(sizes: Sequence[int]) -> Any:
    """A torch MLP through `sizes`, tanh between its linear layers."""
    import torch

    layers: list[torch.nn.Module] = []
    for i, (a, b) in enumerate(itertools.pairwise(sizes)):
        layers.append(torch.nn.Linear(a, b))
        if i < len(sizes) - 2:
            layers.append(torch.nn.Tanh())
    return torch.nn.Sequential(*layers)


def fit(
    data: dict[str, np.ndarray],
    hidden: Sequence[int] = (256, 256),
    epochs: int = 12,
    batch: int = 1024,
    lr: float = 1e-3,
    seed: int = 0,
    log=print,
) -> tuple[list[tuple[np.ndarray, np.ndarray]], dict[str, float]]:
    """Step 2: the value layers (float32 (weight, bias) pairs, tanh between) and held-out figures."""
    import torch

    torch.manual_seed(seed)
    x = torch.from_numpy(data["features"].astype(np.float32))
    y_win = torch.from_numpy(data["win"].astype(np.float32))
    y_margin = torch.from_numpy(data["margin"].astype(np.float32))
    held = torch.from_numpy(data["game"] % 20 == 0)
    train_idx, test_idx = torch.nonzero(~held).squeeze(1), torch.nonzero(held).squeeze(1)
    model = _tanh_mlp([x.shape[1], *hidden, len(OUTPUTS)])
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, epochs)
    bce = torch.nn.BCEWithLogitsLoss()

    def losses(idx):
        out = model(x[idx])
        return bce(out[:, 0], y_win[idx]), torch.mean((out[:, 1] - y_margin[idx]) ** 2)

    figures: dict[str, float] = {}
    for epoch in range(epochs):
        model.train()
        order = train_idx[torch.randperm(len(train_idx))]
        for start in range(0, len(order), batch):
            win_loss, margin_loss = losses(order[start : start + batch])
            optimizer.zero_grad()
            (win_loss + margin_loss).backward()
            optimizer.step()
        scheduler.step()
        model.eval()
        with torch.no_grad():
            win_loss, margin_loss = losses(test_idx)
            base_win = bce(torch.full_like(y_win[test_idx], float(y_win[train_idx].mean())).logit(), y_win[test_idx])
            base_margin = torch.mean((y_margin[test_idx] - y_margin[train_idx].mean()) ** 2)
        figures = {
            "held_out_rows": len(test_idx),
            "win_bce": float(win_loss),
            "win_bce_constant": float(base_win),
            "margin_mse": float(margin_loss),
            "margin_mse_constant": float(base_margin),
        }
        log(
            f"epoch {epoch + 1}/{epochs}: "
            + ", ".join(f"{k} {v:.4f}" for k, v in figures.items() if k != "held_out_rows")
        )
    linear = [m for m in model if isinstance(m, torch.nn.Linear)]
    weights = [
        (m.weight.detach().numpy().astype(np.float32), m.bias.detach().numpy().astype(np.float32)) for m in linear
    ]
    return weights, figures


def attach_value_head(
    network: PolicyNetwork, value_layers: Sequence[tuple[np.ndarray, np.ndarray]], info: dict | None = None
) -> PolicyNetwork:
    """Step 3: `network` with these `value.*` layers (a policy's own value head is replaced)."""
    named = {name: layer for name, layer in network.named.items() if not name.startswith("value.")}
    named.update({f"value.{i}": layer for i, layer in enumerate(value_layers)})
    return PolicyNetwork(
        named,
        network.activation,
        network.players,
        network.observation,
        network.architecture,
        {**network.info, **(info or {})},
        OUTPUTS,
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m train.value", description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True, help="the policy file to add a value head to")
    parser.add_argument("--run", required=True, type=Path, help="a folder for the data chunks (resumable)")
    parser.add_argument("--out", required=True, type=Path, help="where to write the policy file with its value head")
    parser.add_argument("--players", default="2-8", help="table sizes, e.g. 2-8 or 2,4 (default 2-8)")
    parser.add_argument("--chunks", type=int, default=8, help="chunks of games per table size (default 8)")
    parser.add_argument("--games", type=int, default=64, help="games per chunk (default 64)")
    parser.add_argument("--keep", type=float, default=0.5, help="states kept per decision, times N (default 0.5)")
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--play-only", action="store_true", help="only step 1 (several processes can share a run)")
    parser.add_argument("--chunk-range", default=None, help="A:B: play only chunks A..B-1 (to split over cores)")
    args = parser.parse_args(argv)
    sizes = _parse_sizes(args.players)
    if not 0 < args.keep <= 1:
        parser.error(f"--keep must be in (0, 1], got {args.keep}")
    network = load_policy(args.model)
    if network.canonical:
        parser.error(
            f"{args.model} reads the grids in their canonical order (grids: canonical); value heads are fitted only for networks that read them as they are"
        )
    chunk_lo, chunk_hi = 0, args.chunks
    if args.chunk_range:
        chunk_lo, chunk_hi = (int(v) for v in args.chunk_range.split(":"))
    data = args.run / "data"
    for chunk in range(chunk_lo, chunk_hi):
        play_chunks_one(network, data, sizes, chunk, args.games, args.seed, args.keep)
    if args.play_only:
        return 0
    labelled = load_chunks(data)
    print(f"fitting on {len(labelled['win'])} rows from {len(np.unique(labelled['game']))} games", flush=True)
    start = time.perf_counter()
    layers, figures = fit(labelled, epochs=args.epochs, seed=args.seed)
    info = {
        "value_head": {
            "rows": len(labelled["win"]),
            "games": len(np.unique(labelled["game"])),
            "players": sizes,
            "fit_seconds": round(time.perf_counter() - start),
            **{k: round(v, 4) for k, v in figures.items()},
        }
    }
    save_policy(attach_value_head(network, layers, info), args.out)
    (args.run / "value_head.json").write_text(json.dumps(info, indent=2))
    print(f"wrote {args.out}: {json.dumps(info)}")
    return 0


def play_chunks_one(network, data, sizes, chunk, games, seed, keep) -> None:
    data.mkdir(parents=True, exist_ok=True)
    for n in sizes:
        path = data / f"{n}p_{chunk:03d}.npz"
        if path.exists():
            continue
        start = time.perf_counter()
        labelled = generate(network, n, games, seed=seed * 1000 + chunk, keep=min(1.0, keep / n))
        tmp = data / f".{n}p_{chunk:03d}.tmp.npz"
        np.savez(tmp, allow_pickle=False, **labelled)
        tmp.replace(path)
        print(
            f"{path.name}: {len(labelled['win'])} rows from {games} games in {time.perf_counter() - start:.0f} s",
            flush=True,
        )


def _parse_sizes(text: str) -> list[int]:
    if "-" in text:
        lo, hi = (int(v) for v in text.split("-"))
        return list(range(lo, hi + 1))
    return [int(v) for v in text.split(",")]


if __name__ == "__main__":
    sys.exit(main())
