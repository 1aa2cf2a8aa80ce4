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
"""

from __future__ import annotations

from collections.abc import Sequence

from agents.counting import unseen_counts
from skyjo_env.engine.actions import DRAW, REVEAL_FIRST, TAKE_DISCARD
from skyjo_env.engine.cards import CARD_VALUES, MIN_VALUE
from skyjo_env.engine.state import FACE_UP, HIDDEN, REMOVED, Phase
from skyjo_env.engine.view import SeatView

_COLUMNS = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (9, 10, 11)]


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
        if view.phase == Phase.SETUP_REVEAL:
            return self._setup_reveal(view, legal_actions)
        ctx = _Context(view, self)
        if view.phase == Phase.CHOOSE_SOURCE:
            take = -1e9
            if TAKE_DISCARD in legal_actions:
                take = max(ctx.place_value(s, view.discard_top) for s in ctx.present)
            draw = ctx.draw_value() if DRAW in legal_actions else -1e9
            return TAKE_DISCARD if take >= draw else DRAW
        card = view.held_card
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


class _Context:
    """Quantities shared by the evaluation of every action in one decision."""

    def __init__(self, view: SeatView, bot: ExpertBot) -> None:
        self.view = view
        self.bot = bot
        counts = unseen_counts(view)
        total = max(1, sum(counts))
        self.p = [c / total for c in counts]
        self.mean = sum(pv * v for pv, v in zip(self.p, CARD_VALUES))
        self.values = list(view.grid_values[0])
        self.status = list(view.grid_status[0])
        self.present = [s for s in range(12) if self.status[s] != REMOVED]
        self.hidden = sum(1 for s in self.status if s == HIDDEN)
        self.final_lap = view.round_ender is not None
        horizon = 1 if self.final_lap else bot.pair_horizon
        self.q = [1.0 - (1.0 - pv) ** horizon for pv in self.p]
        self.my_hand = self._hand(self.values, self.status)
        n = view.num_players
        self.opponents = []  # expected final hands of the others
        for rel in range(1, n):
            vals, st = view.grid_values[rel], view.grid_status[rel]
            hand = sum(v for v, s in zip(vals, st) if s == FACE_UP) + self.mean * sum(1 for s in st if s == HIDDEN)
            self.opponents.append(hand)
        self.best_opponent = min(self.opponents)
        lead = self.best_opponent - self.my_hand
        self.tempo_per_card = 0.0 if self.final_lap else bot.tempo * max(-1.0, min(1.0, lead / 10.0))
        self.credit_before = [self._column_credit(self.values, self.status, c) for c in _COLUMNS]
        self._gift_cache: dict[int, float] = {}

    # expected hand of a grid: face-up values + mean for face-down
    def _hand(self, values: list[int], status: list[int]) -> float:
        return sum(v for v, s in zip(values, status) if s == FACE_UP) + self.mean * sum(
            1 for s in status if s == HIDDEN
        )

    def _column_credit(self, values: list[int], status: list[int], column: tuple[int, int, int]) -> float:
        a, b, c = column
        sa, sb, sc = status[a], status[b], status[c]
        if sa == REMOVED:
            return 0.0
        up = [values[s] for s, st in ((a, sa), (b, sb), (c, sc)) if st == FACE_UP]
        if len(up) < 2:
            return 0.0
        for i in range(len(up)):
            for j in range(i + 1, len(up)):
                if up[i] == up[j]:
                    pair = up[i]
                    third = sum(up) - 2 * pair if len(up) == 3 else self.mean
                    return self.bot.pair_credit * self.q[pair - MIN_VALUE] * (2 * pair + third)
        return 0.0

    def gift(self, card: int) -> float:
        """What `card` on the discard pile is worth to the next player (its best placement)."""
        if card in self._gift_cache:
            return self._gift_cache[card]
        vals, st = self.view.grid_values[1], self.view.grid_status[1]
        best = 0.0
        for column in _COLUMNS:
            for s in column:
                if st[s] == REMOVED:
                    break
                old = vals[s] if st[s] == FACE_UP else self.mean
                gain = old - card
                others = [o for o in column if o != s]
                if all(st[o] == FACE_UP and vals[o] == card for o in others):
                    gain = old + 2 * card
                best = max(best, gain)
        value = self.bot.gift * best
        self._gift_cache[card] = value
        return value

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
        values, status = self.values, self.status
        old_status, old_value = status[slot], values[slot]
        old = old_value if old_status == FACE_UP else self.mean
        column = _COLUMNS[slot // 3]
        others = [o for o in column if o != slot]
        clears = all(status[o] == FACE_UP and values[o] == card for o in others)
        reduction = old + 2 * card if clears else old - card
        values[slot], status[slot] = card, FACE_UP
        credit_after = 0.0 if clears else self._column_credit(values, status, column)
        values[slot], status[slot] = old_value, old_status
        value = reduction + credit_after - self.credit_before[slot // 3]
        if old_status == HIDDEN:
            value += self._reveal_consequences(self.my_hand - reduction)
        elif old_status == FACE_UP:
            value -= self.gift(old_value)
        return value

    def reveal_value(self, slot: int) -> float:
        """Turn `slot` after discarding the drawn card (the card's gift is charged by the caller)."""
        values, status = self.values, self.status
        column = _COLUMNS[slot // 3]
        others = [o for o in column if o != slot]
        expected = 0.0
        credit_after = 0.0
        if all(status[o] == FACE_UP for o in others) and values[others[0]] == values[others[1]]:
            pair = values[others[0]]
            expected = 3 * pair * self.p[pair - MIN_VALUE]
        else:
            old_value = values[slot]
            for pv, x in zip(self.p, CARD_VALUES):
                if pv:
                    values[slot], status[slot] = x, FACE_UP
                    credit_after += pv * self._column_credit(values, status, column)
            values[slot], status[slot] = old_value, HIDDEN
        value = expected + credit_after - self.credit_before[slot // 3]
        return value + self._reveal_consequences(self.my_hand - expected)

    def _reveal_consequences(self, hand_after: float) -> float:
        """Tempo of one more face-up card, and the doubling risk if it is the last."""
        value = self.tempo_per_card
        if self.hidden == 1 and not self.final_lap:
            value += self._going_out(hand_after)
        return value

    def draw_value(self) -> float:
        hidden_slots = [s for s in self.present if self.status[s] == HIDDEN]
        reveal = max((self.reveal_value(s) for s in hidden_slots), default=None)
        total = 0.0
        for pv, x in zip(self.p, CARD_VALUES):
            if pv:
                best = max(self.place_value(s, x) for s in self.present)
                if reveal is not None:
                    best = max(best, reveal - self.gift(x))
                total += pv * best
        return total
