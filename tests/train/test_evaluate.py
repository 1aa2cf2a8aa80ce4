"""`skyjo eval`: seat rotation, the JSON report, reproducibility and clear errors."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from agents.ppo_bot import SHIPPED_MODEL_ALL
from skyjo_env.engine import Rules
from train.evaluate import (
    check_pairable,
    evaluate,
    format_paired,
    format_report,
    paired_difference,
    play_game,
    wilson_interval,
    worker_pool,
)


def skyjo(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "skyjo_env", *args], capture_output=True, text=True, check=False)


class SeatRecorder:
    """Plays the first legal action and records the seats it was asked to play."""

    def __init__(self):
        self.name = "recorder"
        self.seats = set()

    def reset(self, seed=None):
        pass

    def act(self, view, legal_actions):
        self.seats.add(view.seat)
        return legal_actions[-1] if len(legal_actions) > 1 else legal_actions[0]


@pytest.mark.parametrize("n", [2, 3])
def test_seats_rotate_so_that_each_agent_plays_each_seat(n):
    bots = [SeatRecorder() for _ in range(n)]
    for index in range(n):
        for b in bots:
            b.seats = set()
        play_game(bots, [f"a{i}" for i in range(n)], Rules(num_players=n, max_turns_per_round=5), 0, index)
        assert [b.seats for b in bots] == [{(i + index) % n} for i in range(n)]


def test_wilson_interval():
    lo, hi = wilson_interval(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-4) and hi == pytest.approx(0.5962, abs=1e-4)
    assert wilson_interval(0, 10)[0] == 0.0 and wilson_interval(10, 10)[1] == 1.0


def test_evaluate_report_and_reproducibility():
    a = evaluate(["greedy", "random"], 12, seed=5, workers=1, progress=False)
    b = evaluate(["greedy", "random"], 12, seed=5, workers=2, progress=False)
    assert _results(a) == _results(b)  # all but the times per move, which are measured
    assert {k: v for k, v in a.items() if k != "results"} == {k: v for k, v in b.items() if k != "results"}
    assert a["agents"] == ["greedy", "random"] and a["games"] == 12 and a["seed"] == 5
    assert [r["agent"] for r in a["results"]] == ["greedy", "random"]
    assert sum(r["win_rate"] for r in a["results"]) == pytest.approx(1.0)
    for r in a["results"]:
        lo, hi = r["win_rate_ci95"]
        assert lo <= r["win_rate"] <= hi
        assert set(r) == {
            "agent",
            "win_rate",
            "win_rate_ci95",
            "mean_round_score",
            "mean_final_total",
            "ms_per_move_mean",
            "ms_per_move_median",
            "ms_per_move_p95",
        }
    assert a["mean_rounds_per_game"] >= 1


def test_the_same_agent_may_sit_twice():
    report = evaluate(["random", "random", "greedy"], 6, workers=1, progress=False)
    assert [r["agent"] for r in report["results"]] == ["random", "random", "greedy"]


def test_cli_end_to_end_with_json(tmp_path):
    out = tmp_path / "report.json"
    done = skyjo("eval", "greedy", "random", "--games", "10", "--seed", "2", "--json", str(out), "--workers", "1")
    assert done.returncode == 0, done.stderr
    assert "greedy" in done.stdout and "win rate" in done.stdout
    report = json.loads(out.read_text())
    assert set(report) >= {"agents", "games", "seed", "results", "mean_rounds_per_game"}
    assert report["games"] == 10 and report["seed"] == 2 and len(report["results"]) == 2


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["eval", "greedy", "nobody", "--games", "5"], "unknown agent 'nobody'"),
        (["eval", "greedy", "random", "--games", "0"], "games must be at least 1"),
        (["eval", "greedy", "random", "--rules", "num_players=3"], "num_players=3 in --rules, but 2 seats"),
        (["eval", "greedy", "random", "--rules", "colour=red"], "unknown rule option 'colour'"),
        (["eval", "greedy", "random", "--rules", "target_score=-5"], "target_score must be an int >= 1"),
        (["eval", "greedy"], "num_players must be 2..8, got 1"),
        (["eval", "greedy", "/nonexistent/model.zip"], "model file not found"),
    ],
)
def test_cli_bad_input_is_a_clear_error_not_a_traceback(args, message):
    done = skyjo(*args)
    assert done.returncode == 2
    assert message in done.stderr
    assert "Traceback" not in done.stderr


def _results(report):
    return [{k: v for k, v in r.items() if not k.startswith("ms_per_move")} for r in report["results"]]


def test_a_records_file_resumes_a_stopped_run_with_the_same_report(tmp_path):
    whole = evaluate(["greedy", "random"], games=12, seed=5, workers=1, progress=False)
    path = tmp_path / "run.jsonl"
    first = evaluate(["greedy", "random"], games=5, seed=5, workers=1, progress=False, records=path)
    assert first["games"] == 5 and len(path.read_text().splitlines()) == 1 + 5
    with path.open("a") as f:
        f.write('{"index": 5, "win_sh')  # a stop in the middle of a write
    resumed = evaluate(["greedy", "random"], games=12, seed=5, workers=1, progress=False, records=path)
    assert _results(resumed) == _results(whole)
    lines = path.read_text().splitlines()
    assert len(lines) == 1 + 12 and sorted(json.loads(line)["index"] for line in lines[1:]) == list(range(12))


def test_a_records_file_of_another_run_is_refused(tmp_path):
    path = tmp_path / "run.jsonl"
    evaluate(["greedy", "random"], games=2, seed=5, workers=1, progress=False, records=path)
    before = path.read_text()
    with pytest.raises(ValueError, match="holds games of another run"):
        evaluate(["greedy", "random"], games=2, seed=6, workers=1, progress=False, records=path)
    assert path.read_text() == before
    report = tmp_path / "report.txt"
    report.write_text("2 games, seed 5\n")
    with pytest.raises(ValueError, match="not a records file of skyjo eval"):
        evaluate(["greedy", "random"], games=2, seed=5, workers=1, progress=False, records=report)
    assert report.read_text() == "2 games, seed 5\n"


def test_the_report_gives_each_agents_time_per_move(tmp_path):
    path = tmp_path / "games.jsonl"
    report = evaluate(["greedy", "random"], games=3, seed=0, workers=1, progress=False, records=path)
    rows = [json.loads(line) for line in path.read_text().splitlines()[1:]]
    for i, result in enumerate(report["results"]):
        assert 0 < result["ms_per_move_median"] <= result["ms_per_move_p95"]
        times = [t for row in rows for t in row["move_ms"][i]]
        assert result["ms_per_move_mean"] == pytest.approx(np.mean(times))


def _blas_threads(_: int) -> list[int]:
    from threadpoolctl import threadpool_info

    return [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]


def _printed_with_two_blas_threads(*lines: str) -> str:
    """What a new Python process prints running `lines`, started with a BLAS pool of two threads."""
    script = "from tests.train.test_evaluate import _blas_threads\n" + "".join(f"{line}\n" for line in lines)
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "2"}
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
    return out.stdout.strip()


def test_one_blas_thread_limits_numpys_blas_in_a_process_that_had_two():
    printed = _printed_with_two_blas_threads(
        "from agents.base import one_blas_thread",
        "before = _blas_threads(0)",
        "one_blas_thread()",
        "print(before, _blas_threads(0))",
    )
    assert printed == "[2] [1]"


def test_the_eval_workers_run_numpys_blas_on_one_thread():
    # two workers on two cores, each with a pool of two spinning BLAS threads, made ppo+search's matrix
    # products several times slower (a mean of 5 worlds a move at 50 ms instead of 34: benchmarks/search_worlds.py)
    with worker_pool(2) as pool:
        assert pool.map(_blas_threads, range(2)) == [[1], [1]]


def test_one_worker_plays_here_on_one_blas_thread_and_gives_the_threads_back():
    printed = _printed_with_two_blas_threads(
        "from train.evaluate import play_chunked",
        "during = play_chunked(_blas_threads, lambda chunk: 0, 1, 1, 'x', False)",
        "print(during, _blas_threads(0))",
    )
    assert printed == "[1] [2]"


def test_a_paired_difference_is_the_mean_of_the_per_game_differences_on_the_same_deals(tmp_path):
    new, old = tmp_path / "new.jsonl", tmp_path / "old.jsonl"
    evaluate(["expert", "random"], games=12, seed=3, workers=1, progress=False, records=new)
    evaluate(["random", "random"], games=10, seed=3, workers=1, progress=False, records=old)
    paired = paired_difference(new, old)
    a = {json.loads(line)["index"]: json.loads(line)["win_share"] for line in new.read_text().splitlines()[1:]}
    b = {json.loads(line)["index"]: json.loads(line)["win_share"] for line in old.read_text().splitlines()[1:]}
    diff = np.array([a[i][0] - b[i][0] for i in range(10)])  # the 10 games both hold
    assert paired["games"] == 10
    first = paired["positions"][0]
    assert (first["agent"], first["other_agent"]) == ("expert", "random")
    assert first["difference"] == pytest.approx(diff.mean())
    assert first["se"] == pytest.approx(diff.std(ddof=1) / np.sqrt(10))
    assert first["win_rate"] == pytest.approx(np.mean([a[i][0] for i in range(10)]))
    assert paired["games_differing"] == sum(a[i] != b[i] for i in range(10))
    assert paired_difference(new, old, games=4)["games"] == 4
    itself = paired_difference(new, new)
    assert itself["games_differing"] == 0 and {(p["difference"], p["se"]) for p in itself["positions"]} == {(0.0, 0.0)}
    with pytest.raises(ValueError, match="1 game"):
        paired_difference(new, old, games=1)


def test_the_printed_tables_give_a_long_agent_name_whole(tmp_path):
    long = str(tmp_path / "a_network_with_a_name_longer_than_the_column.safetensors")
    shutil.copy(SHIPPED_MODEL_ALL, long)
    new, old = tmp_path / "new.jsonl", tmp_path / "old.jsonl"
    report = evaluate([long, "random"], games=2, seed=3, workers=1, progress=False, records=new)
    evaluate(["random", "random"], games=2, seed=3, workers=1, progress=False, records=old)
    for text in (format_report(report), format_paired(paired_difference(new, old))):
        header, *rows = text.splitlines()[-3:]
        assert long in rows[0] and "random" in rows[1]
        # the columns after the name stay aligned under their headings
        assert (
            rows[0].index(f"{report['results'][0]['win_rate']:.3f}")
            == rows[1].index(f"{report['results'][1]['win_rate']:.3f}")
            == header.index("win rate") + len("win rate") - 5
        )


def test_a_run_pairs_only_with_games_of_its_seed_and_rules(tmp_path):
    seed3, seed4 = tmp_path / "seed3.jsonl", tmp_path / "seed4.jsonl"
    evaluate(["greedy", "random"], games=2, seed=3, workers=1, progress=False, records=seed3)
    evaluate(["greedy", "random"], games=2, seed=4, workers=1, progress=False, records=seed4)
    with pytest.raises(ValueError, match="holds games of seed 4, this run is seed 3"):
        paired_difference(seed3, seed4)
    with pytest.raises(ValueError, match="other rules"):
        check_pairable(seed3, 3, Rules(num_players=2, target_score=50))
    report = tmp_path / "report.json"
    report.write_text("{}")
    with pytest.raises(ValueError, match="not a records file"):
        paired_difference(seed3, report)
    with pytest.raises(FileNotFoundError, match="records file not found"):
        paired_difference(seed3, tmp_path / "missing.jsonl")


def test_cli_eval_paired_prints_and_writes_the_difference(tmp_path):
    old, new, out = tmp_path / "old.jsonl", tmp_path / "new.jsonl", tmp_path / "report.json"
    common = ["--games", "6", "--seed", "1", "--workers", "1", "--no-progress"]
    assert skyjo("eval", "random", "random", *common, "--records", str(old)).returncode == 0
    done = skyjo("eval", "greedy", "random", *common, "--records", str(new), "--paired", str(old), "--json", str(out))
    assert done.returncode == 0, done.stderr
    assert f"paired with {old}, the same 6 games" in done.stdout
    report = json.loads(out.read_text())
    assert report["paired"] == paired_difference(new, old)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ([], "give --records too"),
        (["--records", "NEW", "--seed", "2"], "holds games of seed 1, this run is seed 2"),
        (["--records", "NEW", "--rules", "target_score=50"], "other rules than this run's"),
    ],
)
def test_cli_eval_paired_refuses_before_playing_a_game(tmp_path, extra, message):
    old, new = tmp_path / "old.jsonl", tmp_path / "new.jsonl"
    evaluate(["random", "random"], games=2, seed=1, workers=1, progress=False, records=old)
    extra = [str(new) if a == "NEW" else a for a in extra]
    done = skyjo("eval", "greedy", "random", "--games", "2", "--seed", "1", "--paired", str(old), *extra)
    assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr
    assert not new.exists()
