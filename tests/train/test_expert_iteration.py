"""Expert iteration: the search's choices recorded at its own decisions, then taught to its network."""

from __future__ import annotations

import numpy as np
import pytest

from agents import make as make_agent
from agents.model_file import load_policy
from train.expert_iteration import (
    COLUMNS,
    best_chances,
    load_chunks,
    main,
    parse_weights,
    play,
    play_chunk,
    probabilities,
    targets,
)

pytest.importorskip("sb3_contrib")

# a budget of worlds, not of time: the same seed replays bit for bit; every decision with a choice searched
SEARCH = "ppo+search:worlds=2,batch=2,ms=1e9,confident=off"


@pytest.fixture(scope="module")
def chunk() -> dict[str, np.ndarray]:
    return play_chunk(SEARCH, chunk=0, games=1, seed=3, players={2: 1.0}, opponents={"expert": 1.0}, anchors=0.0)


@pytest.fixture(scope="module")
def network():
    return make_agent(SEARCH).network


def test_rows_are_the_search_seats_decisions_with_a_choice_each_legal(chunk):
    n = len(chunk["played"])
    assert n > 30 and all(len(chunk[c]) == n for c in COLUMNS)
    assert chunk["observations"].shape == (n, 1831) and chunk["masks"].shape == (n, 26)
    rows = np.arange(n)
    assert chunk["masks"][rows, chunk["played"]].all() and chunk["masks"][rows, chunk["network_move"]].all()
    assert (chunk["masks"].sum(axis=1) >= 2).all(), "a forced move is no decision"
    assert chunk["searched"].all(), "confident=off searches every decision"
    searched = chunk["alternative"] >= 0
    assert (chunk["alternative"][searched] != chunk["network_move"][searched]).all()
    assert chunk["masks"][rows[searched], chunk["alternative"][searched]].all()
    assert (chunk["players"] == 2).all() and (chunk["game"] == 0).all()


def test_the_network_move_is_the_networks_and_a_switch_is_the_better_alternative(chunk, network):
    logits = network.logits(chunk["observations"])
    top = np.where(chunk["masks"], logits, -np.inf).argmax(axis=1)
    assert np.array_equal(top, chunk["network_move"])
    switched = chunk["played"] != chunk["network_move"]
    assert np.array_equal(chunk["played"][switched], chunk["alternative"][switched])
    assert (chunk["gain"][switched] > 0).all(), "the search switches only to a move it found better"


def test_a_chunk_replays_bit_for_bit_with_a_budget_of_worlds(chunk):
    again = play_chunk(SEARCH, chunk=0, games=1, seed=3, players={2: 1.0}, opponents={"expert": 1.0}, anchors=0.0)
    for column in COLUMNS:
        assert np.array_equal(again[column], chunk[column], equal_nan=True), column


def test_the_network_sure_of_its_move_keeps_a_share_of_its_decisions_as_anchors():
    rows = play_chunk(
        "ppo+search:worlds=2,batch=2,ms=1e9", chunk=1, games=1, seed=0, players={2: 1.0}, opponents={"greedy": 1.0},
        anchors=1.0,
    )  # fmt: skip
    unsearched = ~rows["searched"]
    assert unsearched.any() and rows["searched"].any()
    assert (rows["played"][unsearched] == rows["network_move"][unsearched]).all()
    assert (rows["alternative"][unsearched] == -1).all() and (rows["gain"][unsearched] == 0).all()


def test_switch_targets_are_the_searchs_move_where_it_switched_else_the_networks_probabilities(chunk, network):
    rows = dict(chunk)
    rows["played"] = chunk["played"].copy()
    rows["played"][:3] = chunk["alternative"][:3]  # three switches
    target = targets(probabilities(network, rows), rows, "switch")
    assert np.allclose(target.sum(axis=1), 1.0) and (target[~chunk["masks"]] == 0).all()
    assert np.array_equal(target[np.arange(3), rows["played"][:3]], np.ones(3))
    kept = rows["played"] == rows["network_move"]
    logits = network.logits(chunk["observations"][kept])
    probs = np.exp(np.where(chunk["masks"][kept], logits, -np.inf) - logits.max(axis=1, keepdims=True))
    assert np.allclose(target[kept], probs / probs.sum(axis=1, keepdims=True), atol=1e-6)


