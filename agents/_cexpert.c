/* `expert`'s move in C: the same move as agents/expert.py's Python code, much faster (`skyjo bench
 * expert`: about 10 times the decisions a second in games with `expert` at every seat).
 *
 * agents/expert.py is the one source of truth for the bot: this file is a line-for-line port of
 * `ExpertBot.act` and `_Context`, with the same arithmetic in the same order, so that every float
 * (and so every tie between two moves) comes out the same; the tests compare the two move for move
 * over random play at every table size. It knows no rules of its own: the card values, the deck,
 * the status, phase and action codes come from Python once (`configure`, called by
 * agents/expert.py at import, which also checks the grid's shape assumed here: 4 columns of 3
 * slots, slot = 3 * column + row). Bad input raises ValueError or TypeError; nothing is read out
 * of bounds.
 *
 * act(params, phase, grid_values, grid_status, discard_pile, held_card, round_ender, legal_actions)
 *   -> the action, or -1 where the view shows more cards of a value than the deck holds (the caller
 *   then asks the Python code, which raises the error with its message).
 *   params: the bot's 6 parameters packed as doubles (pair_credit, pair_horizon, tempo, gift,
 *   doubling_margin, opponent_turn_gain); the grids are a SeatView's (relative seats, me first).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>

#define SLOTS 12
#define COLUMNS 4
#define ROWS 3
#define MAX_PLAYERS 16
#define MAX_VALUES 32

/* What `configure` sets: the engine's constants. */
static int configured = 0;
static long MIN_VALUE, NUM_VALUES, HIDDEN, FACE_UP, REMOVED, PH_SETUP, PH_CHOOSE, A_DRAW, A_TAKE, A_REVEAL_FIRST;
static long DECK_COUNTS[MAX_VALUES];

enum { B_PAIR_CREDIT, B_PAIR_HORIZON, B_TEMPO, B_GIFT, B_DOUBLING_MARGIN, B_OPPONENT_TURN_GAIN, B_COUNT };

typedef struct {
    const double *bot;
    double p[MAX_VALUES];
    double mean;
    long values[SLOTS];
    long status[SLOTS];
    int hidden;
    int final_lap;
    double credit_weight[MAX_VALUES];
    double my_hand;
    double best_opponent;
    double tempo_per_card;
    double old[SLOTS];
    int others_n[SLOTS];
    long others[SLOTS][2];
    double credit_before[COLUMNS];
    double slot_credit[SLOTS];
    double slot_gift[SLOTS];
    int last_reveal;
    int has_gift_max_old;
    double gift_max_old;
    int has_clear[MAX_VALUES];
    double gift_clear[MAX_VALUES];
} Context;

/* ------------------------------------------------------------------ input */

static int
as_long(PyObject *o, long *out, const char *what)
{
    if (PyLong_Check(o)) {
        *out = PyLong_AsLong(o);
    } else if (PyIndex_Check(o)) {  /* numpy's integers */
        PyObject *i = PyNumber_Index(o);
        if (i == NULL)
            return -1;
        *out = PyLong_AsLong(i);
        Py_DECREF(i);
    } else {
        PyErr_Format(PyExc_TypeError, "%s must be an int, got %s", what, Py_TYPE(o)->tp_name);
        return -1;
    }
    if (*out == -1 && PyErr_Occurred())
        return -1;
    return 0;
}

/* A grid row of SLOTS ints (a tuple or a list). */
static int
read_row(PyObject *row, long *out, const char *what)
{
    PyObject *seq = PySequence_Fast(row, what);
    if (seq == NULL)
        return -1;
    if (PySequence_Fast_GET_SIZE(seq) != SLOTS) {
        PyErr_Format(PyExc_ValueError, "%s must have %d slots, got %zd", what, SLOTS, PySequence_Fast_GET_SIZE(seq));
        Py_DECREF(seq);
        return -1;
    }
    PyObject **items = PySequence_Fast_ITEMS(seq);
    for (int s = 0; s < SLOTS; s++) {
        if (as_long(items[s], &out[s], what) < 0) {
            Py_DECREF(seq);
            return -1;
        }
    }
    Py_DECREF(seq);
    return 0;
}

