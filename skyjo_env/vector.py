"""# Skyjo, batched: many `Skyjo-v0` games stepped together in one process

`SkyjoBatch` plays `num_envs` games, each from a learner seat against its own opponents,
as `Skyjo-v0` does, but for the whole batch at once: one call steps every game, the
observations are written into one `(num_envs, size)` array by one call of the C encoder,
the action masks are one `(num_envs, 26)` array, finished games restart on their own, and
the opponents are played in batches: every game waiting on the same trained policy (the
shipped `ppo`, a model file, a self-play snapshot of a league) gets its move from one
forward pass over all of them. Heuristic bots still decide one game at a time.

Two faces of it:

- `SkyjoVectorEnv`: Gymnasium's vector API (`gymnasium.vector.VectorEnv`), with
  `autoreset_mode` `NEXT_STEP` (Gymnasium's default) or `SAME_STEP`, and the masks in
  `info["action_mask"]` (int8) and `action_masks()` (bool).
- `skyjo_env.sb3.SkyjoVecEnv`: stable-baselines3's `VecEnv`, with `action_masks()` for
  sb3-contrib's MaskablePPO (what `skyjo train` uses).

Game i is the game of a `Skyjo-v0` env reset with seed `seed + i` (Gymnasium's
`SyncVectorEnv` seeds its envs this way): with the same arguments, a batch gives the same
observations, rewards, ends and masks as `num_envs` separate envs, step for step, as long
as the opponents' moves do not depend on which other games are in the batch, and without
`canonical` (which `Skyjo-v0` does not have). That holds for the bots (one object per game and
seat) and for deterministic trained policies (the default); a policy that samples
(`deterministic=False`) draws from one generator for the whole batch.

| argument | default | meaning |
|---|---|---|
| `num_envs` | (required) | games in the batch |
| `num_players` | 2 | the table size; or several, `[2, 4]` (even odds) or `{2: 2, 8: 1}` (weights): each game draws its size at every reset (needs `observation="skyjo_v1"`) |
| `opponents`, `learner_seat`, `reward`, `episode`, `illegal_reward`, rule options | as `Skyjo-v0` | the same for every game; heuristic bot names give each game and seat its own bot, a trained policy (`ppo`, a model path) is loaded once and shared (batched), an object is shared by every game |
| `opponent_factory` | None | instead of `opponents`: `factory(i, n)` returns game i's n - 1 opponents at a table of n (training passes league opponents sharing one model cache) |
| `observation` | `"skyjo_v0"` | the learner's observation, `skyjo_v0` or `skyjo_v1`; each trained opponent is given the one its network reads |
| `canonical` | False | every grid kept in its canonical order after each move (`skyjo_env.engine.symmetry.canonicalize`): the games a network of canonical grids learns from; each trained opponent must read the grids in the same order |
| `privileged` | False | each observation row is followed by what only a critic may read, the true cards (`skyjo_env.observation.privileged`; needs `observation="skyjo_v1"`): for training a privileged critic, never for a policy to act on |
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv

from agents import make as make_agent
from agents.base import acting_policy, is_shared_policy, sizes_text
from skyjo_env.engine import NUM_ACTIONS, IllegalActionError, Rules, action_mask, legal_actions
from skyjo_env.engine.options import MAX_PLAYERS, MIN_PLAYERS
from skyjo_env.env_common import IllegalActionWarning, check_arguments, invalid_action
from skyjo_env.learner_game import LearnerGame
from skyjo_env.observation import (
    OBSERVATION_VERSION,
    OBSERVATIONS,
    SEATS_VERSION,
    StateEncoding,
    bounds,
    encoder,
    observation_size_of,
)
from skyjo_env.observation.privileged import PRIVILEGED_SIZE, PrivilegedEncoder, privileged_bounds
from skyjo_env.observation.privileged import check_observation as check_privileged
from skyjo_env.rewards import check_modes

_OWN_ARGUMENTS = (
    "num_envs",
    "num_players",
    "opponents",
    "opponent_factory",
    "learner_seat",
    "reward",
    "episode",
    "illegal_reward",
    "observation",
    "canonical",
    "privileged",
)

__all__ = ["SkyjoBatch", "SkyjoVectorEnv", "episode_stats"]


class SkyjoBatch:
    """`num_envs` games from a learner seat each, stepped together (see the module docstring).

    After `reset` and each `step`: `observations` (num_envs, size) float32, `masks`
    (num_envs, 26) bool, and per game `rewards`, `terminated`, `truncated`, `illegal`
    (the learner's action was illegal: the episode ended with `illegal_reward`). A game
    that ended stays ended (all-False mask) until `reset_done` restarts it.
    """

    def __init__(
        self,
        num_envs: int,
        num_players: int | Sequence[int] | Mapping[int, float] = 2,
        opponents: Sequence[Any] | str | None = None,
        learner_seat: int | None = None,
        reward: str = "game",
        episode: str = "game",
        illegal_reward: float = -1.0,
        opponent_factory: Callable[[int, int], Sequence[Any]] | None = None,
        observation: str = OBSERVATION_VERSION,
        canonical: bool = False,
        privileged: bool = False,
        **rule_options: Any,
    ) -> None:
        check_arguments("SkyjoBatch", _OWN_ARGUMENTS, rule_options)
        if not isinstance(num_envs, int) or isinstance(num_envs, bool) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive int, got {num_envs!r}")
        self.table_sizes, self._size_p = _table_sizes(num_players)
        if len(self.table_sizes) > 1 and observation != SEATS_VERSION:
            raise ValueError(
                f"games of several table sizes {list(self.table_sizes)} need observation={SEATS_VERSION!r} "
                f"(one layout for every size), got {observation!r}"
            )
        observation_size_of(observation, self.table_sizes[0])  # checks the version
        if privileged:
            check_privileged(observation)
        self.rules_of = {n: Rules(num_players=n, **rule_options) for n in self.table_sizes}
        check_modes(reward, episode)
        smallest = min(self.table_sizes)
        if learner_seat is not None and not 0 <= learner_seat < smallest:
            raise ValueError(f"learner_seat must be 0..{smallest - 1} or None, got {learner_seat!r}")
        if opponent_factory is not None and opponents is not None:
            raise ValueError("give opponents or opponent_factory, not both")
        self.num_envs = num_envs
        self.num_players = self.table_sizes[0]  # the table size, when there is one
        self.observation = observation
        self.canonical = bool(canonical)
        self.privileged = bool(privileged)
        self.fixed_learner_seat = learner_seat
        self.illegal_reward = float(illegal_reward)
        self._reward, self._episode = reward, episode
        self._factory = opponent_factory or _opponent_factory(opponents)
        self._tables: list[dict[int, LearnerGame]] = [{} for _ in range(num_envs)]
        self.games = [self._table(i, self.table_sizes[0]) for i in range(num_envs)]
        self.observation_size = observation_size_of(observation, self.table_sizes[0])
        if self.privileged:
            self.observation_size += PRIVILEGED_SIZE
        self._encoders: dict[tuple[str, int, bool], StateEncoding] = {}
        self._np_randoms: list[np.random.Generator] = [seeding.np_random(None)[0] for _ in range(num_envs)]
        self.observations = np.zeros((num_envs, self.observation_size), dtype=np.float32)
        self.masks = np.zeros((num_envs, NUM_ACTIONS), dtype=bool)
        self.rewards = np.zeros(num_envs, dtype=np.float64)
        self.terminated = np.zeros(num_envs, dtype=bool)
        self.truncated = np.zeros(num_envs, dtype=bool)
        self.illegal = np.zeros(num_envs, dtype=bool)
        self.episode_returns = np.zeros(num_envs, dtype=np.float64)
        self.episode_lengths = np.zeros(num_envs, dtype=np.int64)
        self.warned_illegal = False
        self._policy_ok: set[tuple[int, int]] = set()
        for i in range(num_envs):  # a trained opponent for another table size fails here, not mid-game
            for n in self.table_sizes:
                for bot in self._table(i, n).opponents:
                    if hasattr(bot, "act_observations"):
                        self._check_policy(bot, n)

    def _table(self, i: int, n: int) -> LearnerGame:
        """Game slot i's game at a table of n (made on first use, with its own opponents)."""
        game = self._tables[i].get(n)
        if game is None:
            opponents = list(self._factory(i, n))
            game = self._tables[i][n] = LearnerGame(
                self.rules_of[n], opponents, self._reward, self._episode, canonical=self.canonical
            )
        return game

    def _encoder(self, version: str, n: int, privileged: bool = False) -> StateEncoding:
        """The encoder of `version` at a table of n; `privileged`: followed by the true cards (the learner's
        rows for a privileged critic; an opponent's observation never is)."""
        key = (version, n, privileged)
        found = self._encoders.get(key)
        if found is None:
            found = encoder(version, n)
            if privileged:
                found = PrivilegedEncoder(found)
            self._encoders[key] = found
        return found

    def observation_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """The low and high bounds of an `observations` row (the privileged part's too, if there is one)."""
        low, high = bounds(self.observation, self.num_players)
        if self.privileged:
            extra_low, extra_high = privileged_bounds()
            low, high = np.concatenate([low, extra_low]), np.concatenate([high, extra_high])
        return low, high

    def opponents(self) -> list[Any]:
        """Every opponent object of every game, at every table size (a training schedule changes their mix)."""
        return [bot for tables in self._tables for game in tables.values() for bot in game.opponents]

    @property
    def learner_seats(self) -> np.ndarray:
        return np.array([g.learner_seat for g in self.games], dtype=np.int64)

    @property
    def done(self) -> np.ndarray:
        return self.terminated | self.truncated

    # ------------------------------------------------------------------ API
    def seed(self, seed: int | Sequence[int | None] | None) -> None:
        """Seed game i's generator with `seed + i` (or each game with its own entry of a list; None: fresh entropy)."""
        if seed is None or isinstance(seed, int):
            seeds: list[int | None] = [None if seed is None else seed + i for i in range(self.num_envs)]
        else:
            seeds = list(seed)
            if len(seeds) != self.num_envs:
                raise ValueError(f"{self.num_envs} games need {self.num_envs} seeds, got {len(seeds)}")
        self._np_randoms = [seeding.np_random(s)[0] for s in seeds]

    def reset(self, seed: int | Sequence[int | None] | None = None) -> None:
        """Start every game anew (after seeding, if `seed` is given)."""
        if seed is not None:
            self.seed(seed)
        self._restart(range(self.num_envs))

    def reset_done(self) -> np.ndarray:
        """Restart the games that ended; return their indices."""
        ended = np.flatnonzero(self.done)
        if len(ended):
            self._restart(ended)
        return ended

    def step(self, actions: Any, active: np.ndarray | None = None) -> None:
        """One learner action per game. With `active` (bool per game), only those games step: the others
        (restarted by the caller this step, say) report no reward and keep their observation. A game
        that ended must be restarted (`reset_done`) before it steps again."""
        actions = self._checked_actions(actions)
        stepping = np.ones(self.num_envs, dtype=bool) if active is None else np.asarray(active, dtype=bool)
        if stepping.shape != (self.num_envs,):
            raise ValueError(f"active must hold one bool per game ({self.num_envs}), got shape {stepping.shape}")
        if (self.done & stepping).any():
            over = np.flatnonzero(self.done & stepping).tolist()
            raise RuntimeError(f"games {over} are over: reset_done() before step()")
        indices = np.flatnonzero(stepping).tolist()
        self.illegal[:] = False
        self.rewards[:], self.terminated[:], self.truncated[:] = 0.0, False, False
        for i in indices:
            try:
                self.games[i].apply_learner(int(actions[i]))
            except IllegalActionError:
                self._illegal_move(i, int(actions[i]))
        self._play_opponents([i for i in indices if not self.illegal[i]])
        for i in indices:
            game = self.games[i]
            if self.illegal[i]:
                self.rewards[i], self.terminated[i] = self.illegal_reward, True
            else:
                self.rewards[i], self.terminated[i], self.truncated[i] = game.reward, game.terminated, game.truncated
            self.episode_returns[i] += self.rewards[i]
            self.episode_lengths[i] += 1
        self._observe(indices)

    # ------------------------------------------------------------ internals
    def _checked_actions(self, actions: Any) -> np.ndarray:
        array = np.asarray(actions)
        if array.shape != (self.num_envs,):
            raise ValueError(f"expected {self.num_envs} actions (shape ({self.num_envs},)), got shape {array.shape}")
        if not np.issubdtype(array.dtype, np.integer):
            raise invalid_action(array, spaces.Discrete(NUM_ACTIONS))
        bad = np.flatnonzero((array < 0) | (array >= NUM_ACTIONS))
        if len(bad):
            i = int(bad[0])
            raise invalid_action(array[i].item(), spaces.Discrete(NUM_ACTIONS)) from None
        return array

    def _illegal_move(self, i: int, action: int) -> None:
        self.illegal[i] = True
        if not self.warned_illegal:
            self.warned_illegal = True
            warnings.warn(
                f"SkyjoBatch: action {action} of game {i} is illegal there, so that episode ends with "
                f"illegal_reward={self.illegal_reward}. Choose among the actions of the masks (action_masks(), "
                "info['action_mask']); train with sb3_contrib.MaskablePPO and evaluate with "
                "sb3_contrib.common.maskable.evaluation.evaluate_policy. (This warning is given once per env.)",
                IllegalActionWarning,
                stacklevel=4,
            )

    def _restart(self, indices: Any) -> None:
        indices = [int(i) for i in indices]
        for i in indices:
            rng = self._np_randoms[i]
            n = self.table_sizes[0]
            if len(self.table_sizes) > 1:  # drawn first, so that one size alone replays Skyjo-v0's games
                n = self.table_sizes[int(rng.choice(len(self.table_sizes), p=self._size_p))]
            game = self.games[i] = self._table(i, n)
            seat = self.fixed_learner_seat
            game.reset(rng, int(rng.integers(n)) if seat is None else seat)
        self._play_opponents(indices)
        for i in indices:
            self.rewards[i], self.terminated[i], self.truncated[i], self.illegal[i] = 0.0, False, False, False
            self.episode_returns[i], self.episode_lengths[i] = 0.0, 0
        self._observe(indices)

    def _observe(self, indices: Any) -> None:
        """Encode the learner's observation of the listed games (one call per table size) and their masks."""
        indices = list(indices)
        for n, group in self._by_size(indices).items():
            games = [self.games[i] for i in group]
            coder = self._encoder(self.observation, n, self.privileged)
            if len(group) == self.num_envs:
                coder.encode_states([g.state for g in games], [g.learner_seat for g in games], self.observations)
            else:
                rows = np.empty((len(group), self.observation_size), dtype=np.float32)
                coder.encode_states([g.state for g in games], [g.learner_seat for g in games], rows)
                self.observations[group] = rows
        for i in indices:
            game = self.games[i]
            if game.done or self.illegal[i]:
                self.masks[i] = False
            else:
                self.masks[i] = action_mask(game.state)

    def _by_size(self, indices: Sequence[int]) -> dict[int, list[int]]:
        if len(self.table_sizes) == 1:
            return {self.table_sizes[0]: list(indices)} if len(indices) else {}
        groups: dict[int, list[int]] = {}
        for i in indices:
            groups.setdefault(self.games[i].rules.num_players, []).append(i)
        return groups

    def _play_opponents(self, indices: Sequence[int]) -> None:
        """Every listed game's opponents move until the learner's turn (or the episode's end); the games
        waiting on one trained policy move together, one forward pass per round of moves."""
        waiting = [i for i in indices if self.games[i].waiting_opponent() is not None]
        while waiting:
            batched: dict[int, tuple[Any, list[int]]] = {}
            for i in waiting:
                game = self.games[i]
                bot = game.waiting_opponent()
                if bot is None:  # pragma: no cover - the list holds the games waiting on an opponent
                    continue
                policy = acting_policy(bot)
                if hasattr(policy, "act_observations"):
                    batched.setdefault(id(policy), (policy, []))[1].append(i)
                else:
                    game.apply_opponent(game.ask())
            for policy, group in batched.values():
                for n, same_size in self._by_size(group).items():
                    self._check_policy(policy, n)
                    states = [self.games[i].state for i in same_size]
                    size = observation_size_of(policy.observation, n)
                    observations = np.empty((len(same_size), size), dtype=np.float32)
                    coder = self._encoder(policy.observation, n)
                    coder.encode_states(states, [s.current_player for s in states], observations)
                    moves = policy.act_observations(observations, [legal_actions(s) for s in states])
                    for i, move in zip(same_size, moves):
                        self.games[i].apply_opponent(move)
            waiting = [i for i in waiting if self.games[i].waiting_opponent() is not None]

    def _check_policy(self, policy: Any, n: int) -> None:
        """A trained opponent must read an observation this package writes, at this table size, with the
        grids in the order these games keep them (canonical or as they are)."""
        key = (id(policy), n)
        if key in self._policy_ok:
            return
        players = getattr(policy, "players", (n,))
        version = getattr(policy, "observation", None)
        name = getattr(policy, "name", policy)
        if version not in OBSERVATIONS or n not in players:
            raise ValueError(
                f"opponent {name!r} reads the {version} observation for {sizes_text(players)} players; this game has {n}"
            )
        if bool(getattr(policy, "canonical", False)) != self.canonical:
            raise ValueError(
                f"opponent {name!r} reads the grids {_ORDER[not self.canonical]}, and these games keep them "
                f"{_ORDER[self.canonical]} (canonical={self.canonical})"
            )
        self._policy_ok.add(key)


_ORDER = {True: "in their canonical order", False: "as they are"}


def _table_sizes(num_players: Any) -> tuple[tuple[int, ...], np.ndarray]:
    """The table sizes and their probabilities, from an int, a sequence of ints or a {size: weight} mapping."""
    if isinstance(num_players, Mapping):
        sizes = tuple(num_players)
        weights = np.array([float(num_players[n]) for n in sizes])
    elif isinstance(num_players, Sequence) and not isinstance(num_players, str):
        sizes = tuple(num_players)
        weights = np.ones(len(sizes))
    else:
        sizes, weights = (num_players,), np.ones(1)
    for n in sizes:
        if not isinstance(n, int | np.integer) or isinstance(n, bool) or not MIN_PLAYERS <= n <= MAX_PLAYERS:
            raise ValueError(f"a table size must be an int in {MIN_PLAYERS}..{MAX_PLAYERS}, got {n!r}")
    if not sizes or len(set(sizes)) != len(sizes):
        raise ValueError(f"num_players must name one or more different table sizes, got {num_players!r}")
    if (weights < 0).any() or weights.sum() <= 0:
        raise ValueError(f"table size weights must be >= 0 and not all 0, got {num_players!r}")
    return tuple(int(n) for n in sizes), weights / weights.sum()


def _opponent_factory(opponents: Sequence[Any] | str | None) -> Callable[[int, int], list[Any]]:
    """Game i's opponents at a table of n from `Skyjo-v0`'s `opponents` argument: bot names give each game
    and seat a bot of its own; model paths are loaded once and shared; objects are shared. One entry
    serves every seat; N - 1 entries give each seat its own."""
    if opponents is None:
        opponents = ["random"]
    elif isinstance(opponents, str) or not isinstance(opponents, Sequence):
        opponents = [opponents]
    entries = list(opponents)
    shared: dict[str, Any] = {}
    for entry in entries:
        if isinstance(entry, str) and entry not in shared:
            probe = make_agent(entry)
            if is_shared_policy(probe):  # a trained policy (`ppo`, a model file): one object for every game
                shared[entry] = probe

    def factory(i: int, n: int) -> list[Any]:
        seats = entries * (n - 1) if len(entries) == 1 else entries
        if len(seats) != n - 1:
            raise ValueError(f"opponents must hold 1 or {n - 1} entries for {n} players, got {len(entries)}")
        return [shared[e] if isinstance(e, str) and e in shared else make_agent(e) for e in seats]

    return factory


class SkyjoVectorEnv(VectorEnv):
    """`SkyjoBatch` behind Gymnasium's vector API (see the module docstring).

    `reset(seed=s)` seeds game i with `s + i`. Infos hold `action_mask` (num_envs, 26) int8 and
    `learner_seat`, each with its `_` mask, as `SyncVectorEnv` gathers them, and `illegal_action`
    for the games whose action was illegal. `autoreset_mode`: `NEXT_STEP` (the step after an
    episode's end restarts that game and ignores its action) or `SAME_STEP` (the ending step
    returns the new episode's observation and mask, the last one in `final_obs` / `final_info`).
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(
        self,
        num_envs: int,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        **kwargs: Any,
    ) -> None:
        mode = AutoresetMode(autoreset_mode)
        if mode not in (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP):
            raise ValueError(f"autoreset_mode must be NEXT_STEP or SAME_STEP, got {mode}")
        self.batch = SkyjoBatch(num_envs, **kwargs)
        self.num_envs = num_envs
        self.autoreset_mode = mode
        self.metadata = {"autoreset_mode": mode}
        low, high = self.batch.observation_bounds()
        self.single_observation_space = spaces.Box(low=low, high=high, dtype=np.float32)
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_space = gym.vector.utils.batch_space(self.single_observation_space, num_envs)
        self.action_space = gym.vector.utils.batch_space(self.single_action_space, num_envs)
        self.render_mode = None
        self._restart_next = np.zeros(num_envs, dtype=bool)

    def reset(self, *, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None):
        if options:
            raise ValueError(f"SkyjoVectorEnv.reset takes no options, got {options!r}")
        if seed is not None:
            self._np_random, self._np_random_seed = seeding.np_random(seed if isinstance(seed, int) else None)
        self.batch.reset(seed)
        self._restart_next[:] = False
        return self.batch.observations.copy(), self._infos()

    def step(self, actions: Any):
        batch = self.batch
        active = None
        if self.autoreset_mode == AutoresetMode.NEXT_STEP and self._restart_next.any():
            batch.reset_done()  # these games restart and ignore their action this step
            active = ~self._restart_next
        batch.step(actions, active)
        return self._results()

    def action_masks(self) -> np.ndarray:
        """(num_envs, 26) bool masks of the games' legal actions (all False for a game that just ended)."""
        return self.batch.masks.copy()

    def _results(self):
        batch = self.batch
        observations = batch.observations.copy()
        rewards = batch.rewards.copy()
        terminated, truncated = batch.terminated.copy(), batch.truncated.copy()
        infos = self._infos()
        if self.autoreset_mode == AutoresetMode.SAME_STEP:
            ended = np.flatnonzero(terminated | truncated)
            if len(ended):
                final_obs = np.full(self.num_envs, None, dtype=object)
                final_info: dict[str, Any] = {}
                for i in ended:
                    final_obs[i] = observations[i].copy()
                    final_info = self._add_info(final_info, self._game_info(int(i)), int(i))
                batch.reset_done()
                observations = batch.observations.copy()
                infos = self._infos()
                infos["final_obs"], infos["_final_obs"] = final_obs, terminated | truncated
                infos["final_info"], infos["_final_info"] = final_info, terminated | truncated
        else:
            self._restart_next = terminated | truncated
        return observations, rewards, terminated, truncated, infos

    def _game_info(self, i: int) -> dict[str, Any]:
        info: dict[str, Any] = {
            "action_mask": self.batch.masks[i].astype(np.int8),
            "learner_seat": int(self.batch.games[i].learner_seat),
        }
        if self.batch.illegal[i]:
            info["illegal_action"] = True
        return info

    def _infos(self) -> dict[str, Any]:
        batch = self.batch
        everyone = np.ones(self.num_envs, dtype=bool)
        infos: dict[str, Any] = {
            "action_mask": batch.masks.astype(np.int8),
            "_action_mask": everyone,
            "learner_seat": batch.learner_seats,
            "_learner_seat": everyone.copy(),
        }
        if batch.illegal.any():
            infos["illegal_action"], infos["_illegal_action"] = batch.illegal.copy(), batch.illegal.copy()
        return infos


def episode_stats(batch: SkyjoBatch, i: int, started: float) -> dict[str, float]:
    """SB3's Monitor-style record of game i's episode that just ended: return, length, seconds since `started`."""
    return {
        "r": float(batch.episode_returns[i]),
        "l": int(batch.episode_lengths[i]),
        "t": round(time.time() - started, 6),
    }