def test_soft_targets_split_the_two_candidates_mass_by_the_chance_the_alternative_is_better(chunk, network):
    rows = {c: chunk[c].copy() for c in COLUMNS}
    # level, far better, far worse, an exact tie (error 0), no world played in time (NaN)
    rows["gain"][:5], rows["error"][:5] = [0.0, 100.0, -100.0, 0.0, np.nan], [1.0, 1.0, 1.0, 0.0, np.nan]
    base = probabilities(network, rows)
    soft = targets(base, rows, "soft")
    four = np.arange(4)
    a, b = rows["network_move"][:4].astype(int), rows["alternative"][:4].astype(int)
    mass = base[four, a] + base[four, b]
    assert np.allclose(soft[four, b], mass * np.array([0.5, 1.0, 0.0, 0.5]), atol=1e-6)
    assert np.array_equal(soft[4], base[4]), "a search without values changes nothing"
    assert np.allclose(soft.sum(axis=1), 1.0, atol=1e-6)
    with pytest.raises(ValueError, match="target must be one of"):
        targets(base, rows, "hard")


def _candidates(gains: list[float], errors: list[float], moves=(3, 5, 7, 9)) -> tuple[np.ndarray, np.ndarray]:
    g, e = np.full((1, 26), np.nan), np.full((1, 26), np.nan)
    g[0, list(moves[: len(gains)])], e[0, list(moves[: len(gains)])] = gains, errors
    return g, e


def test_best_chances_are_each_candidates_chance_of_the_highest_searched_value():
    net = np.array([3])
    # two candidates: the chance the other is better, Phi(gain / error)
    for gain, phi in [(0.0, 0.5), (1.0, 0.8413), (-2.0, 0.0228)]:
        chances = best_chances(*_candidates([0.0, gain], [0.0, 1.0]), net)
        assert chances[0, 5] == pytest.approx(phi, abs=0.02) and chances[0, 3] == pytest.approx(1 - phi, abs=0.02)
    # three: two level alternatives far above the network's move share the mass; an exact tie is shared too
    level = best_chances(*_candidates([0.0, 50.0, 50.0], [0.0, 1.0, 1.0]), net)[0]
    assert level[3] == 0 and level[5] == pytest.approx(0.5, abs=0.03) and level[5] + level[7] == pytest.approx(1)
    assert best_chances(*_candidates([0.0, 0.0], [0.0, 0.0]), net)[0, [3, 5]].tolist() == [0.5, 0.5]
    # four, all level with the network's move within their errors: each a share, the unsearched none
    four = best_chances(*_candidates([0.0, 0.1, -0.1, 0.0], [0.0, 1.0, 1.0, 1.0]), net)[0]
    assert (
        four.sum() == pytest.approx(1.0)
        and (four[[3, 5, 7, 9]] > 0.1).all()
        and (np.delete(four, [3, 5, 7, 9]) == 0).all()
    )
    # the network's move need not be the first searched move; the same seed gives the same chances
    g, e = _candidates([1.0, 0.0, -1.0], [0.5, 0.0, 0.5])
    assert best_chances(g, e, np.array([5]), seed=4).tolist() == best_chances(g, e, np.array([5]), seed=4).tolist()
    assert best_chances(g, e, np.array([5]))[0, 3] == pytest.approx(0.977, abs=0.01)


