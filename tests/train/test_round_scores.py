"""`python -m train.round_scores`: every round's scores of an agent playing itself, per table size."""

from __future__ import annotations

import numpy as np
import pytest

from agents.win_chance import RoundScores
from train.evaluate import read_records
from train.round_scores import collect, main, write


def test_the_table_holds_every_rounds_scores_and_loads_back(tmp_path):
    scores = collect("greedy", games=3, seed=0, run=tmp_path, sizes=(2, 3), workers=1)
    records = read_records(tmp_path / "2p.jsonl")
    assert [r.index for r in records] == [0, 1, 2]
    assert scores[2].tolist() == [row for r in records for row in r.round_scores]
    assert scores[3].shape[1] == 3 and len(scores[3]) >= 3
    write(tmp_path / "rs.npz", scores, {"agent": "greedy"})
    loaded = RoundScores.load(tmp_path / "rs.npz")
    assert loaded.info == {"agent": "greedy"}
    assert np.array_equal(loaded.table[3], scores[3]) and sorted(loaded.table) == [2, 3]
    with pytest.raises(ValueError, match=r"name ends in \.npz"):
        write(tmp_path / "rs.json", scores, {})


def test_a_run_resumes_from_its_records(tmp_path):
    collect("greedy", games=2, seed=0, run=tmp_path, sizes=(2,), workers=1)
    before = (tmp_path / "2p.jsonl").read_text()
    again = collect("greedy", games=2, seed=0, run=tmp_path, sizes=(2,), workers=1)
    assert (tmp_path / "2p.jsonl").read_text() == before  # no game played again
    assert again[2].tolist() == [row for r in read_records(tmp_path / "2p.jsonl") for row in r.round_scores]
    first = collect("greedy", games=1, seed=0, run=tmp_path, sizes=(2,), workers=1)  # fewer games asked
    assert first[2].tolist() == read_records(tmp_path / "2p.jsonl")[0].round_scores


def test_the_command_needs_an_out_file(capsys):
    with pytest.raises(SystemExit):
        main([])
    assert "--out" in capsys.readouterr().err
