"""The observation: declared pieces, the documented tables derived from them, both encoders bit for bit,
and no leak of hidden information."""

from __future__ import annotations

import ast
import os
import pickle
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import skyjo_env.aec
import skyjo_env.gym_env
import skyjo_env.observation
from skyjo_env.engine import Rules, apply_action, legal_actions, new_game
from skyjo_env.engine.view import seat_view
from skyjo_env.observation import (
    PIECES,
    CEncoder,
    Encoder,
    Layout,
    LayoutError,
    N,
    Piece,
    PyEncoder,
    _cencode,
    decode,
    doc_table,
    encode,
    encode_state,
    layout,
    observation_size,
    pieces,
    size_formula,
    size_terms,
    views,
)
from tests.helpers import shuffle_hidden_information

needs_c = pytest.mark.skipif(
    _cencode is None, reason="the C extension is not built (see test_the_c_encoder_is_built_and_is_the_default)"
)


DOCUMENTED = {"aec": skyjo_env.aec, "gym_env": skyjo_env.gym_env, "observation": skyjo_env.observation}
TABLED = ("observation",)  # the modules that carry the piece table


def documented_table(doc: str) -> list[str]:
    """The lines of the piece table in a docstring: its header and the rows that follow."""
    lines = doc.splitlines()
    start = lines.index("| piece | shape | meaning |")
    end = start
    while end < len(lines) and lines[end].startswith("|"):
        end += 1
    return lines[start:end]


def documented_pieces(doc: str, n: int) -> list[tuple[str, tuple[int, ...]]]:
    rows = re.findall(r"^\| `(\w+)` \| \(([N\d, ]+)\) \|", doc, flags=re.M)
    return [(name, tuple(int(eval(x, {"N": n})) for x in shape.split(",") if x.strip())) for name, shape in rows]


@pytest.mark.parametrize("module", TABLED)
def test_doc_tables_are_the_table_of_the_declared_pieces(module):
    """Names, shapes and meanings, row for row; on failure, paste `doc_table()` into the docstring."""
    assert documented_table(DOCUMENTED[module].__doc__) == doc_table().splitlines()


def test_the_aec_env_points_to_the_piece_table_instead_of_repeating_it():
    doc = skyjo_env.aec.__doc__
    assert "| piece | shape | meaning |" not in doc
    assert "skyjo_env.observation.decode(vector, N)" in doc and "`pieces(N)`" in doc


@pytest.mark.parametrize("n", [2, 3, 5, 8])
@pytest.mark.parametrize("module", TABLED)
def test_doc_table_shapes_are_the_pieces_for_each_table_size(module, n):
    assert documented_pieces(DOCUMENTED[module].__doc__, n) == pieces(n)


@pytest.mark.parametrize("module", DOCUMENTED)
def test_documented_size_formula_is_the_sum_of_the_pieces(module):
    from skyjo_env import state_vector

    formulas = re.findall(r"(\d+) N \+ (\d+)", DOCUMENTED[module].__doc__)
    state_terms = (
        state_vector.state_size(3) - state_vector.state_size(2),
        state_vector.state_size(2) - 2 * (state_vector.state_size(3) - state_vector.state_size(2)),
    )
    formulas = [f for f in formulas if tuple(map(int, f)) != state_terms]  # the AEC's state() has its own
    assert formulas, f"skyjo_env.{module} gives no size formula"
    assert {f"{a} N + {b}" for a, b in formulas} == {size_formula()}
    a, b = map(int, formulas[0])
    for n in range(2, 9):
        assert observation_size(n) == sum(int(np.prod(shape)) for _, shape in pieces(n)) == a * n + b


def test_documented_size_for_two_players_is_the_layouts():
    (two,) = re.findall(r"\((\d+) for 2 players\)", skyjo_env.observation.__doc__)
    assert int(two) == observation_size(2) == layout(2).size


@pytest.mark.parametrize("n", [2, 3, 8])
def test_the_spaces_have_the_layouts_size_and_bounds(n):
    lay = layout(n)
    raw = skyjo_env.raw_env(num_players=n)
    box = raw.observation_space("player_0")["observation"]
    assert box.shape == (lay.size,) and np.array_equal(box.low, lay.low) and np.array_equal(box.high, lay.high)
    assert raw.action_space("player_0").n == 26
    assert skyjo_env.gym_env.SkyjoEnv(num_players=n).observation_space.shape == (lay.size,)