def test_best_targets_split_the_searched_candidates_mass_by_their_chances_of_being_best(chunk, network):
    rows = {c: chunk[c].copy() for c in COLUMNS}
    base = probabilities(network, rows)
    soft, best = targets(base, rows, "soft"), targets(base, rows, "best", seed=1)
    # the chunk's search compares two candidates: the same split as soft's, up to the draws' noise
    assert np.abs(best - soft).max() < 0.03 and np.allclose(best.sum(axis=1), 1.0, atol=1e-5)
    # a third candidate far better than the others takes all their mass; a row without values keeps the network's
    r = int(np.argmax(chunk["masks"].sum(axis=1) > np.isfinite(chunk["gains"]).sum(axis=1)))
    third = next(int(m) for m in np.flatnonzero(chunk["masks"][r]) if np.isnan(rows["gains"][r, m]))
    rows["gains"][r, third], rows["errors"][r, third] = 100.0, 1.0
    none = (r + 1) % len(base)
    rows["gains"][none], rows["errors"][none] = np.nan, np.nan
    best = targets(base, rows, "best")
    searched = np.isfinite(chunk["gains"][r])
    assert best[r, third] == pytest.approx(base[r, searched].sum() + base[r, third], abs=1e-6)
    assert (best[r, searched] == 0).all() and np.array_equal(best[none], base[none])
    others = ~searched
    others[third] = False
    assert np.array_equal(best[r, others], base[r, others]), "a move not searched keeps its probability"


def test_weighted_targets_keep_the_networks_probabilities_where_the_search_cannot_tell_the_candidates_apart(
    chunk, network
):
    rows = {c: chunk[c].copy() for c in COLUMNS}
    base = probabilities(network, rows)
    r = int(np.argmax(np.isfinite(chunk["gains"]).sum(axis=1) >= 2))
    searched = np.flatnonzero(np.isfinite(chunk["gains"][r]))
    # every candidate level with the network's move, exactly: equal chances, the network's split stays
    rows["gains"][r, searched], rows["errors"][r, searched] = 0.0, 0.0
    assert np.allclose(targets(base, rows, "weighted")[r], base[r], atol=1e-6)
    # one other candidate far better: it takes the candidates' mass, as with best
    other = next(int(m) for m in searched if m != chunk["network_move"][r])
    rows["gains"][r, other], rows["errors"][r, other] = 100.0, 1.0
    weighted = targets(base, rows, "weighted")
    assert weighted[r, other] == pytest.approx(base[r, searched].sum(), abs=1e-6)
    assert np.allclose(weighted.sum(axis=1), 1.0, atol=1e-5)
    # a network sure of its move (the others' probabilities 0): the chances alone, nothing lost
    sure = base.copy()
    sure[r] = 0.0
    sure[r, chunk["network_move"][r]] = 1.0
    assert targets(sure, rows, "weighted")[r].tolist() == targets(sure, rows, "best")[r].tolist()
    assert targets(sure, rows, "weighted")[r, other] == pytest.approx(1.0)


def test_fit_teaches_the_switches_and_keeps_the_rest(chunk, network):
    from train.expert_iteration import fit

    rows = {c: chunk[c].copy() for c in COLUMNS}
    rows["played"] = rows["network_move"].copy()
    switch = np.arange(0, len(rows["played"]), 4)
    rows["played"][switch] = rows["alternative"][switch]
    new, report = fit(network, rows, epochs=30, learning_rate=1e-3, switch_weight=4.0, held_out_every=1_000_000, target_kind="switch",
                      progress=False)  # fmt: skip
    logits = np.where(rows["masks"], new.logits(rows["observations"]), -np.inf)
    assert (logits.argmax(axis=1) == rows["played"]).mean() > 0.9, "the new network plays the search's moves"
    assert report["rows"] == len(rows["played"]) and report["switched"] == len(switch)
    assert report["held_out_rows"] == report["held_out_switched"] == 0 and report["held_out_kl"] is None
    assert new.players == network.players and new.architecture == network.architecture


def test_a_fit_that_learns_nothing_gives_back_the_network(chunk, network):
    from train.expert_iteration import fit

    new, report = fit(network, chunk, epochs=1, learning_rate=1e-12, progress=False)
    assert np.allclose(new.logits(chunk["observations"]), network.logits(chunk["observations"]), atol=1e-4)
    assert report["held_out_rows"] == 0, "game 0 is trained on (games 19, 39, ... are held out)"
    with pytest.raises(ValueError, match="all held out"):
        fit(network, chunk, epochs=1, held_out_every=1, progress=False)