static int
check_card(long v, const char *what)
{
    if (v < MIN_VALUE || v >= MIN_VALUE + NUM_VALUES) {
        PyErr_Format(PyExc_ValueError, "%s: %ld is not a card value", what, v);
        return -1;
    }
    return 0;
}

static int
check_status(long s)
{
    if (s != HIDDEN && s != FACE_UP && s != REMOVED) {
        PyErr_Format(PyExc_ValueError, "a slot's status must be %ld, %ld or %ld, got %ld", HIDDEN, FACE_UP, REMOVED, s);
        return -1;
    }
    return 0;
}

/* ---------------------------------------------------------------- context */

/* `_Context._credit`: column credit from the face-up values of a column (n of them). */
static double
credit(const Context *c, const long *up, int n)
{
    long pair;
    double third;
    if (n < 2)
        return 0.0;
    if (n == 2) {
        if (up[0] != up[1])
            return 0.0;
        pair = up[0];
        third = c->mean;
    } else {
        long a = up[0], b = up[1], d = up[2];
        if (a == b) {
            pair = a;
            third = (double)d;
        } else if (a == d) {
            pair = a;
            third = (double)b;
        } else if (b == d) {
            pair = b;
            third = (double)a;
        } else {
            return 0.0;
        }
    }
    return c->credit_weight[pair - MIN_VALUE] * ((double)(2 * pair) + third);
}

/* `_Context.gift`. */
static double
gift(const Context *c, long card)
{
    if (!c->has_gift_max_old)
        return 0.0;
    double best = 0.0;
    double a = c->gift_max_old - (double)card;
    if (a > best)
        best = a;
    double clear = c->has_clear[card - MIN_VALUE] ? c->gift_clear[card - MIN_VALUE] : 0.0;
    if (clear > best)
        best = clear;
    return c->bot[B_GIFT] * best;
}

/* `_Context._prepare_gifts`: what each card is worth to the next player (relative seat 1). */
static void
prepare_gifts(Context *c, const long *vals, const long *st)
{
    c->has_gift_max_old = 0;
    for (int s = 0; s < SLOTS; s++) {
        if (st[s] == REMOVED)
            continue;
        double old = st[s] == FACE_UP ? (double)vals[s] : c->mean;
        if (!c->has_gift_max_old || old > c->gift_max_old) {
            c->gift_max_old = old;
            c->has_gift_max_old = 1;
        }
    }
    for (int v = 0; v < NUM_VALUES; v++)
        c->has_clear[v] = 0;
    for (int col = 0; col < COLUMNS; col++) {
        int first = ROWS * col;
        if (st[first] == REMOVED)
            continue;
        for (int s = first; s < first + ROWS; s++) {
            int o[2], k = 0;
            for (int t = first; t < first + ROWS; t++)
                if (t != s)
                    o[k++] = t;
            if (st[o[0]] == FACE_UP && st[o[1]] == FACE_UP && vals[o[0]] == vals[o[1]]) {
                long card = vals[o[0]];
                double old = st[s] == FACE_UP ? (double)vals[s] : c->mean;
                double value = old + (double)(2 * card);
                int i = (int)(card - MIN_VALUE);
                double was = c->has_clear[i] ? c->gift_clear[i] : -1e9;
                c->gift_clear[i] = value > was ? value : was;
                c->has_clear[i] = 1;
            }
        }
    }
}

