"""`skyjo ladder`: seat-rotated games among agents at several table sizes, OpenSkill ratings, JSON and a chart."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from train.ladder import LadderGame, _ranks, ladder, rate, seating

pytest.importorskip("openskill")


def test_seating_uses_every_agent_before_repeating_one():
    for size in (2, 3, 5, 8):
        for index in range(20):
            seats = seating(3, size, seed=1, index=index)
            assert len(seats) == size and set(seats) <= {0, 1, 2}
            counts = [seats.count(a) for a in range(3)]
            assert max(counts) - min(counts) <= 1
            if size <= 3:
                assert len(set(seats)) == size  # no agent twice while there are enough agents
    assert seating(4, 3, 0, 5) == seating(4, 3, 0, 5), "seeded"


def test_ranks_share_ties():
    assert _ranks([50, 20, 50, 10]) == [3, 2, 3, 1]


def test_a_winner_rises_and_two_seats_count_once():
    from openskill.models import PlackettLuce

    games = [LadderGame(3, i, [0, 1, 1], [10, 40, 60], [0]) for i in range(5)]
    table = rate(["a", "b"], games, PlackettLuce())
    assert table["a"]["mu"] > 25 > table["b"]["mu"]
    assert table["a"]["wins"] == 5 and table["b"]["wins"] == 0
    assert table["b"]["games"] == 5 and table["b"]["seats"] == 10
    assert table["a"]["fair_share"] == pytest.approx(1 / 3) and table["b"]["fair_share"] == pytest.approx(2 / 3)


def test_a_game_that_hit_the_turn_limit_is_counted_but_not_rated():
    from openskill.models import PlackettLuce

    played = LadderGame(2, 0, [0, 1], [10, 40], [0])
    stuck = LadderGame(2, 1, [1, 0], [30, 20], [], truncated=True)
    table = rate(["a", "b"], [played, stuck], PlackettLuce())
    alone = rate(["a", "b"], [played], PlackettLuce())
    assert table["a"]["mu"] == alone["a"]["mu"] and table["b"]["sigma"] == alone["b"]["sigma"]
    assert table["a"]["games"] == 2 and table["a"]["truncated"] == 1 and table["a"]["wins"] == 1
    assert table["b"]["win_share"] == 0.0


def test_a_tiny_ladder_ranks_the_bots_and_replays(tmp_path):
    report = ladder(["random", "greedy", "expert"], [2, 4], games=30, seed=3, workers=1, progress=False)
    assert set(report["sizes"]) == {"2", "4"}
    for table in report["sizes"].values():
        assert table["expert"]["ordinal"] > table["random"]["ordinal"]
        assert table["random"]["win_share"] < 0.1
        assert sum(row["wins"] for row in table.values()) == pytest.approx(30)
    again = ladder(["random", "greedy", "expert"], [2, 4], games=30, seed=3, workers=2, progress=False)
    assert again == report, "the same seed gives the same ladder, whatever the workers"


def test_the_command_writes_json_and_a_chart(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "skyjo_env", "ladder", "random", "greedy", "--players", "2,3", "--games", "6",
         "--json", str(tmp_path / "l.json"), "--png", str(tmp_path / "l.png"), "--no-progress"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "2 players" in done.stdout and "3 players" in done.stdout and "win share" in done.stdout
    report = json.loads((tmp_path / "l.json").read_text())
    assert report["agents"] == ["random", "greedy"] and report["games"] == 6
    assert set(report["sizes"]["3"]["greedy"]) >= {"mu", "sigma", "ordinal", "games", "win_share"}
    assert (tmp_path / "l.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["random"], "at least two agents"),
        (["random", "random"], "named twice"),
        (["random", "nobody"], "unknown agent 'nobody'"),
        (["random", "ppo_2p", "--players", "3"], "ppo_2p was trained for 2 players; this game has 3"),
        (["random", "greedy", "--players", "9"], "table sizes must be 2..8"),
        (["random", "greedy", "--players", "two"], "expected table sizes like 2,3,4,6"),
    ],
)
def test_bad_ladders_are_clear_errors(args, message):
    done = subprocess.run(
        [sys.executable, "-m", "skyjo_env", "ladder", *args, "--games", "2"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr
