"""Reviewing a game (`agents.review`, `skyjo review`): the expected points a move lost, from the
seat's view only; bad records refused in one line."""

from __future__ import annotations

import json

import numpy as np
import pytest

import agents
from agents.review import Budget, Reviewer, decisions, review_record
from skyjo_env.cli import main
from skyjo_env.engine import REVEAL_FIRST, Rules, apply_action, legal_actions, new_game
from skyjo_env.engine.record import MAX_RECORD_BYTES, GameRecord
from skyjo_env.engine.view import seat_view
from tests.engine.scenario import ALL_HIDDEN, grid, hidden, scenario
from tests.helpers import played_state, shuffle_hidden_information

QUICK = Budget(worlds=8, top=2, seed=0)


def bots_record(num_players: int, seed: int, moves: int | None = None) -> GameRecord:
    """A game of `expert` at seat 0 against `ppo`s (to its end, or its first `moves` actions)."""
    bots = [agents.make("expert")] + [agents.make("ppo") for _ in range(num_players - 1)]
    rules = Rules(num_players=num_players)
    state, actions = new_game(rules, seed=seed), []
    while not state.is_finished and (moves is None or len(actions) < moves):
        seat = state.current_player
        action = int(bots[seat].act(seat_view(state, seat), legal_actions(state)))
        apply_action(state, action)
        actions.append(action)
    return GameRecord(rules, seed, 0, tuple(["expert"] + ["ppo"] * (num_players - 1)), tuple(actions))


def holding_a_drawn_minus_two():
    """Seat 0 drew a -2 and has a face-up 12: throwing the -2 away loses far more than any place it could go."""
    mine = grid([[12, 5, hidden(4), hidden(6)], [3, hidden(7), hidden(2), hidden(8)], [hidden(9), 4, hidden(1), 6]])
    return scenario([mine, grid(ALL_HIDDEN)], discard=[7], phase="holding_drawn", held_card=-2, held_from="draw")


def test_discarding_a_drawn_minus_two_beside_a_face_up_12_is_a_mistake():
    state = holding_a_drawn_minus_two()
    reviewer = Reviewer(Budget(worlds=32, top=3))
    swap_the_12 = 0  # place at c0r0, where the 12 is: the network's move
    discard_and_reveal = REVEAL_FIRST + 2  # discard the -2, turn c0r2
    bad = reviewer.review_position(state, 0, discard_and_reveal)
    assert bad.grade == "mistake" and bad.best < REVEAL_FIRST  # better: keep the -2, somewhere
    assert bad.cost > 8 and bad.cost > 2 * bad.error
    good = reviewer.review_position(state, 0, swap_the_12)
    assert good.grade == "fine"  # the places the network weighs are alike within the playouts' noise


def test_the_review_never_reads_the_real_hidden_cards():
    reviewer = Reviewer(QUICK)
    for seed in range(3):
        state = played_state(2, 30, seed)
        shuffled = shuffle_hidden_information(state, np.random.default_rng(seed + 50))
        assert shuffled.values != state.values or shuffled.draw_pile != state.draw_pile
        seat = state.current_player
        played = legal_actions(state)[-1]
        reviews = [reviewer.review_position(s, seat, played, step=seed) for s in (state, shuffled)]
        assert reviews[0] == reviews[1]


def test_a_review_is_the_same_on_one_process_or_two():
    record = bots_record(2, seed=3, moves=60)
    steps = decisions(record, 0)
    assert steps and all(record.replay(s).current_player == 0 for s in steps)
    alone = review_record(record, 0, QUICK, workers=1)
    assert alone == review_record(record, 0, QUICK, workers=2)
    assert [r.step for r in alone] == steps
    assert all(r.played == record.actions[r.step] and r.cost >= 0 for r in alone)


@pytest.mark.parametrize("num_players", [3, 5, 8])
def test_every_table_size_is_reviewed(num_players):
    record = bots_record(num_players, seed=num_players, moves=12 * num_players + 10)
    seat = num_players - 1  # a ppo seat
    reviews = Reviewer(Budget(worlds=4, top=2, ms=300)).review(record, seat, decisions(record, seat)[:2])
    assert len(reviews) == 2 and all(r.played in r.candidates and r.best in r.candidates for r in reviews)


def test_skyjo_review_prints_each_round_and_writes_json(tmp_path, capsys):
    path, out = tmp_path / "game.json", tmp_path / "review.json"
    path.write_text(json.dumps(bots_record(2, seed=4, moves=50).to_json()))
    code = main(["review", str(path), "--worlds", "4", "--top", "2", "--workers", "1", "--no-progress", "--all"])
    assert code == 0
    text = capsys.readouterr().out
    assert "Review of seat 0 (expert), 2 players, seed 4" in text and "Round 1:" in text and "points lost" in text
    assert main(["review", str(path), "--worlds", "4", "--top", "2", "--workers", "1", "--no-progress",
                 "--json", str(out)]) == 0  # fmt: skip
    report = json.loads(out.read_text())
    assert (
        report["seat"] == 0
        and report["moves"]
        and {"played_text", "best_text", "cost", "grade"} <= set(report["moves"][0])
    )