/* `_Context.__init__`; returns -1 where a value's count goes below 0. */
static int
build_context(Context *c, const double *bot, int players, long values[][SLOTS], long status[][SLOTS],
              const long *discard, Py_ssize_t discard_n, int has_held, long held, int final_lap)
{
    long counts[MAX_VALUES];
    c->bot = bot;
    for (int v = 0; v < NUM_VALUES; v++)
        counts[v] = DECK_COUNTS[v];
    for (int r = 0; r < players; r++)
        for (int s = 0; s < SLOTS; s++)
            if (status[r][s] == FACE_UP)
                counts[values[r][s] - MIN_VALUE] -= 1;
    for (Py_ssize_t i = 0; i < discard_n; i++)
        counts[discard[i] - MIN_VALUE] -= 1;
    if (has_held)
        counts[held - MIN_VALUE] -= 1;
    long total = 0;
    for (int v = 0; v < NUM_VALUES; v++) {
        if (counts[v] < 0)
            return -1;
        total += counts[v];
    }
    if (total < 1)
        total = 1;
    double mean = 0.0;  /* expert.py's `_mean`: a plain left-to-right sum */
    for (int v = 0; v < NUM_VALUES; v++) {
        c->p[v] = (double)counts[v] / (double)total;
        mean += c->p[v] * (double)(MIN_VALUE + v);
    }
    c->mean = mean;
    const long *my_values = values[0], *my_status = status[0];
    int hidden = 0;
    long up_sum = 0;
    for (int s = 0; s < SLOTS; s++) {
        c->values[s] = my_values[s];
        c->status[s] = my_status[s];
        if (my_status[s] == HIDDEN)
            hidden++;
        else if (my_status[s] == FACE_UP)
            up_sum += my_values[s];
    }
    c->hidden = hidden;
    c->final_lap = final_lap;
    double horizon = final_lap ? 1.0 : bot[B_PAIR_HORIZON];
    for (int v = 0; v < NUM_VALUES; v++)
        c->credit_weight[v] = bot[B_PAIR_CREDIT] * (1.0 - pow(1.0 - c->p[v], horizon));
    c->my_hand = (double)up_sum + mean * (double)hidden;
    for (int r = 1; r < players; r++) {
        long up = 0;
        int down = 0;
        for (int s = 0; s < SLOTS; s++) {
            if (status[r][s] == FACE_UP)
                up += values[r][s];
            else if (status[r][s] == HIDDEN)
                down++;
        }
        double hand = (double)up + mean * (double)down;
        if (r == 1 || hand < c->best_opponent)
            c->best_opponent = hand;
    }
    if (final_lap) {
        c->tempo_per_card = 0.0;
    } else {
        double lead = (c->best_opponent - c->my_hand) / 10.0;
        double clipped = lead < 1.0 ? lead : 1.0;
        clipped = clipped > -1.0 ? clipped : -1.0;
        c->tempo_per_card = bot[B_TEMPO] * clipped;
    }
    for (int s = 0; s < SLOTS; s++) {
        c->old[s] = my_status[s] == FACE_UP ? (double)my_values[s] : mean;
        int first = ROWS * (s / ROWS), k = 0;
        for (int o = first; o < first + ROWS; o++)
            if (o != s && my_status[o] == FACE_UP)
                c->others[s][k++] = my_values[o];
        c->others_n[s] = k;
    }
    for (int col = 0; col < COLUMNS; col++) {
        long up[ROWS];
        int k = 0;
        for (int s = ROWS * col; s < ROWS * (col + 1); s++)
            if (my_status[s] == FACE_UP)
                up[k++] = my_values[s];
        c->credit_before[col] = credit(c, up, k);
    }
    prepare_gifts(c, values[1], status[1]);
    for (int s = 0; s < SLOTS; s++) {
        c->slot_credit[s] = c->credit_before[s / ROWS];
        c->slot_gift[s] = my_status[s] == FACE_UP ? gift(c, my_values[s]) : 0.0;
    }
    c->last_reveal = hidden == 1 && !final_lap;
    return 0;
}

/* ---------------------------------------------------------------- actions */

/* `_Context._going_out`. */
static double
going_out(const Context *c, double final_hand)
{
    if (final_hand <= 0)
        return 0.0;
    double turn_gain = c->final_lap ? 0.0 : c->bot[B_OPPONENT_TURN_GAIN];
    double rival = c->best_opponent - turn_gain;
    double margin = rival - final_hand;
    double dm = c->bot[B_DOUBLING_MARGIN];
    if (margin >= dm)
        return 0.0;
    double risk = (dm - margin) / (2 * dm);
    risk = risk > 0.0 ? risk : 0.0;
    risk = risk < 1.0 ? risk : 1.0;
    return -risk * final_hand;
}

/* `_Context._reveal_consequences`. */
static double
reveal_consequences(const Context *c, double hand_after)
{
    double value = c->tempo_per_card;
    if (c->last_reveal)
        value += going_out(c, hand_after);
    return value;
}