def test_the_held_out_games_are_scored(chunk, network):
    from train.expert_iteration import fit

    rows = {c: np.concatenate([chunk[c], chunk[c]]) for c in COLUMNS}
    rows["played"] = rows["network_move"].copy()
    rows["game"][len(chunk["game"]) :] = 1  # the same game again as game 1, held out with held_out_every=2
    rows["played"][-1] = rows["alternative"][-1]  # one switch, in the held-out game
    _, report = fit(network, rows, epochs=1, learning_rate=1e-12, held_out_every=2, progress=False)
    assert report["held_out_rows"] == len(chunk["game"]) and report["held_out_switched"] == 1
    assert report["held_out_plays_search_move"] == 0.0, "the old network does not play the search's switch"
    assert report["held_out_keeps_network_move"] == 1.0 and report["held_out_kl"] < 1e-6


def test_play_writes_chunks_and_resumes_without_playing_them_again(tmp_path):
    data = tmp_path / "data"
    play(data, [0], "ppo+search:worlds=2,batch=2,ms=1e9", 1, 0, {2: 1.0}, {"greedy": 1.0}, 0.0, progress=False)
    first = (data / "chunk_0000.npz").stat().st_mtime_ns
    play(data, [0], "ppo+search:worlds=2,batch=2,ms=1e9", 1, 0, {2: 1.0}, {"greedy": 1.0}, 0.0, progress=False)
    assert (data / "chunk_0000.npz").stat().st_mtime_ns == first
    assert len(load_chunks(data)["played"]) > 0
    assert not list(data.glob(".*")), "no temporary file is left"


def test_the_command_plays_fits_and_writes_a_policy_file_that_plays(tmp_path):
    run, out = tmp_path / "run", tmp_path / "new.safetensors"
    argv = ["--run", str(run), "--out", str(out), "--search", "ppo+search:worlds=2,batch=2,ms=1e9", "--chunks", "1",
            "--games", "1", "--players", "3", "--opponents", "greedy", "--epochs", "1"]  # fmt: skip
    assert main(argv) == 0
    network = load_policy(out)
    [step] = network.info["expert_iteration"]
    assert step["rows"] > 0 and step["runs"] == ["run"] and (run / "fit.json").exists()
    assert network.players == make_agent("ppo").network.players
    # the next step searches with the new network, and its file lists both steps
    again = tmp_path / "again.safetensors"
    argv2 = [*argv[:2], "--out", str(again), "--search", f"ppo+search:model={out},worlds=2,batch=2,ms=1e9", *argv[6:]]
    assert main(argv2) == 0
    assert [s["runs"] for s in load_policy(again).info["expert_iteration"]] == [["run"], ["run"]]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--players", "2=0"], "weight > 0"),
        (["--players", "2=inf"], "weight > 0"),
        (["--players", "2,3", "--opponents", "ppo_2p"], "ppo_2p does not play [3] players"),
        (["--players", "2,3", "--search", "ppo+search:model=ppo_2p"], "does not play [3] players"),
        (["--players", "9"], "table sizes are 2 to 8"),
        (["--players", "two"], "bad --players entry"),
        (["--opponents", "expert,expert"], "each name once"),
        (["--anchors", "2"], "--anchors must be in"),
        ([], "--out NAME.safetensors is needed"),
        (["--play-only", "--fit-only"], "exclude each other"),
    ],
)
def test_bad_arguments_are_refused_in_one_line(tmp_path, capsys, argv, message):
    with pytest.raises(SystemExit):
        main(["--run", str(tmp_path), *argv])
    assert message in capsys.readouterr().err


def test_a_search_agent_is_needed(tmp_path):
    with pytest.raises(ValueError, match="is not a search agent"):
        play_chunk("expert", 0, 1, 0, {2: 1.0}, {"greedy": 1.0}, 0.0)


def test_weights_read_names_and_sizes():
    assert parse_weights("expert=2, ppo", "opponents") == {"expert": 2.0, "ppo": 1.0}
    assert parse_weights("2=3,8=1", "players", int) == {2: 3.0, 8: 1.0}


