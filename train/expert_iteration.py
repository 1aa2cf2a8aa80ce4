"""Expert iteration, one step: the search's choices taught to its own network (issue 22, part 3).

    python -m train.expert_iteration --run runs/exit --out exit.safetensors

Two steps, the first resumable (a chunk whose file exists is not played again):

1. **Play** (`play_chunk`): chunks of games, each game at a table size drawn from `--players`, the
   search agent (`--search`, default `ppo+search`) at one seat (rotated game by game) and every
   other seat drawn from the opponent mix (`--opponents`, default `expert`, the network alone and
   `greedy`). At each of the search seat's decisions with a choice, the row holds its observation,
   its action mask, the network's move, the move played, whether it was searched, and the searched
   value the best other move gained over the network's (with its standard error), and every searched
   candidate's (`COLUMNS`: `gains`, `errors`). Searched rows are all kept; of the decisions played
   without a search (the network sure of its move), `--anchors` of them. Rows go to
   `RUN/data/chunk_NNNN.npz`, one file per chunk, written whole.
2. **Fit** (`fit`): from the search's network, the actor alone is trained towards a target made
   of the network's own probabilities over the legal moves (so it keeps what the search did not
   change), moved by the search (`--target`): `soft` (the default) splits, at every searched row,
   the probability of the network's move and of the best other move by the chance that the other
   is better, Phi(gain / error); `best` splits the probability of every searched candidate by its
   chance of being the best of them (`best_chances`), `weighted` in proportion to its probability
   times that chance; `switch` puts it all on the search's move where the search played another
   than the network's (weight `--switch-weight`). Chunks of earlier runs can be added
   (`--include`). Every twentieth game is held out, to say how often the new network plays the
   search's move where the search switched, and how often its old move elsewhere. The result is
   written as a policy file (`agents.model_file`); its `info["expert_iteration"]` lists each step that
   made it (the search, the runs' names and the fit's figures).

The next iteration searches with the new network (`--search ppo+search:model=NEW.safetensors`).
With a budget in milliseconds (the default search's), what a search finds depends on the machine's
speed, so a chunk replays bit for bit only with a budget of worlds (`ppo+search:worlds=32,ms=1e9`).
Needs the `train` extra (torch) for step 2.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

from agents import make as make_agent
from agents.model_file import PolicyNetwork, save_policy
from agents.search import SearchBot
from skyjo_env import files
from skyjo_env.engine import Rules, action_mask, legal_actions
from skyjo_env.observation import encoder
from skyjo_env.seated import SeatedGame
from train.warm_start import masked_log_softmax

#: The other seats' agents and their chances, by default: the rule bot, the network alone, a weak bot.
DEFAULT_OPPONENTS = {"expert": 0.45, "ppo": 0.4, "greedy": 0.15}
#: Table sizes and their chances, by default: 2 players most, every other size a little.
DEFAULT_PLAYERS = {2: 3.0, 3: 1.0, 4: 1.0, 5: 0.5, 6: 1.0, 7: 0.5, 8: 1.0}
#: What a row's target is (`targets`).
TARGETS = ("switch", "soft", "best", "weighted")
#: Draws of the searched values per row for the `best` and `weighted` targets' chances (`best_chances`).
BEST_DRAWS = 4096
#: A row's columns and their types. `gains` and `errors` are 26 wide: every searched candidate's value
#: minus the network's move's and its standard error, NaN for a move not searched (all NaN in a row
#: played without a search); `alternative`, `gain` and `error` are the best other candidate's.
COLUMNS: dict[str, type] = {
    "observations": np.float32,
    "masks": bool,
    "network_move": np.int8,
    "played": np.int8,
    "searched": bool,
    "alternative": np.int8,
    "gain": np.float32,
    "error": np.float32,
    "gains": np.float32,
    "errors": np.float32,
    "players": np.int8,
    "game": np.int32,
}


def parse_weights(text: str, what: str, key: Any = str) -> dict[Any, float]:
    """`a=0.5,b=0.3` (or `a,b`: even weights) as {a: 0.5, b: 0.3}; a clear ValueError for anything else.

    >>> parse_weights("expert=2,ppo=1", "opponents")
    {'expert': 2.0, 'ppo': 1.0}
    >>> parse_weights("2,4", "players", int)
    {2: 1.0, 4: 1.0}
    """
    weights: dict[Any, float] = {}
    for part in text.split(","):
        name, eq, value = part.strip().partition("=")
        try:
            k, w = key(name), float(value) if eq else 1.0
        except ValueError:
            raise ValueError(f"bad --{what} entry {part!r}: expected NAME or NAME=WEIGHT") from None
        if not name or k in weights or not 0 < w < math.inf:
            raise ValueError(f"bad --{what} entry {part!r}: each name once, with a weight > 0")
        weights[k] = w
    return weights


def _draw(rng: np.random.Generator, weights: Mapping[Any, float]) -> Any:
    keys = list(weights)
    p = np.array([weights[k] for k in keys], dtype=np.float64)
    return keys[int(rng.choice(len(keys), p=p / p.sum()))]


def search_agent(name: str) -> SearchBot:
    """The search agent `name` (`ppo+search`, with options); a ValueError for any other agent."""
    bot = make_agent(name)
    if not isinstance(bot, SearchBot):
        raise ValueError(f"{name!r} is not a search agent (ppo+search, with options)")
    return bot


def play_chunk(
    search: str,
    chunk: int,
    games: int,
    seed: int,
    players: Mapping[int, float],
    opponents: Mapping[str, float],
    anchors: float,
) -> dict[str, np.ndarray]:
    """The rows of chunk `chunk` (`games` games; module doc). Game g of the chunk is numbered
    chunk * games + g; its table size, seats, deal and bots' seeds come from (seed, chunk, g)."""
    rows: dict[str, list] = {c: [] for c in COLUMNS}
    bot = search_agent(search)
    for g in range(games):
        number = chunk * games + g
        rng = np.random.default_rng([seed, chunk, g])
        n = int(_draw(rng, players))
        me = number % n
        bots = [bot if s == me else make_agent(_draw(rng, opponents)) for s in range(n)]
        game = SeatedGame(Rules(num_players=n), bots)
        game.deal(int(rng.integers(2**63)), [int(rng.integers(2**63)) for _ in range(n)])
        coder = encoder(bot.network.observation, n)
        state = game.state
        while not state.is_finished:
            seat = state.current_player
            if seat != me or len(legal_actions(state)) < 2:
                game.apply(game.ask())
                state = game.state
                continue
            observation, mask = coder.encode_state(state, seat), action_mask(state)
            action = game.ask()
            found = bot.last
            if found is not None or rng.random() < anchors:
                network_move, alternative, gain, error = action, -1, 0.0, 0.0
                gains, errors = np.full(26, np.nan), np.full(26, np.nan)
                if found is not None:
                    network_move = found.network_move
                    base = found.values[found.candidates.index(network_move)]
                    others = [-np.inf if c == network_move else v for c, v in zip(found.candidates, found.values)]
                    best = int(np.argmax(others))
                    alternative, gain, error = found.candidates[best], found.values[best] - base, found.errors[best]
                    gains[found.candidates] = np.asarray(found.values) - base
                    errors[found.candidates] = found.errors
                values = (
                    observation,
                    mask,
                    network_move,
                    action,
                    found is not None,
                    alternative,
                    gain,
                    error,
                    gains,
                    errors,
                    n,
                    number,
                )
                for column, value in zip(COLUMNS, values, strict=True):
                    rows[column].append(value)
            game.apply(action)
            state = game.state
    out: dict[str, np.ndarray] = {c: np.asarray(rows[c], dtype=dtype) for c, dtype in COLUMNS.items()}
    out["observations"] = out["observations"].reshape(-1, bot.network.observation_size)
    for wide in ("masks", "gains", "errors"):
        out[wide] = out[wide].reshape(-1, 26)
    return out