def test_size_formula_counts_seat_pieces_per_player():
    declared = (
        Piece("board", (N, 3, 2), "per seat"),
        Piece("flag", (1,), "a flag"),
        Piece("cards", (4, 5), "a table"),
        Piece("turn", (N,), "per seat"),
    )
    assert size_terms(declared) == (7, 21)
    assert size_formula(declared) == "7 N + 21"
    assert Layout.of(declared, 3).size == 7 * 3 + 21


@pytest.mark.parametrize(
    ("declared", "message"),
    [
        ((Piece("a", (1,), ""), Piece("a", (2,), "")), "'a' is declared twice"),
        ((Piece("a", (3, N), ""),), "N may only be its first dimension"),
        ((Piece("a", (N, N), ""),), "N may only be its first dimension"),
        ((Piece("a", (0,), ""),), "a dimension must be a positive int or N, got 0"),
        ((Piece("a", (2.5,), ""),), "a dimension must be a positive int or N, got 2.5"),
        ((Piece("a", (), ""),), "empty shape"),
        ((Piece("a", (1,), "", low=1.0, high=1.0),), "low 1.0 is not below high 1.0"),
    ],
)
def test_pieces_that_make_no_layout_are_refused(declared, message):
    with pytest.raises(LayoutError, match=message):
        Layout.of(declared, 2)


@pytest.mark.parametrize("n", [1, 9])
def test_an_impossible_table_size_is_refused(n):
    for make in (pieces, layout, observation_size, PyEncoder):
        with pytest.raises(ValueError, match=f"2 to 8 players, got {n}"):
            make(n)


def moved_to_the_end(name: str) -> tuple[Piece, ...]:
    return tuple(p for p in PIECES if p.name != name) + tuple(p for p in PIECES if p.name == name)


@pytest.mark.parametrize("name", ["totals", "discard_value"])
def test_the_python_encoder_refuses_a_layout_that_splits_a_block_it_writes(name, monkeypatch):
    monkeypatch.setattr(skyjo_env.observation.pyencoder, "layout", lambda n: Layout.of(moved_to_the_end(name), n))
    with pytest.raises(LayoutError, match=f"PyEncoder writes .* but '{name}' does not follow"):
        PyEncoder(2)


@needs_c
def test_the_c_encoder_refuses_a_layout_with_a_piece_it_does_not_write(monkeypatch):
    declared = (*PIECES, Piece("new_piece", (N,), "a piece added to PIECES only"))
    monkeypatch.setattr(skyjo_env.observation.cencoder, "layout", lambda n: Layout.of(declared, n))
    with pytest.raises(LayoutError, match=r"adds \['new_piece'\]: change _cencode.c and _C_PIECES"):
        CEncoder(2)


def test_the_observation_code_validates_with_exceptions_not_asserts():
    """`python -O` strips asserts; a layout check must survive it."""
    package = Path(skyjo_env.observation.__file__).parent
    for path in sorted(package.glob("*.py")):
        tree = ast.parse(path.read_text(), filename=str(path))
        asserts = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Assert)]
        assert not asserts, f"{path.name}: assert on lines {asserts}"


@pytest.mark.parametrize("encoder_class", [PyEncoder, CEncoder])
def test_each_encoder_writes_every_declared_piece(encoder_class):
    """A piece added to PIECES but not written by an encoder stays zero: over whole games, each is not."""
    if encoder_class is CEncoder and _cencode is None:
        pytest.skip("the C extension is not built (test_the_c_encoder_is_built_and_is_the_default says why)")
    n = 3
    encoder = encoder_class(n)
    written = dict.fromkeys(layout(n).offsets, False)
    rng = np.random.default_rng(7)
    for seed in range(2):
        state = new_game(Rules(num_players=n), seed=seed)
        while True:
            for name, part in decode(encode_state(state, int(rng.integers(n)), encoder), n).items():
                written[name] = written[name] or bool(np.any(part))
            if state.is_finished:
                break
            legal = legal_actions(state)
            apply_action(state, legal[int(rng.integers(len(legal)))])
    assert [name for name, seen in written.items() if not seen] == []


def test_views_are_named_windows_into_one_vector():
    lay = layout(3)
    vector = np.zeros(lay.size, dtype=np.float32)
    parts = views(vector, 3)
    assert list(parts) == [name for name, _ in pieces(3)]
    assert {name: part.shape for name, part in parts.items()} == dict(pieces(3))
    parts["final_lap"][0] = 1.0
    parts["grids"][2, 11, 16] = 1.0
    assert vector[lay.offsets["final_lap"][0]] == 1.0
    assert vector[lay.offsets["grids"][1] - 1] == 1.0  # the last code of the last slot of the last seat
    assert vector.sum() == 2.0
    with pytest.raises(TypeError, match="needs a numpy array"):
        views(vector.tolist(), 3)
    with pytest.raises(ValueError, match="has shape"):
        views(vector[:-1], 3)
    assert decode(vector.tolist(), 3)["final_lap"][0] == 1.0  # decode takes any array-like