/* `_Context.place_value`. */
static double
place_value(const Context *c, int slot, long card)
{
    const long *others = c->others[slot];
    double old = c->old[slot];
    int k = c->others_n[slot];
    double reduction, value, cr;
    if (k == 2) {
        long a = others[0], b = others[1];
        if (a == card && b == card) {
            reduction = old + (double)(2 * card);
            value = reduction - c->slot_credit[slot];
        } else {
            reduction = old - (double)card;
            if (a == b)
                cr = c->credit_weight[a - MIN_VALUE] * (double)(2 * a + card);
            else if (a == card)
                cr = c->credit_weight[a - MIN_VALUE] * (double)(2 * a + b);
            else if (b == card)
                cr = c->credit_weight[b - MIN_VALUE] * (double)(2 * b + a);
            else
                cr = 0.0;
            value = reduction + cr - c->slot_credit[slot];
        }
    } else {
        reduction = old - (double)card;
        if (k == 1 && others[0] == card)
            cr = c->credit_weight[card - MIN_VALUE] * ((double)(2 * card) + c->mean);
        else
            cr = 0.0;
        value = reduction + cr - c->slot_credit[slot];
    }
    if (c->status[slot] == HIDDEN)
        value += reveal_consequences(c, c->my_hand - reduction);
    else if (c->status[slot] == FACE_UP)
        value -= c->slot_gift[slot];
    return value;
}

/* `_Context.reveal_value`. */
static double
reveal_value(const Context *c, int slot)
{
    const long *others = c->others[slot];
    int k = c->others_n[slot];
    double expected = 0.0, credit_after = 0.0;
    if (k == 2 && others[0] == others[1]) {
        long pair = others[0];
        expected = (double)(3 * pair) * c->p[pair - MIN_VALUE];
    } else {
        /* sorted(set(others)), each x with [*others, x] */
        long xs[2];
        int n = 0;
        for (int i = 0; i < k; i++) {
            if (n == 1 && xs[0] == others[i])
                continue;
            xs[n++] = others[i];
        }
        if (n == 2 && xs[1] < xs[0]) {
            long t = xs[0];
            xs[0] = xs[1];
            xs[1] = t;
        }
        for (int i = 0; i < n; i++) {
            double pv = c->p[xs[i] - MIN_VALUE];
            if (pv != 0.0) {
                long up[ROWS];
                for (int j = 0; j < k; j++)
                    up[j] = others[j];
                up[k] = xs[i];
                credit_after += pv * credit(c, up, k + 1);
            }
        }
    }
    double value = expected + credit_after - c->credit_before[slot / ROWS];
    return value + reveal_consequences(c, c->my_hand - expected);
}

/* The best value of placing `card` over the grid's slots (`max(place_value(s, card) for s in distinct_slots)`:
   slots alike give the same value, so the maximum over every slot present is the same). */
static double
best_place(const Context *c, long card)
{
    double best = 0.0;
    int any = 0;
    for (int s = 0; s < SLOTS; s++) {
        if (c->status[s] == REMOVED)
            continue;
        double v = place_value(c, s, card);
        if (!any || v > best) {
            best = v;
            any = 1;
        }
    }
    return best;
}

/* `_Context.draw_value`. */
static double
draw_value(const Context *c)
{
    double reveal = 0.0;
    int has_reveal = 0;
    for (int s = 0; s < SLOTS; s++) {
        if (c->status[s] != HIDDEN)
            continue;
        double v = reveal_value(c, s);
        if (!has_reveal || v > reveal) {
            reveal = v;
            has_reveal = 1;
        }
    }
    double total = 0.0;
    for (int v = 0; v < NUM_VALUES; v++) {
        double pv = c->p[v];
        if (pv == 0.0)
            continue;
        long x = MIN_VALUE + v;
        double best = best_place(c, x);
        if (has_reveal) {
            double other = reveal - gift(c, x);
            if (other > best)
                best = other;
        }
        total += pv * best;
    }
    return total;
}

/* ------------------------------------------------------------------ entry */