def chunk_path(data: Path, chunk: int) -> Path:
    return data / f"chunk_{chunk:04d}.npz"


def play(
    data: Path,
    chunks: Sequence[int],
    search: str,
    games: int,
    seed: int,
    players: Mapping[int, float],
    opponents: Mapping[str, float],
    anchors: float,
    processes: int = 1,
    progress: bool = True,
) -> None:
    """Play every chunk of `chunks` whose file is missing, on `processes` processes; each file is written
    whole as its chunk ends (a stopped run resumes with the chunks left)."""
    data.mkdir(parents=True, exist_ok=True)
    todo = [c for c in chunks if not chunk_path(data, c).exists()]
    jobs = [(data, c, search, games, seed, dict(players), dict(opponents), anchors) for c in todo]
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=len(chunks), initial=len(chunks) - len(todo), desc="expert iteration: play", unit="chunk")
    if processes > 1 and len(jobs) > 1:
        import multiprocessing

        with multiprocessing.get_context("spawn").Pool(processes, initializer=_one_thread) as pool:
            for line in pool.imap_unordered(_play_one, jobs):
                _done(bar, line)
    else:
        for job in jobs:
            _done(bar, _play_one(job))
    if bar is not None:
        bar.close()


def _done(bar: Any, line: str) -> None:
    if bar is None:
        print(line, flush=True)
    else:
        bar.write(line)
        bar.update(1)


