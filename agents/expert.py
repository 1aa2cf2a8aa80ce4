"""`expert`: card counting, column building and end-of-round judgement, tuned by measurement.

Every legal action is scored by what it does to the bot's **expected hand** (face-up
cards plus the expected value of each face-down card, from counting every card seen
against the 150-card deck), plus:

- column credit: two equal face-up cards in a column are worth a share of the points a
  clear would remove, by the chance of meeting the third card soon (negative for
  pairs of negative cards, whose clearing costs points);
- tempo: turning a card brings the round end closer, which is good when ahead and bad
  when behind (lead = lowest expected opponent hand - own expected hand);
- going out: ending the round with a positive score that is not clearly the lowest
  risks doubling; the expected extra points are charged;
- gifts: a card put on the discard pile that the next player would happily take
  costs a share of what it is worth to them.

Drawing is valued as the expectation, over the unseen-card distribution, of the best
thing to do with the drawn card. Setup: turn two cards of the same column.

This module's Python code is the bot; `agents/_cexpert.c` is a line-for-line port of it, the same
arithmetic in the same order, that plays the same move much faster (`skyjo bench expert`): `act`
asks it where the extension was built (not with `SKYJO_PURE_PYTHON=1`), `act_python` asks the
Python code. The tests compare the two at every decision of random games.
"""

from __future__ import annotations

import os
import struct
from collections.abc import Sequence
from typing import cast

from agents.counting import unseen_counts
from skyjo_env.engine.actions import DRAW, NUM_COLUMNS, NUM_ROWS, REVEAL_FIRST, TAKE_DISCARD
from skyjo_env.engine.cards import CARD_COUNTS, CARD_VALUES, MIN_VALUE
from skyjo_env.engine.state import FACE_UP, HIDDEN, REMOVED, Phase
from skyjo_env.engine.view import SeatView

_COLUMNS = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (9, 10, 11)]

try:  # the same moves, much faster (agents/_cexpert.c); optional, as the C encoder is
    import agents._cexpert as _cexpert
except ImportError:  # installed without a C compiler: the Python code below plays
    _cexpert = None
if os.environ.get("SKYJO_PURE_PYTHON"):  # as for the observation encoder: the Python code plays
    _cexpert = None
if _cexpert is not None:
    # _cexpert.c reads slot s as row s % 3 of column s // 3, as _COLUMNS does
    if [tuple(range(NUM_ROWS * c, NUM_ROWS * (c + 1))) for c in range(NUM_COLUMNS)] != _COLUMNS or NUM_ROWS != 3:
        raise RuntimeError("agents/_cexpert.c assumes 4 columns of 3 slots, slot = 3 * column + row")
    _cexpert.configure(
        MIN_VALUE,
        [CARD_COUNTS[v] for v in CARD_VALUES],
        HIDDEN,
        FACE_UP,
        REMOVED,
        int(Phase.SETUP_REVEAL),
        int(Phase.CHOOSE_SOURCE),
        DRAW,
        TAKE_DISCARD,
        REVEAL_FIRST,
    )


class ExpertBot:
    """Card counting, column building and end-of-round judgement (see module docstring)."""

    name = "expert"

    def __init__(
        self,
        pair_credit: float = 0.5,
        pair_horizon: int = 6,
        tempo: float = 0.6,
        gift: float = 0.3,
        doubling_margin: float = 4.0,
        opponent_turn_gain: float = 2.0,
        seed: int | None = None,
    ) -> None:
        self.pair_credit = pair_credit
        self.pair_horizon = pair_horizon
        self.tempo = tempo
        self.gift = gift
        self.doubling_margin = doubling_margin
        self.opponent_turn_gain = opponent_turn_gain

    def reset(self, seed: int | None = None) -> None:
        pass

    # ----------------------------------------------------------------- API
    def act(self, view: SeatView, legal_actions: Sequence[int]) -> int:
        if _cexpert is not None:
            action = c_move(self, view, legal_actions)
            if action >= 0:
                return int(action)
            # -1: the view shows more cards of a value than the deck holds; the Python code raises
        return self.act_python(view, legal_actions)

    def act_python(self, view: SeatView, legal_actions: Sequence[int]) -> int:
        """The move of this module's Python code: what `act` plays where the C extension was not built
        (the C code, a port of this one, plays the same move: the tests compare them)."""
        if view.phase == Phase.SETUP_REVEAL:
            return self._setup_reveal(view, legal_actions)
        ctx = _Context(view, self)
        if view.phase == Phase.CHOOSE_SOURCE:
            take = -1e9
            if TAKE_DISCARD in legal_actions:
                top = cast(int, view.discard_top)  # the discard can be taken: there is one
                take = max(ctx.place_value(s, top) for s in ctx.distinct_slots)
            draw = ctx.draw_value() if DRAW in legal_actions else -1e9
            return TAKE_DISCARD if take >= draw else DRAW
        card = cast(int, view.held_card)  # holding a card in the phases left
        best_action, best_value = legal_actions[0], -1e18
        for action in legal_actions:
            if action < REVEAL_FIRST:
                value = ctx.place_value(action, card)
            else:
                value = ctx.reveal_value(action - REVEAL_FIRST) - ctx.gift(card)
            if value > best_value:
                best_action, best_value = action, value
        return best_action

    def _setup_reveal(self, view: SeatView, legal_actions: Sequence[int]) -> int:
        status = view.grid_status[0]
        for column in _COLUMNS:
            up = [s for s in column if status[s] == FACE_UP]
            down = [s for s in column if status[s] == HIDDEN]
            if up and down:
                return REVEAL_FIRST + down[0]
        return legal_actions[0]