@pytest.mark.parametrize(
    "damage, message",
    [
        (lambda r: "not json {", "not a readable JSON game record"),
        (lambda r: json.dumps({**r, "format": "chess-pgn"}), "not a game record"),
        (lambda r: json.dumps({**r, "actions": [*r["actions"][:5], 99]}), "action #5 is illegal"),
        (lambda r: json.dumps({**r, "rules": {**r["rules"], "target_score": -5}}), "bad rule option"),
        (lambda r: json.dumps({**r, "seat": 7}), "seat must be 0..1"),
        (lambda r: " " * (MAX_RECORD_BYTES + 1), "a game record is at most"),
    ],
)
def test_a_bad_record_is_refused_in_one_line(tmp_path, capsys, damage, message):
    path = tmp_path / "game.json"
    path.write_text(damage(bots_record(2, seed=1, moves=20).to_json()))
    assert main(["review", str(path), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1, err


def test_a_seat_out_of_range_is_refused(tmp_path, capsys):
    path = tmp_path / "game.json"
    path.write_text(json.dumps(bots_record(2, seed=1, moves=20).to_json()))
    assert main(["review", str(path), "--seat", "2", "--no-progress"]) == 2
    assert "--seat must be 0..1" in capsys.readouterr().err


def test_skyjo_play_writes_a_record_that_skyjo_review_reads(tmp_path, monkeypatch, capsys):
    import io

    path = tmp_path / "played.json"
    typed = "c0r0\nc1r1\nd\nc0r0\nt\nc2r2\nquit\n"
    monkeypatch.setattr("sys.stdin", io.StringIO(typed))
    assert main(["play", "greedy", "--seed", "9", "--plain", "--record", str(path)]) == 0
    record = json.loads(path.read_text())
    assert record["players"] == ["you", "greedy"] and record["seat"] == 0 and len(record["actions"]) >= 6
    capsys.readouterr()
    assert main(["review", str(path), "--worlds", "4", "--top", "2", "--workers", "1", "--no-progress"]) == 0
    assert "Review of seat 0 (you)" in capsys.readouterr().out


LIBRARY = Budget(worlds=8, top=2, seed=0, opponents="network|expert|greedy")


def test_a_library_review_models_each_other_seat_by_the_moves_before_the_decision():
    record = bots_record(2, seed=5, moves=80)  # expert at seat 0, ppo at seat 1
    steps = decisions(record, 1)
    reviews = Reviewer(LIBRARY).review(record, 1, [steps[0], steps[-1]])
    # before seat 0's first counted move the library's first member models it; by the end, expert
    assert reviews[0].opponents == ((0, "network"),)
    assert reviews[1].opponents == ((0, "expert"),)
    assert reviews[1].as_dict()["opponents"] == {"0": "expert"}
    # the same decision reviewed alone is told nothing: the first member
    alone = Reviewer(LIBRARY).review_position(record.replay(steps[-1]), 1, record.actions[steps[-1]], steps[-1])
    assert alone.opponents == ((0, "network"),)
    # the network at every seat reports no models
    assert Reviewer(QUICK).review(record, 1, [steps[-1]])[0].opponents == ()


def test_a_library_review_is_the_same_on_one_process_or_two():
    # `random` predicts from its generator: each move is told with its own seed, whatever the split
    budget = Budget(worlds=4, top=2, seed=0, opponents="network|random|expert")
    record = bots_record(2, seed=6, moves=60)
    alone = review_record(record, 1, budget, workers=1)
    assert alone == review_record(record, 1, budget, workers=2)
    assert alone[-1].opponents == ((0, "expert"),)


def test_what_a_library_review_is_told_is_a_function_of_the_record():
    # `random` predicts from its generator: each move is told with its own seed, so its points are the same
    budget = Budget(worlds=4, top=2, seed=0, opponents="network|random")
    record = bots_record(2, seed=6, moves=60)
    step = decisions(record, 1)[-1]
    hits = []
    for _ in range(2):
        reviewer = Reviewer(budget)
        reviewer.review(record, 1, [step])
        hits.append(reviewer.bot.opponents.hits[0].copy())
    assert hits[0][1] > 0 and np.array_equal(hits[0], hits[1])
    assert 1 not in reviewer.bot.opponents.hits  # the reviewed seat's own moves are not told


@pytest.mark.parametrize(
    "opponents, message",
    [
        ("network||expert", "--opponents: opponents must be 'network'"),
        ("network|nobody", "--opponents: opponents must be 'network'"),
        ("network|ppo_2p", "--opponents: opponents member 'ppo_2p' was trained for 2 players; this game has 3"),
    ],
)
def test_skyjo_review_refuses_bad_opponents_in_one_line(tmp_path, capsys, opponents, message):
    path = tmp_path / "game.json"
    path.write_text(json.dumps(bots_record(3, seed=1, moves=40).to_json()))
    assert main(["review", str(path), "--opponents", opponents, "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1, err


def test_skyjo_review_with_a_library_says_so_and_writes_the_models(tmp_path, capsys):
    path, out = tmp_path / "game.json", tmp_path / "review.json"
    path.write_text(json.dumps(bots_record(2, seed=4, moves=70).to_json()))
    args = ["review", str(path), "--seat", "1", "--worlds", "4", "--top", "2", "--workers", "1", "--no-progress"]
    assert main([*args, "--opponents", "network|expert", "--json", str(out)]) == 0
    assert "the other seats modelled by network|expert from the moves before each decision" in capsys.readouterr().out
    report = json.loads(out.read_text())
    assert report["budget"]["opponents"] == "network|expert"
    assert report["moves"][-1]["opponents"] == {"0": "expert"}