def _one_thread() -> None:
    from threadpoolctl import threadpool_limits

    threadpool_limits(1)


def _play_one(job: tuple) -> str:
    data, chunk, search, games, seed, players, opponents, anchors = job
    start = time.perf_counter()
    rows = play_chunk(search, chunk, games, seed, players, opponents, anchors)
    path = chunk_path(data, chunk)
    with files.replacing(path) as tmp, open(tmp, "wb") as f:
        np.savez(f, allow_pickle=False, **rows)
    switched = int((rows["played"] != rows["network_move"]).sum())
    return (
        f"{path.name}: {len(rows['played'])} rows ({int(rows['searched'].sum())} searched, {switched} switched) "
        f"from {games} games in {time.perf_counter() - start:.0f} s"
    )


def load_chunks(*folders: Path) -> dict[str, np.ndarray]:
    """Every chunk's rows in `folders`, concatenated (folder, then chunk order). Each folder's game
    numbers follow the previous folder's, so that a game is one game however many folders there are."""
    parts: list[dict[str, np.ndarray]] = []
    offset = 0
    for data in folders:
        paths = sorted(data.glob("chunk_*.npz"))
        if not paths:
            raise FileNotFoundError(f"no chunks in {data}: play some first")
        first = len(parts)
        for path in paths:
            with np.load(path, allow_pickle=False) as f:
                parts.append(_with_every_gain({c: f[c] for c in COLUMNS if c in f.files}))
        for part in parts[first:]:
            part["game"] = part["game"] + offset
        offset = max(int(part["game"].max(initial=-1)) for part in parts) + 1
    return {c: np.concatenate([p[c] for p in parts]) for c in COLUMNS}