@pytest.mark.parametrize(
    ("argv", "message"),
    [(["--opponents", "exprt"], "--opponents: unknown agent 'exprt'"), (["--search", "expert"], "not a search agent")],
)
def test_unknown_agents_are_refused_before_any_game(tmp_path, capsys, argv, message):
    with pytest.raises(SystemExit):
        main(["--run", str(tmp_path), "--out", "x.safetensors", *argv])
    assert message in capsys.readouterr().err
    assert not (tmp_path / "data").exists()


def test_the_fit_adds_the_chunks_of_included_runs_and_refuses_a_run_without_any(tmp_path, capsys):
    search = "ppo+search:worlds=2,batch=2,ms=1e9"
    common = ["--search", search, "--chunks", "1", "--games", "1", "--players", "2", "--opponents", "greedy"]
    assert main(["--run", str(tmp_path / "a"), "--play-only", *common]) == 0
    out = tmp_path / "b.safetensors"
    argv = ["--run", str(tmp_path / "b"), "--out", str(out), "--include", str(tmp_path / "a"), "--seed", "1"]
    assert main([*argv, *common, "--epochs", "1"]) == 0
    [fitted] = load_policy(out).info["expert_iteration"]
    both = len(load_chunks(tmp_path / "a" / "data", tmp_path / "b" / "data")["played"])
    assert fitted["games"] == 2, "game 0 of each run is a game of its own"
    assert fitted["runs"] == ["b", "a"] and fitted["rows"] == both > len(load_chunks(tmp_path / "b" / "data")["played"])
    # --fit-only plays nothing: the 3 chunks asked for are not played
    assert main([*argv, *common, "--epochs", "1", "--chunks", "3", "--fit-only"]) == 0
    assert len(list((tmp_path / "b" / "data").glob("chunk_*"))) == 1
    with pytest.raises(SystemExit):
        main([*argv[:4], "--include", str(tmp_path / "none"), *common])
    assert "no chunks in" in capsys.readouterr().err


def test_every_searched_candidates_gain_is_kept_and_the_best_other_is_the_alternative(chunk):
    gains, errors, rows = chunk["gains"], chunk["errors"], np.arange(len(chunk["played"]))
    assert gains.shape == errors.shape == (len(rows), 26)
    searched = np.isfinite(gains)
    assert (searched.sum(axis=1) >= 2).all() and chunk["masks"][searched].all(), "candidates are legal moves"
    assert (gains[rows, chunk["network_move"]] == 0).all(), "a gain is over the network's move"
    known = chunk["alternative"] >= 0
    assert np.array_equal(gains[rows[known], chunk["alternative"][known]], chunk["gain"][known])
    assert np.array_equal(errors[rows[known], chunk["alternative"][known]], chunk["error"][known])
    others = np.where(searched, gains, -np.inf)
    others[rows, chunk["network_move"]] = -np.inf
    assert np.array_equal(others[known].max(axis=1), chunk["gain"][known]), "the alternative is the best other"


def test_chunks_written_before_every_gain_was_kept_still_load(tmp_path, chunk):
    old = {c: v.copy() for c, v in chunk.items() if c not in ("gains", "errors")}
    old["gain"][0] = old["error"][0] = np.nan  # a search that found no values before its deadline
    (tmp_path / "data").mkdir()
    np.savez(tmp_path / "data" / "chunk_0000.npz", **old)
    loaded = load_chunks(tmp_path / "data")
    rows = np.arange(len(chunk["played"]))
    assert set(loaded) == set(COLUMNS) and loaded["gains"].shape == (len(rows), 26)
    known = chunk["alternative"] >= 0
    known[0] = False
    assert np.array_equal(loaded["gains"][rows[known], chunk["alternative"][known]], chunk["gain"][known])
    assert (loaded["gains"][rows[1:], chunk["network_move"][1:]] == 0).all()
    assert np.isnan(loaded["gains"][0]).all(), "no values: no gains, as a new chunk writes it"
    assert np.isfinite(loaded["gains"]).sum(axis=1).max() <= 2, "only what an old chunk knew"