def c_move(bot: ExpertBot, view: SeatView, legal_actions: Sequence[int]) -> int:
    """The C code's answer for `bot` (`_cexpert` must be built): its move, or -1 for a view it cannot
    play (more cards of a value than the deck holds), where `act` lets the Python code raise."""
    assert _cexpert is not None
    return int(
        _cexpert.act(
            _parameters(bot),
            view.phase,
            view.grid_values,
            view.grid_status,
            view.discard_pile,
            view.held_card,
            view.round_ender,
            legal_actions,
        )
    )


def _parameters(bot: ExpertBot) -> bytes:
    """The bot's parameters as `_cexpert.act` reads them (read at each move: they may be changed)."""
    return struct.pack(
        "6d", bot.pair_credit, bot.pair_horizon, bot.tempo, bot.gift, bot.doubling_margin, bot.opponent_turn_gain
    )


class _Context:
    """Quantities shared by the evaluation of every action in one decision (precomputed per slot)."""

    def __init__(self, view: SeatView, bot: ExpertBot) -> None:
        self.view = view
        self.bot = bot
        counts = unseen_counts(view)
        total = max(1, sum(counts))
        self.p = [c / total for c in counts]
        mean = 0.0  # summed left to right (sum() of floats rounds otherwise from Python 3.12 on), as _cexpert.c does
        for pv, v in zip(self.p, CARD_VALUES):
            mean += pv * v
        self.mean = mean
        values = self.values = list(view.grid_values[0])
        status = self.status = list(view.grid_status[0])
        self.present = [s for s in range(12) if status[s] != REMOVED]
        self.hidden = sum(1 for s in status if s == HIDDEN)
        self.final_lap = view.round_ender is not None
        horizon = 1 if self.final_lap else bot.pair_horizon
        self.credit_weight = [bot.pair_credit * (1.0 - (1.0 - pv) ** horizon) for pv in self.p]
        self.my_hand = sum(v for v, s in zip(values, status) if s == FACE_UP) + mean * self.hidden
        self.opponents = []  # expected final hands of the others
        for rel in range(1, view.num_players):
            vals, st = view.grid_values[rel], view.grid_status[rel]
            hand = sum(v for v, s in zip(vals, st) if s == FACE_UP) + mean * sum(1 for s in st if s == HIDDEN)
            self.opponents.append(hand)
        self.best_opponent = min(self.opponents)
        lead = self.best_opponent - self.my_hand
        self.tempo_per_card = 0.0 if self.final_lap else bot.tempo * max(-1.0, min(1.0, lead / 10.0))
        # Per slot: its expected value now, and the face-up values of the two other cards of its column.
        self.old = [values[s] if status[s] == FACE_UP else mean for s in range(12)]
        self.others_up: list[list[int]] = [[] for _ in range(12)]
        for column in _COLUMNS:
            for s in column:
                self.others_up[s] = [values[o] for o in column if o != s and status[o] == FACE_UP]
        self.credit_before = [self._credit([values[s] for s in c if status[s] == FACE_UP]) for c in _COLUMNS]
        self._prepare_gifts(view)
        # Per slot: the credit its column has now, and what placing over it costs besides the card:
        # the gift of the face-up card it gives up (0 for a face-down one, whose reveal is charged instead).
        self.slot_credit = [self.credit_before[s // 3] for s in range(12)]
        self.slot_gift = [self.gift(values[s]) if status[s] == FACE_UP else 0.0 for s in range(12)]
        # The consequences of turning a card are a constant unless it would be the last one (going out).
        self.last_reveal = self.hidden == 1 and not self.final_lap
        # One slot of each kind: slots alike in everything `place_value` reads give every card the same
        # value, so the best value of placing a card is the best over these (face-down slots of empty
        # columns are all alike, for one).
        kinds: dict[tuple, int] = {}
        for s in self.present:
            key = (self.old[s], tuple(self.others_up[s]), self.slot_credit[s], status[s], self.slot_gift[s])
            kinds.setdefault(key, s)
        self.distinct_slots = list(kinds.values())

    def _credit(self, up: list[int]) -> float:
        """Column credit from the face-up values of a column (the rest face-down)."""
        if len(up) < 2:
            return 0.0
        if len(up) == 2:
            if up[0] != up[1]:
                return 0.0
            pair, third = up[0], self.mean
        else:
            a, b, c = up
            if a == b:
                pair, third = a, c
            elif a == c:
                pair, third = a, b
            elif b == c:
                pair, third = b, a
            else:
                return 0.0
        return self.credit_weight[pair - MIN_VALUE] * (2 * pair + third)

    def _prepare_gifts(self, view: SeatView) -> None:
        """What each card on the discard pile is worth to the next player (its best placement)."""
        vals, st = view.grid_values[1], view.grid_status[1]
        olds = [vals[s] if st[s] == FACE_UP else self.mean for s in range(12) if st[s] != REMOVED]
        self.gift_max_old = max(olds, default=None)
        self.gift_clear: dict[int, float] = {}  # card -> gain of completing a column with it
        for column in _COLUMNS:
            if st[column[0]] == REMOVED:
                continue
            for s in column:
                a, b = (o for o in column if o != s)
                if st[a] == FACE_UP and st[b] == FACE_UP and vals[a] == vals[b]:
                    card = vals[a]
                    old = vals[s] if st[s] == FACE_UP else self.mean
                    self.gift_clear[card] = max(self.gift_clear.get(card, -1e9), old + 2 * card)

    def gift(self, card: int) -> float:
        if self.gift_max_old is None:
            return 0.0
        best = max(0.0, self.gift_max_old - card, self.gift_clear.get(card, 0.0))
        return self.bot.gift * best

    def _going_out(self, final_hand: float) -> float:
        """Value adjustment for ending the round with an (expected) final hand."""
        if final_hand <= 0:
            return 0.0
        turn_gain = 0.0 if self.final_lap else self.bot.opponent_turn_gain
        rival = self.best_opponent - turn_gain
        margin = rival - final_hand  # > 0: strictly lowest by that much
        if margin >= self.bot.doubling_margin:
            return 0.0
        risk = min(1.0, max(0.0, (self.bot.doubling_margin - margin) / (2 * self.bot.doubling_margin)))
        return -risk * final_hand

    # ------------------------------------------------------------ actions
    def place_value(self, slot: int, card: int) -> float:
        # `_credit([*others, card])` written out for the 0, 1 or 2 face-up others: the same arithmetic, in
        # the same order (so the same floats), without building a list per call (the hot path of draw_value).
        others = self.others_up[slot]
        old = self.old[slot]
        k = len(others)
        if k == 2:
            a, b = others
            if a == card and b == card:  # completes the column
                reduction = old + 2 * card
                value = reduction - self.slot_credit[slot]
            else:
                reduction = old - card
                if a == b:
                    credit = self.credit_weight[a - MIN_VALUE] * (2 * a + card)
                elif a == card:
                    credit = self.credit_weight[a - MIN_VALUE] * (2 * a + b)
                elif b == card:
                    credit = self.credit_weight[b - MIN_VALUE] * (2 * b + a)
                else:
                    credit = 0.0
                value = reduction + credit - self.slot_credit[slot]
        else:
            reduction = old - card
            if k == 1 and others[0] == card:
                credit = self.credit_weight[card - MIN_VALUE] * (2 * card + self.mean)
            else:
                credit = 0.0
            value = reduction + credit - self.slot_credit[slot]
        status = self.status[slot]
        if status == HIDDEN:
            value += self._reveal_consequences(self.my_hand - reduction)
        elif status == FACE_UP:
            value -= self.slot_gift[slot]
        return value

    def reveal_value(self, slot: int) -> float:
        """Turn `slot` after discarding the drawn card (the card's gift is charged by the caller)."""
        others = self.others_up[slot]
        expected = 0.0
        credit_after = 0.0
        if len(others) == 2 and others[0] == others[1]:
            pair = others[0]
            expected = 3 * pair * self.p[pair - MIN_VALUE]
        else:
            # The expected credit over the unseen cards x: only an x equal to a face-up other makes a
            # pair, so only those terms are added (in the order of CARD_VALUES, as a full sum would:
            # adding the zero terms changes no float).
            for x in sorted(set(others)):
                pv = self.p[x - MIN_VALUE]
                if pv:
                    credit_after += pv * self._credit([*others, x])
        value = expected + credit_after - self.credit_before[slot // 3]
        return value + self._reveal_consequences(self.my_hand - expected)

    def _reveal_consequences(self, hand_after: float) -> float:
        """Tempo of one more face-up card, and the doubling risk if it is the last."""
        value = self.tempo_per_card
        if self.last_reveal:
            value += self._going_out(hand_after)
        return value

    def draw_value(self) -> float:
        hidden_slots = [s for s in self.present if self.status[s] == HIDDEN]
        reveal = max((self.reveal_value(s) for s in hidden_slots), default=None)
        total = 0.0
        place_value, slots = self.place_value, self.distinct_slots
        for pv, x in zip(self.p, CARD_VALUES):
            if pv:
                best = max([place_value(s, x) for s in slots])
                if reveal is not None:
                    best = max(best, reveal - self.gift(x))
                total += pv * best
        return total