static PyObject *
cexpert_act(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (!configured) {
        PyErr_SetString(PyExc_RuntimeError, "_cexpert.configure was not called");
        return NULL;
    }
    if (nargs != 8) {
        PyErr_Format(PyExc_TypeError, "act takes 8 arguments, got %zd", nargs);
        return NULL;
    }
    PyObject *params = args[0];
    if (!PyBytes_Check(params) || PyBytes_GET_SIZE(params) != (Py_ssize_t)(B_COUNT * sizeof(double))) {
        PyErr_SetString(PyExc_TypeError, "params must be the bot's parameters packed as 6 doubles");
        return NULL;
    }
    const double *bot = (const double *)PyBytes_AS_STRING(params);
    long phase, held = 0, ender = 0;
    if (as_long(args[1], &phase, "phase") < 0)
        return NULL;
    int has_held = args[5] != Py_None, final_lap = args[6] != Py_None;
    if (has_held && (as_long(args[5], &held, "held_card") < 0 || check_card(held, "held_card") < 0))
        return NULL;
    if (final_lap && as_long(args[6], &ender, "round_ender") < 0)
        return NULL;

    PyObject *legal = PySequence_Fast(args[7], "legal_actions must be a sequence");
    if (legal == NULL)
        return NULL;
    Py_ssize_t n_legal = PySequence_Fast_GET_SIZE(legal);
    PyObject *grid_values = NULL, *grid_status = NULL, *discard = NULL, *result = NULL;
    long *discard_cards = NULL;
    long (*values)[SLOTS] = NULL, (*status)[SLOTS] = NULL;
    long actions[64];
    if (n_legal < 1 || n_legal > 64) {
        PyErr_Format(PyExc_ValueError, "expected 1 to 64 legal actions, got %zd", n_legal);
        goto done;
    }
    for (Py_ssize_t i = 0; i < n_legal; i++)
        if (as_long(PySequence_Fast_GET_ITEM(legal, i), &actions[i], "a legal action") < 0)
            goto done;

    grid_values = PySequence_Fast(args[2], "grid_values must be a sequence");
    grid_status = PySequence_Fast(args[3], "grid_status must be a sequence");
    discard = PySequence_Fast(args[4], "discard_pile must be a sequence");
    if (grid_values == NULL || grid_status == NULL || discard == NULL)
        goto done;
    Py_ssize_t players = PySequence_Fast_GET_SIZE(grid_values);
    if (players < 2 || players > MAX_PLAYERS || PySequence_Fast_GET_SIZE(grid_status) != players) {
        PyErr_Format(PyExc_ValueError, "expected 2 to %d grids of values and as many of status, got %zd and %zd",
                     MAX_PLAYERS, players, PySequence_Fast_GET_SIZE(grid_status));
        goto done;
    }
    values = PyMem_Malloc(sizeof(*values) * players);
    status = PyMem_Malloc(sizeof(*status) * players);
    Py_ssize_t discard_n = PySequence_Fast_GET_SIZE(discard);
    discard_cards = PyMem_Malloc(sizeof(long) * (discard_n > 0 ? discard_n : 1));
    if (values == NULL || status == NULL || discard_cards == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t r = 0; r < players; r++) {
        if (read_row(PySequence_Fast_GET_ITEM(grid_values, r), values[r], "a grid of values") < 0 ||
            read_row(PySequence_Fast_GET_ITEM(grid_status, r), status[r], "a grid of status") < 0)
            goto done;
        for (int s = 0; s < SLOTS; s++) {
            if (check_status(status[r][s]) < 0)
                goto done;
            if (status[r][s] == FACE_UP && check_card(values[r][s], "a face-up card") < 0)
                goto done;
        }
    }
    for (Py_ssize_t i = 0; i < discard_n; i++)
        if (as_long(PySequence_Fast_GET_ITEM(discard, i), &discard_cards[i], "a discarded card") < 0 ||
            check_card(discard_cards[i], "a discarded card") < 0)
            goto done;

    long action;
    if (phase == PH_SETUP) {  /* `_setup_reveal` */
        action = actions[0];
        for (int col = 0; col < COLUMNS; col++) {
            int has_up = 0, down = -1;
            for (int s = ROWS * col; s < ROWS * (col + 1); s++) {
                if (status[0][s] == FACE_UP)
                    has_up = 1;
                else if (status[0][s] == HIDDEN && down < 0)
                    down = s;
            }
            if (has_up && down >= 0) {
                action = A_REVEAL_FIRST + down;
                break;
            }
        }
        result = PyLong_FromLong(action);
        goto done;
    }
    Context c;
    if (build_context(&c, bot, (int)players, values, status, discard_cards, discard_n, has_held, held, final_lap) < 0) {
        result = PyLong_FromLong(-1);
        goto done;
    }
    if (phase == PH_CHOOSE) {
        double take = -1e9, draw = -1e9;
        int can_take = 0, can_draw = 0;
        for (Py_ssize_t i = 0; i < n_legal; i++) {
            can_take |= actions[i] == A_TAKE;
            can_draw |= actions[i] == A_DRAW;
        }
        if (can_take) {
            if (discard_n < 1) {
                PyErr_SetString(PyExc_ValueError, "taking the discard is legal but the discard pile is empty");
                goto done;
            }
            take = best_place(&c, discard_cards[discard_n - 1]);
        }
        if (can_draw)
            draw = draw_value(&c);
        result = PyLong_FromLong(take >= draw ? A_TAKE : A_DRAW);
        goto done;
    }
    if (!has_held) {
        PyErr_Format(PyExc_ValueError, "phase %ld holds a card, but held_card is None", phase);
        goto done;
    }
    double best_value = -1e18;
    action = actions[0];
    for (Py_ssize_t i = 0; i < n_legal; i++) {
        long a = actions[i];
        double value;
        if (a < 0 || (a >= SLOTS && a < A_REVEAL_FIRST) || a >= A_REVEAL_FIRST + SLOTS) {
            PyErr_Format(PyExc_ValueError, "%ld is not a move holding a card", a);
            goto done;
        }
        if (a < A_REVEAL_FIRST)
            value = place_value(&c, (int)a, held);
        else
            value = reveal_value(&c, (int)(a - A_REVEAL_FIRST)) - gift(&c, held);
        if (value > best_value) {
            action = a;
            best_value = value;
        }
    }
    result = PyLong_FromLong(action);

done:
    Py_DECREF(legal);
    Py_XDECREF(grid_values);
    Py_XDECREF(grid_status);
    Py_XDECREF(discard);
    PyMem_Free(values);
    PyMem_Free(status);
    PyMem_Free(discard_cards);
    return result;
}