def test_decode_splits_the_vector_into_named_pieces():
    state = new_game(Rules(num_players=3), seed=4)
    for _ in range(20):
        apply_action(state, legal_actions(state)[0])
    parts = decode(encode(seat_view(state, 1)), 3)
    assert [k for k in parts] == [name for name, _ in pieces(3)]
    assert parts["grids"].shape == (3, 12, 17)
    assert np.all(parts["grids"].sum(axis=2) == 1)  # one code per slot
    mine = parts["grids"][0]
    for slot in range(12):
        code = int(mine[slot].argmax())
        status = state.status[1][slot]
        assert code == (state.values[1][slot] + 2 if status == 1 else 15 + status // 2)
    assert parts["to_play"].argmax() == (state.current_player - 1) % 3
    assert parts["totals"].tolist() == [t / 100 for t in state.totals[1:] + state.totals[:1]]
    view = seat_view(state, 1)
    from agents.counting import expected_unseen

    mean = expected_unseen(view)
    assert parts["unseen_mean"][0] == pytest.approx(mean / 12, rel=1e-5)
    for rel in range(3):
        for slot in range(12):
            st = view.grid_status[rel][slot]
            expected = view.grid_values[rel][slot] / 12 if st == 1 else (mean / 12 if st == 0 else 0.0)
            assert parts["slot_values"][rel, slot] == pytest.approx(expected, rel=1e-5)
    held = 0.0 if state.held_card is None else state.held_card / 12
    assert parts["held_value"][0] == pytest.approx(held)
    assert parts["discard_value"][0] == pytest.approx((state.discard_top or 0) / 12)
    with pytest.raises(ValueError, match="has shape"):
        decode(np.zeros(5), 3)


def test_observation_is_within_the_declared_bounds():
    state = new_game(Rules(num_players=4), seed=1)
    lay = layout(4)
    while not state.is_finished:
        for seat in range(4):
            obs = encode_state(state, seat)
            assert obs.dtype == np.float32 and np.all(obs >= lay.low) and np.all(obs <= lay.high)
        apply_action(state, legal_actions(state)[len(state.discard_pile) % len(legal_actions(state))])


@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 8), seed=st.integers(0, 2**31), steps=st.integers(0, 300))
def test_no_leak_hidden_cards_and_draw_order_do_not_change_any_observation(n, seed, steps):
    state = new_game(Rules(num_players=n), seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if state.is_finished:
            break
        legal = legal_actions(state)
        apply_action(state, legal[int(rng.integers(len(legal)))])
    twin = shuffle_hidden_information(state, rng)
    for seat in range(n):
        assert np.array_equal(encode_state(state, seat), encode_state(twin, seat))
        assert np.array_equal(encode(seat_view(state, seat)), encode_state(state, seat))
        assert seat_view(state, seat) == seat_view(twin, seat)


@settings(max_examples=30, deadline=None)
@given(n=st.integers(2, 5), seed=st.integers(0, 2**31), picks=st.lists(st.integers(0, 2**31), max_size=40))
def test_an_encoder_that_remembers_gives_the_vector_of_a_fresh_one(n, seed, picks):
    """One long-lived PyEncoder fed states of two games, views and seats in any order."""
    games = [new_game(Rules(num_players=n), seed=seed), new_game(Rules(num_players=n), seed=seed + 1)]
    rng = np.random.default_rng(seed)
    encoder = PyEncoder(n)
    for pick in picks:
        game = games[pick % 2]
        for _ in range(pick % 7):  # a few random legal moves between two observations
            if game.is_finished:
                break
            legal = legal_actions(game)
            apply_action(game, legal[int(rng.integers(len(legal)))])
        seat = (pick >> 3) % n
        if pick & 4:
            view = seat_view(game, seat)
            assert np.array_equal(encode(view, encoder), encode(view, PyEncoder(n)))
        else:
            assert np.array_equal(encode_state(game, seat, encoder), encode_state(game, seat, PyEncoder(n)))


@pytest.mark.parametrize("encoder_class", [PyEncoder, CEncoder])
def test_an_encoder_returns_a_new_array_each_time_and_copies_without_its_memory(encoder_class):
    if encoder_class is CEncoder and _cencode is None:
        pytest.skip("the C extension is not built (test_the_c_encoder_is_built_and_is_the_default says why)")
    state = new_game(Rules(num_players=3), seed=5)
    Encoder = encoder_class
    encoder = Encoder(3)
    first = encode_state(state, 1, encoder)
    first[:] = 7.0  # the caller owns the array
    assert np.array_equal(encode_state(state, 1, encoder), encode_state(state, 1, Encoder(3)))
    clone = pickle.loads(pickle.dumps(encoder))
    assert np.array_equal(encode_state(state, 2, clone), encode_state(state, 2, encoder))
    with pytest.raises(ValueError, match="made for 2 players; the game has 3"):
        encode_state(state, 0, Encoder(2))


def test_the_c_encoder_is_built_and_is_the_default():
    if os.environ.get("SKYJO_PURE_PYTHON"):
        assert Encoder is PyEncoder
        pytest.skip("SKYJO_PURE_PYTHON is set: the pure-Python encoder is in use")
    assert _cencode is not None, (
        "skyjo_env._cencode was not built: install a C compiler and reinstall (pip install -e .), "
        "or set SKYJO_PURE_PYTHON=1 to run on the pure-Python encoder"
    )
    assert Encoder is CEncoder


def test_skyjo_pure_python_selects_the_python_encoder():
    code = "import skyjo_env.observation as o; print(o.Encoder.__name__)"
    out = subprocess.run(
        [sys.executable, "-c", code], env={**os.environ, "SKYJO_PURE_PYTHON": "1"}, capture_output=True, text=True
    )
    assert out.stdout.strip() == "PyEncoder", out.stderr


@needs_c
@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 8), seed=st.integers(0, 2**31), steps=st.integers(0, 400))
def test_the_c_encoder_writes_the_python_encoders_vector_bit_for_bit(n, seed, steps):
    """Every seat, as a state and as a seat view, at every point of a random game."""
    game = new_game(Rules(num_players=n), seed=seed)
    rng = np.random.default_rng(seed)
    c, py = CEncoder(n), PyEncoder(n)
    for _ in range(steps):
        for seat in range(n):
            assert encode_state(game, seat, c).tobytes() == encode_state(game, seat, py).tobytes()
            view = seat_view(game, seat)
            assert encode(view, c).tobytes() == encode(view, py).tobytes()
        if game.is_finished:
            break
        legal = legal_actions(game)
        apply_action(game, legal[int(rng.integers(len(legal)))])


