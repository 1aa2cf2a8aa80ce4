"""Helpers shared by the test packages."""

from __future__ import annotations

import numpy as np

from skyjo_env.engine import HIDDEN, GameState, Rules, apply_action, legal_actions, new_game


def shuffle_hidden_information(state: GameState, rng: np.random.Generator) -> GameState:
    """A copy with the face-down cards swapped among themselves and the draw pile shuffled."""
    other = state.copy()
    slots = [(p, s) for p in range(state.num_players) for s in range(12) if state.status[p][s] == HIDDEN]
    cards = [state.values[p][s] for p, s in slots] + list(state.draw_pile)
    cards = [cards[i] for i in rng.permutation(len(cards))]
    for (p, s), card in zip(slots, cards):
        other.values[p][s] = card
    other.draw_pile = cards[len(slots) :]
    return other


def random_states(num_players: int, games: int, seed: int, every: int = 1):
    """States met in random legal play (every `every`-th decision)."""
    rng = np.random.default_rng(seed)
    for g in range(games):
        state = new_game(Rules(num_players=num_players), seed=seed * 1000 + g)
        k = 0
        while not state.is_finished:
            if k % every == 0:
                yield state
            legal = legal_actions(state)
            apply_action(state, legal[int(rng.integers(len(legal)))])
            k += 1


def play_gym_episode(env, seed: int, pick=lambda legal: legal[0]) -> None:
    """Play one episode of the Gymnasium env, choosing `pick(legal actions)` every step."""
    _, info = env.reset(seed=seed)
    done = False
    while not done:
        _, _, terminated, truncated, info = env.step(int(pick(np.flatnonzero(info["action_mask"]))))
        done = terminated or truncated


def played_state(num_players: int, moves: int, seed: int) -> GameState:
    """A new seeded game after `moves` random legal moves (fewer if it ends first)."""
    state = new_game(Rules(num_players=num_players), seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        if state.is_finished:
            break
        apply_action(state, int(rng.choice(legal_actions(state))))
    return state


def plays_a_legal_game(bot, seed: int, num_players: int = 2, opponent: str | None = None, moves: int | None = None):
    """The bot plays every seat of a game to its end (or seat 0, with a new `opponent` bot in each
    other seat), each action legal; the finished state (with `moves`, the state after that many)."""
    import agents
    from skyjo_env.engine.view import seat_view

    state = new_game(Rules(num_players=num_players), seed=seed)
    seats = [bot] + [bot if opponent is None else agents.make(opponent) for _ in range(num_players - 1)]
    played = 0
    while not state.is_finished and (moves is None or played < moves):
        legal = legal_actions(state)
        action = seats[state.current_player].act(seat_view(state, state.current_player), legal)
        assert action in legal
        apply_action(state, action)
        played += 1
    return state