def _with_every_gain(part: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """A chunk written before the `gains` and `errors` columns: those columns made of what it has, the
    best other candidate's gain and error and the network's move's 0 (in the rows whose search found
    values; a search that found none is all NaN, as `play_chunk` writes it)."""
    if "gains" in part:
        return part
    n = len(part["played"])
    gains, errors = np.full((n, 26), np.nan, np.float32), np.full((n, 26), np.nan, np.float32)
    rows = np.flatnonzero(part["searched"] & np.isfinite(part["gain"]))
    gains[rows, part["network_move"][rows]] = errors[rows, part["network_move"][rows]] = 0.0
    known = rows[part["alternative"][rows] >= 0]
    gains[known, part["alternative"][known]] = part["gain"][known]
    errors[known, part["alternative"][known]] = part["error"][known]
    return {**part, "gains": gains, "errors": errors}


def torch_policy(network: PolicyNetwork, learning_rate: float = 1e-4) -> Any:
    """A MaskablePPO actor-critic policy of `network`'s architecture with its weights in the actor
    (`agents.sb3_model.load_network_into`); the critic is untrained and unused here."""
    import torch.nn as nn
    from gymnasium import spaces
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    from agents.sb3_model import load_network_into

    activation = {"tanh": nn.Tanh, "relu": nn.ReLU}[network.activation]
    trunk = [w.shape[0] for name, (w, _) in network.named.items() if name.startswith("policy.")][:-1]
    kwargs: dict[str, Any] = {"net_arch": {"pi": trunk, "vf": trunk}, "activation_fn": activation}
    if network.architecture == "seats":
        from train.seats_policy import SeatsExtractor

        seat_arch = [w.shape[0] for name, (w, _) in network.named.items() if name.startswith("self.")]
        kwargs["features_extractor_class"] = SeatsExtractor
        kwargs["features_extractor_kwargs"] = {"seat_arch": seat_arch, "activation_fn": activation}
    space = spaces.Box(-np.inf, np.inf, (network.observation_size,), np.float32)
    policy = MaskableActorCriticPolicy(space, spaces.Discrete(26), lambda _: learning_rate, **kwargs)
    load_network_into(SimpleNamespace(policy=policy), network)
    return policy


def probabilities(network: PolicyNetwork, rows: Mapping[str, np.ndarray], batch: int = 4096) -> np.ndarray:
    """The network's probabilities of each row's moves (0 for an illegal one), (rows, 26) float32."""
    obs, masks = rows["observations"], rows["masks"]
    out = np.empty(masks.shape, dtype=np.float32)
    for start in range(0, len(obs), batch):
        end = start + batch
        out[start:end] = np.exp(masked_log_softmax(network.logits(obs[start:end]), masks[start:end]))
    return out


def best_chances(
    gains: np.ndarray, errors: np.ndarray, network_move: np.ndarray, seed: int = 0, draws: int = BEST_DRAWS
) -> np.ndarray:
    """Each row's chance that each searched candidate is the best of them, (rows, 26) float32: the
    candidates' values drawn `draws` times from their normal approximations, each candidate's value
    gain + error * N(0, 1), independently (the network's move at its 0), and the share of draws in
    which each is the highest (an exact tie, of values with no error, shared evenly). A move not
    searched (its gain or error NaN) gets 0. Seeded: the same rows and seed give the same chances.

    >>> gains = np.full((1, 26), np.nan); errors = np.full((1, 26), np.nan)
    >>> gains[0, [3, 5, 7]] = [0.0, 2.0, -9.0]; errors[0, [3, 5, 7]] = [0.0, 1e-9, 1.0]
    >>> best_chances(gains, errors, np.array([3]))[0, [3, 5, 7]].tolist()
    [0.0, 1.0, 0.0]
    """
    rng = np.random.default_rng(seed)
    out = np.zeros(gains.shape, dtype=np.float32)
    searched = np.isfinite(gains) & np.isfinite(errors)
    width = int(searched.sum(axis=1).max(initial=0))
    for start in range(0, len(gains), 256):
        part = slice(start, start + 256)
        order = np.argsort(~searched[part], axis=1, kind="stable")[:, :width]  # the candidates first
        real = np.take_along_axis(searched[part], order, axis=1)
        mean = np.where(real, np.take_along_axis(gains[part], order, axis=1), -np.inf)
        sd = np.where(real, np.take_along_axis(errors[part], order, axis=1), 0.0)
        mine = order == network_move[part, None]
        mean[mine], sd[mine] = 0.0, 0.0
        values = mean[:, None, :] + sd[:, None, :] * rng.standard_normal((len(order), draws, width))
        top = values == values.max(axis=2, keepdims=True)
        wins = (top / top.sum(axis=2, keepdims=True)).mean(axis=1)
        np.put_along_axis(out[part], order, np.where(real, wins, 0.0).astype(np.float32), axis=1)
    return out


def targets(probs: np.ndarray, rows: Mapping[str, np.ndarray], kind: str = "switch", seed: int = 0) -> np.ndarray:
    """Each row's target over the 26 actions, from the network's own probabilities `probs`
    (`probabilities`) over the legal moves.

    `kind="switch"`: where the search played another move than the network's, that move alone.
    `kind="soft"`: at every searched row, the probability the two candidates hold between them is
    split by the chance that the best other move is the better one, Phi(gain / error) (the searched
    values' normal approximation; the search itself switches only beyond `z` errors). A search that
    ran out of time before its first world found no values (NaN): its row keeps the network's.
    `kind="best"`: at every searched row, the probability all the searched candidates hold between
    them is split by each one's chance of being the best of them (`best_chances`, from every
    candidate's gain and error, `gains` and `errors`; `seed` seeds its draws); with two candidates that
    is `soft`'s split, up to the draws' noise. `kind="weighted"`: the same mass split in proportion to
    each candidate's probability times its chance of being the best, so that where the search cannot
    tell the candidates apart (equal chances) the network's probabilities stay, and where it can the
    best one takes the mass.
    """
    if kind not in TARGETS:
        raise ValueError(f"target must be one of {', '.join(TARGETS)}, got {kind!r}")
    played = rows["played"].astype(np.int64)
    out = probs.copy()
    if kind == "switch":
        switched = np.flatnonzero(played != rows["network_move"])
        out[switched] = 0.0
        out[switched, played[switched]] = 1.0
        return out
    if kind in ("best", "weighted"):
        network_move = rows["network_move"].astype(np.int64)
        known = np.flatnonzero(rows["searched"] & np.isfinite(rows["gains"][np.arange(len(played)), network_move]))
        searched = np.isfinite(rows["gains"][known]) & np.isfinite(rows["errors"][known])
        chances = best_chances(rows["gains"][known], rows["errors"][known], network_move[known], seed)
        mass = np.where(searched, out[known], 0.0).sum(axis=1, keepdims=True)
        if kind == "weighted":  # every product 0 (the network sure of a move found worse): the chances alone
            product = np.where(searched, out[known], 0.0) * chances
            total = product.sum(axis=1, keepdims=True)
            chances = np.where(total > 0, product / np.where(total > 0, total, 1.0), chances)
        out[known] = np.where(searched, mass * chances, out[known])
        return out
    idx = np.flatnonzero(rows["searched"] & np.isfinite(rows["gain"]) & np.isfinite(rows["error"]))
    a, b = rows["network_move"][idx].astype(np.int64), rows["alternative"][idx].astype(np.int64)
    gain, error = rows["gain"][idx].astype(np.float64), rows["error"][idx].astype(np.float64)
    exact = np.sign(gain) * np.where(gain == 0, 0.0, np.inf)  # error 0: the values are exact
    z = np.where(error > 0, gain / np.where(error > 0, error, 1.0), exact)
    better = 0.5 * (1.0 + np.array([math.erf(v / math.sqrt(2.0)) for v in z]))
    mass = out[idx, a] + out[idx, b]
    out[idx, a] = mass * (1.0 - better)
    out[idx, b] = mass * better
    return out


def fit(
    network: PolicyNetwork,
    rows: Mapping[str, np.ndarray],
    epochs: int = 4,
    learning_rate: float = 1e-4,
    switch_weight: float = 1.0,
    seed: int = 0,
    target_kind: str = "soft",
    batch_size: int = 512,
    held_out_every: int = 20,
    progress: bool = True,
) -> tuple[PolicyNetwork, dict[str, Any]]:
    """`network`'s actor trained towards `targets` (module doc): the weighted cross entropy of the
    target against the masked policy, every `held_out_every`-th game held out (games k - 1, 2k - 1, ...). Returns the
    new network (its `info` the old one's) and the figures: rows, switched rows, and on the held-out
    rows how often the network's top move is the search's where it switched (before: 0) and the old
    network's move elsewhere, and the mean KL divergence from the old probabilities there."""
    import torch

    from train.warm_start import descend

    torch.manual_seed(seed)
    old = probabilities(network, rows)
    target = targets(old, rows, target_kind, seed)
    switched = rows["played"] != rows["network_move"]
    weight = np.where(switched, switch_weight, 1.0).astype(np.float32)
    held = rows["game"] % held_out_every == held_out_every - 1
    train_idx, held_idx = np.flatnonzero(~held), np.flatnonzero(held)
    if len(train_idx) == 0:
        raise ValueError(f"too few rows to train on ({len(held)}, all held out)")
    policy = torch_policy(network, learning_rate)
    params = [
        *policy.features_extractor.parameters(),
        *policy.mlp_extractor.policy_net.parameters(),
        *policy.action_net.parameters(),
    ]
    optimizer = torch.optim.Adam(params, lr=learning_rate)
    rng = np.random.default_rng(seed)

    def log_probs(idx: np.ndarray) -> Any:
        obs = torch.as_tensor(rows["observations"][idx])
        logits = policy.action_net(policy.mlp_extractor.forward_actor(policy.extract_features(obs)))
        return torch.log_softmax(logits.masked_fill(~torch.as_tensor(rows["masks"][idx]), -1e9), dim=1)

    steps = epochs * -(-len(train_idx) // batch_size)
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=steps, desc=f"expert iteration: fit, {epochs} epochs", unit="batch")
    policy.set_training_mode(True)
    for _ in range(epochs):
        rng.shuffle(train_idx)
        for start in range(0, len(train_idx), batch_size):
            idx = train_idx[start : start + batch_size]
            w = torch.as_tensor(weight[idx])
            loss = -(w * (torch.as_tensor(target[idx]) * log_probs(idx)).sum(dim=1)).sum() / w.sum()
            descend(optimizer, loss, params)
            if bar is not None:
                bar.update(1)
    if bar is not None:
        bar.close()
    policy.set_training_mode(False)
    with torch.no_grad():
        new_log = log_probs(held_idx).numpy() if len(held_idx) else np.zeros((0, 26))
    top = new_log.argmax(axis=1)
    held_switched = switched[held_idx]
    kept = ~held_switched
    was = old[held_idx][kept]
    kl = (was * (np.log(np.maximum(was, 1e-12)) - new_log[kept])).sum(axis=1)
    report = {
        "rows": len(switched),
        "switched": int(switched.sum()),
        "games": len(np.unique(rows["game"])),
        "held_out_rows": len(held_idx),
        "held_out_switched": int(held_switched.sum()),
        "held_out_plays_search_move": _share(top[held_switched] == rows["played"][held_idx][held_switched]),
        "held_out_keeps_network_move": _share(top[kept] == rows["network_move"][held_idx][kept]),
        "held_out_kl": float(kl.mean()) if len(kl) else None,
        "epochs": epochs,
        "learning_rate": learning_rate,
        "switch_weight": switch_weight,
        "target": target_kind,
    }
    return _network_of(policy, network), report


def _share(hits: np.ndarray) -> float | None:
    return round(float(hits.mean()), 4) if len(hits) else None


def _network_of(policy: Any, like: PolicyNetwork) -> PolicyNetwork:
    """The actor of `policy` as a policy file's network, for the table sizes `like` plays, with its `info`."""
    from gymnasium import spaces

    from agents.sb3_model import network_from_model

    model = SimpleNamespace(
        policy=policy,
        observation_space=policy.observation_space,
        action_space=spaces.Discrete(26),
        num_timesteps=int(like.info.get("trained_steps", 0)),
    )
    new = network_from_model(model, str(like.info.get("source", "")), players=like.players)
    new.info = dict(like.info)
    return new


def _spelled(weights: Mapping[Any, float]) -> str:
    return ",".join(f"{k}={w:g}" for k, w in weights.items())


def _agent(parser: argparse.ArgumentParser, name: str) -> Any:
    try:
        return make_agent(name)
    except ValueError as e:
        parser.error(f"--opponents: {e}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m train.expert_iteration", description=__doc__.split("\n\n")[0])
    parser.add_argument("--run", required=True, type=Path, help="a folder for the data chunks (resumable)")
    parser.add_argument("--out", type=Path, help="where to write the new policy file (not needed with --play-only)")
    parser.add_argument("--search", default="ppo+search", help="the search agent, with options (default ppo+search)")
    parser.add_argument("--chunks", type=int, default=200, help="chunks of games to play (default 200)")
    parser.add_argument("--games", type=int, default=2, help="games per chunk (default 2)")
    parser.add_argument(
        "--players",
        default=_spelled(DEFAULT_PLAYERS),
        help=f"table sizes and weights (default {_spelled(DEFAULT_PLAYERS)})",
    )
    parser.add_argument(
        "--opponents",
        default=_spelled(DEFAULT_OPPONENTS),
        help=f"the other seats' agents and weights (default {_spelled(DEFAULT_OPPONENTS)})",
    )
    parser.add_argument("--anchors", type=float, default=0.25, help="share of unsearched decisions kept (default 0.25)")
    parser.add_argument("--processes", type=int, default=1, help="processes playing chunks side by side (default 1)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--play-only", action="store_true", help="only step 1")
    parser.add_argument("--fit-only", action="store_true", help="only step 2, on the chunks there are")
    parser.add_argument(
        "--include", type=Path, action="append", default=[], help="another run whose chunks the fit adds (repeatable)"
    )
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--learning-rate", type=float, default=1e-4)
    parser.add_argument("--switch-weight", type=float, default=1.0, help="weight of a row the search switched")
    parser.add_argument("--target", choices=TARGETS, default="soft", help="what a row's target is (default soft)")
    args = parser.parse_args(argv)
    try:
        players = parse_weights(args.players, "players", int)
        opponents = parse_weights(args.opponents, "opponents")
    except ValueError as e:
        parser.error(str(e))
    if bad := [n for n in players if not 2 <= n <= 8]:
        parser.error(f"--players: table sizes are 2 to 8, got {bad}")
    try:
        searcher = search_agent(args.search)
    except ValueError as e:
        parser.error(f"--search: {e}")
    for name, agent in [(args.search, searcher), *((name, _agent(parser, name)) for name in opponents)]:
        if missing := sorted(set(players) - set(getattr(agent, "players", players))):
            parser.error(f"{name} does not play {missing} players (it plays {list(agent.players)}): see --players")
    if not 0 <= args.anchors <= 1:
        parser.error(f"--anchors must be in [0, 1], got {args.anchors}")
    if args.chunks < 1 or args.games < 1 or args.processes < 1:
        parser.error("--chunks, --games and --processes must be at least 1")
    if args.play_only and args.fit_only:
        parser.error("--play-only and --fit-only exclude each other")
    if not args.play_only and (args.out is None or args.out.suffix != ".safetensors"):
        parser.error("--out NAME.safetensors is needed to fit (or give --play-only)")
    data = args.run / "data"
    if not args.fit_only:
        play(
            data,
            range(args.chunks),
            args.search,
            args.games,
            args.seed,
            players,
            opponents,
            args.anchors,
            args.processes,
        )
    if args.play_only:
        return 0
    network = searcher.network
    try:
        rows = load_chunks(data, *(run / "data" for run in args.include))
    except FileNotFoundError as e:
        parser.error(str(e))
    new, report = fit(network, rows, args.epochs, args.learning_rate, args.switch_weight, args.seed, args.target)
    step = {"search": args.search, "runs": [r.name for r in [args.run, *args.include]], **report}
    new.info["expert_iteration"] = [*new.info.get("expert_iteration", []), step]  # after the searched net's steps
    save_policy(new, args.out)
    files.write_json(args.run / "fit.json", report)
    print(f"wrote {args.out}: {json.dumps(report)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