@needs_c
@pytest.mark.parametrize(
    ("change", "error", "message"),
    [
        (lambda a: a.update(observer=2), ValueError, "observer is 2"),
        (lambda a: a["grid_values"][0].__setitem__(0, 13), ValueError, "a face-up card is 13"),
        (lambda a: a["grid_status"][1].__setitem__(3, 7), ValueError, "a slot status is 7"),
        (lambda a: a["grid_values"].pop(), ValueError, "one entry per seat"),
        (lambda a: a["grid_status"][0].pop(), ValueError, "a grid needs 12 slots"),
        (lambda a: a.update(held_card=-3), ValueError, "held_card is -3"),
        (lambda a: a.update(discard_pile=[5, "x"]), TypeError, "a discarded card must be an int"),
        (lambda a: a.update(totals=7), TypeError, "totals must be a sequence"),
        (lambda a: a.update(draw_pile_size=151), ValueError, "draw_pile_size is 151"),
    ],
)
def test_the_c_encoder_refuses_bad_input_instead_of_writing_out_of_bounds(change, error, message):
    args = {
        "observer": 0,
        "grid_values": [[1] * 12, [2] * 12],
        "grid_status": [[1] * 12, [0] * 12],
        "discard_pile": [5],
        "held_card": None,
        "held_from": 0,
        "phase": 1,
        "to_play": 0,
        "draw_pile_size": 100,
        "round_ender": None,
        "totals": [0, 0],
    }
    assert CEncoder(2).encode(**args).shape == (observation_size(2),)
    change(args)
    with pytest.raises(error, match=message):
        CEncoder(2).encode(**args)


@needs_c
@pytest.mark.parametrize("n", [1, 9])
def test_a_c_encoder_for_an_impossible_table_is_refused(n):
    with pytest.raises(ValueError, match=f"2 to 8 players, got {n}"):
        CEncoder(n)