static PyObject *
cexpert_configure(PyObject *module, PyObject *args)
{
    long min_value, hidden, face_up, removed, setup, choose, draw, take, reveal_first;
    PyObject *counts;
    if (!PyArg_ParseTuple(args, "lOllllllll", &min_value, &counts, &hidden, &face_up, &removed, &setup, &choose,
                          &draw, &take, &reveal_first))
        return NULL;
    PyObject *seq = PySequence_Fast(counts, "deck_counts must be a sequence");
    if (seq == NULL)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n < 1 || n > MAX_VALUES) {
        PyErr_Format(PyExc_ValueError, "expected 1 to %d card values, got %zd", MAX_VALUES, n);
        Py_DECREF(seq);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (as_long(PySequence_Fast_GET_ITEM(seq, i), &DECK_COUNTS[i], "a deck count") < 0) {
            Py_DECREF(seq);
            return NULL;
        }
    }
    Py_DECREF(seq);
    MIN_VALUE = min_value;
    NUM_VALUES = n;
    HIDDEN = hidden;
    FACE_UP = face_up;
    REMOVED = removed;
    PH_SETUP = setup;
    PH_CHOOSE = choose;
    A_DRAW = draw;
    A_TAKE = take;
    A_REVEAL_FIRST = reveal_first;
    configured = 1;
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"act", (PyCFunction)(void (*)(void))cexpert_act, METH_FASTCALL, "expert's move (module doc)"},
    {"configure", cexpert_configure, METH_VARARGS,
     "configure(min_value, deck_counts, hidden, face_up, removed, setup_phase, choose_phase, draw, take_discard, "
     "reveal_first): the engine's constants"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_cexpert", "expert's move in C (agents/expert.py)", -1,
                                    methods};

PyMODINIT_FUNC
PyInit__cexpert(void)
{
    return PyModule_Create(&module);
}
