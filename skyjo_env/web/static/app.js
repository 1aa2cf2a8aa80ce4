// Skyjo in the browser. The server is the judge: this page sends action numbers (0-25, the engine's
// encoding) and draws the frames it gets back. It never sees a face-down card.
"use strict";

// The action numbers, from the server (GET /api/options: the engine's encoding) before anything is drawn.
let DRAW = null;
let TAKE = null;
let REVEAL = null;

const ui = {
  options: null,
  mode: "setup", // setup | game | replay
  gameId: null,
  leftGameId: null, // the game left for the setup form: the next new game ends it ("replaces")
  replayId: null,
  replaySteps: 0,
  replayShown: 0, // the step on screen
  replayTarget: 0, // the step asked for
  frame: null,
  busy: false,
  revealMode: false, // holding a drawn card, chose to discard it: now pick the card to turn
  hintOn: false,
  hint: null, // {step, probabilities} for the current decision
  speed: 700,
  flash: null, // {seat, slot} of the last move
  review: null, // the round under review: {round, moves, ...} as the server sends it
  reviewReturn: null, // while a reviewed move is on the table: {mode, frame} to go back to
};

// ------------------------------------------------------------------ helpers
const $ = (id) => document.getElementById(id);

function el(tag, attrs = {}, children = []) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(node.dataset, value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of [].concat(children)) {
    if (child !== null && child !== undefined) node.append(child);
  }
  return node;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function slotName(slot) {
  return ui.options.slot_names[slot]; // the server's names, as its move texts write them
}

function playerTitle(frame, seat) {
  const p = frame.players[seat];
  return seat === frame.you ? "You" : `${p.name} (${p.agent})`;
}

function valueClass(v) {
  if (v < 0) return "neg";
  if (v === 0) return "zero";
  if (v <= 4) return "low";
  if (v <= 8) return "mid";
  return "high";
}

function showError(message) {
  const box = $("error");
  box.textContent = message;
  box.hidden = false;
  clearTimeout(showError.timer);
  showError.timer = setTimeout(() => { box.hidden = true; }, 6000);
}

async function api(method, path, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = typeof body === "string" ? body : JSON.stringify(body);
  }
  const response = await fetch(path, init);
  const text = await response.text();
  let payload = null;
  try { payload = text ? JSON.parse(text) : null; } catch (e) { payload = { error: text }; }
  if (!response.ok) {
    const error = new Error((payload && payload.error) || `${response.status} ${response.statusText}`);
    error.status = response.status;
    throw error;
  }
  return payload;
}

function setUi(state) {
  document.body.dataset.ui = state;
}

// ------------------------------------------------------------------- setup
async function loadOptions() {
  ui.options = await api("GET", "/api/options");
  ({ draw: DRAW, take_discard: TAKE, reveal_first: REVEAL } = ui.options.actions);
  const players = $("num-players");
  for (let n = ui.options.min_players; n <= ui.options.max_players; n++) {
    players.append(el("option", { value: n, text: String(n) }));
  }
  players.value = "2";
  players.addEventListener("change", buildSeatChoices);
  const rules = $("rule-choices");
  for (const option of ui.options.rules) {
    const id = `rule-${option.name}`;
    let input;
    if (option.kind === "choice") {
      input = el("select", { id }, option.choices.map((c) => el("option", { value: c, text: c, selected: c === option.default })));
    } else if (option.kind === "bool") {
      input = el("input", { id, type: "checkbox", checked: option.default });
    } else {
      input = el("input", { id, type: "number", min: 1, step: 1, value: option.default ?? "", placeholder: option.nullable ? "none" : "" });
    }
    input.dataset.rule = option.name;
    input.dataset.kind = option.kind;
    rules.append(el("label", { title: option.help }, [option.name.replaceAll("_", " ") + " ", input]));
  }
  buildSeatChoices();
}

function buildSeatChoices() {
  const n = Number($("num-players").value);
  const seat = $("your-seat");
  const keep = Math.min(Number(seat.value || 0), n - 1);
  seat.replaceChildren(...Array.from({ length: n }, (_, s) => el("option", { value: s, text: s === 0 ? "0 (first)" : String(s) })));
  seat.value = String(keep);
  const box = $("opponent-choices");
  const previous = Array.from(box.querySelectorAll("select")).map((s) => s.value);
  box.replaceChildren();
  for (let k = 0; k < n - 1; k++) {
    const select = el("select", { class: "opponent", "aria-label": `Opponent ${k + 1}` });
    for (const agent of ui.options.agents) {
      const wrongSize = agent.players !== null && !agent.players.includes(n);
      const note = agent.error ? " (unavailable)" : wrongSize ? ` (${agent.players.join(", ")} players only)` : "";
      select.append(el("option", { value: agent.id, text: agent.id + note, disabled: Boolean(agent.error) || wrongSize, title: agent.error || agent.summary }));
    }
    const wanted = previous[k] || "expert";
    const usable = Array.from(select.options).find((o) => o.value === wanted && !o.disabled)
      || Array.from(select.options).find((o) => !o.disabled);
    if (usable) select.value = usable.value;
    box.append(el("label", {}, [`Opponent ${k + 1} `, select]));
  }
}

function readSetup() {
  const rules = {};
  for (const input of $("rule-choices").querySelectorAll("[data-rule]")) {
    const kind = input.dataset.kind;
    if (kind === "bool") rules[input.dataset.rule] = input.checked;
    else if (kind === "int") rules[input.dataset.rule] = input.value === "" ? null : Number(input.value);
    else rules[input.dataset.rule] = input.value;
  }
  const body = {
    opponents: Array.from($("opponent-choices").querySelectorAll("select")).map((s) => s.value),
    rules,
    seat: Number($("your-seat").value),
  };
  if ($("seed").value !== "") body.seed = Number($("seed").value);
  if (ui.leftGameId) body.replaces = ui.leftGameId;
  return body;
}

function showSetup() {
  closeReview();
  ui.mode = "setup";
  if (ui.gameId) ui.leftGameId = ui.gameId;
  ui.gameId = null;
  ui.replayId = null;
  history.replaceState(null, "", location.pathname);
  $("overlay").hidden = true;
  $("setup").hidden = false;
  $("table").hidden = true;
  $("side").hidden = true;
  $("download").disabled = true;
  setUi("setup");
  showHistory();
}

// The finished games of this server's database: wins and mean round score per table and opponents.
async function showHistory() {
  let payload;
  try {
    payload = await api("GET", "/api/history");
  } catch (e) {
    $("history-note").textContent = `The history is not available: ${e.message}`;
    return;
  }
  const rows = payload.groups.map((g) => el("tr", {}, [
    el("td", { text: String(g.players) }),
    el("td", { text: g.opponents }),
    el("td", { text: String(g.games) }),
    el("td", { text: String(g.wins) }),
    el("td", { text: g.games ? `${Math.round((100 * g.wins) / g.games)}%` : "–" }),
    el("td", { text: g.mean_round_score === null ? "–" : g.mean_round_score.toFixed(1) }),
    el("td", { text: String(g.unfinished) }),
  ]));
  $("history-table").querySelector("tbody").replaceChildren(...rows);
  $("history-table").hidden = rows.length === 0;
  const where = payload.kept ? "" : " This server keeps nothing once it stops (--db :memory:).";
  $("history-note").textContent = (rows.length ? "Your finished games, by table." : "No game played to the end yet.") + where;
}

async function startGame(event) {
  event.preventDefault();
  if (ui.busy) return;
  ui.busy = true;
  $("start").disabled = true;
  try {
    const payload = await api("POST", "/api/games", readSetup());
    enterGame(payload.id);
    $("log").replaceChildren();
    const before = payload.events.length ? payload.events[0].frame : payload.frame;
    draw(payload.events.length ? before : payload.frame);
    await playEvents(payload.events, false);
  } catch (e) {
    showError(e.message);
  } finally {
    ui.busy = false;
    $("start").disabled = false;
    if (ui.mode === "game") settle();
  }
}

function enterGame(id) {
  closeReview();
  ui.mode = "game";
  ui.gameId = id;
  ui.leftGameId = null;
  ui.replayId = null;
  ui.hint = null;
  ui.revealMode = false;
  ui.flash = null;
  history.replaceState(null, "", `#game=${id}`);
  $("setup").hidden = true;
  $("table").hidden = false;
  $("side").hidden = false;
  $("replay-bar").hidden = true;
  $("keys").hidden = false;
  $("download").disabled = false;
}

// -------------------------------------------------------------------- play
async function act(action) {
  if (ui.busy || ui.mode !== "game" || !ui.frame || !ui.frame.legal.includes(action)) return;
  ui.busy = true;
  ui.revealMode = false;
  ui.hint = null;
  setUi("busy");
  try {
    const payload = await api("POST", `/api/games/${ui.gameId}/actions`, { action, step: ui.frame.step });
    await playEvents(payload.events, true);
  } catch (e) {
    showError(e.message);
    if (e.status === 404) { showSetup(); return; }
    try { const payload = await api("GET", `/api/games/${ui.gameId}`); draw(payload.frame); } catch (ignored) { /* shown above */ }
  } finally {
    ui.busy = false;
    if (ui.mode === "game") settle();
  }
}

// Show events one by one: the human's own at once, each opponent move after a pause.
async function playEvents(events, firstIsMine) {
  for (let i = 0; i < events.length; i++) {
    const event = events[i];
    const mine = event.seat === event.frame.you;
    if (!(firstIsMine && i === 0) && !mine && ui.speed > 0) {
      setUi("busy");
      markActor(event.seat);
      await sleep(ui.speed);
    }
    ui.flash = event.action < DRAW ? { seat: event.seat, slot: event.action % REVEAL } : null;
    draw(event.frame);
    appendLog(event);
    if (event.round_over) await showRoundOver(event.round_over, event.frame);
  }
}

// After the events: whose turn, the hint, the end of the game.
function settle() {
  const frame = ui.frame;
  if (!frame) return;
  draw(frame);
  if (frame.finished) {
    if (frame.truncated) showTruncated();
    setUi("game-over");
  } else if (frame.your_turn) {
    setUi("your-turn");
    if (ui.hintOn) fetchHint();
  } else {
    setUi("waiting");
  }
}

function markActor(seat) {
  for (const panel of document.querySelectorAll(".player")) {
    panel.classList.toggle("active", Number(panel.dataset.seat) === seat);
  }
  const frame = ui.frame;
  if (frame) setBanner(`${playerTitle(frame, seat)} is playing…`, "theirs");
}

// ------------------------------------------------------------------- hints
async function fetchHint() {
  const frame = ui.frame;
  if (!frame || !frame.your_turn || ui.mode !== "game") return;
  const status = $("hint-status");
  if (!ui.hint) {
    status.textContent = "Hint: asking the model… (the first time it loads, which can take a few seconds)";
    status.className = "available";
    status.hidden = false;
  }
  try {
    const hint = await api("GET", `/api/games/${ui.gameId}/hint`);
    if (!ui.frame || hint.step !== ui.frame.step) return;
    if (!hint.available) {
      ui.hint = null;
      status.textContent = `Hint unavailable: ${hint.reason}`;
      status.className = "unavailable";
      status.hidden = false;
    } else {
      ui.hint = hint;
      status.textContent = `Hint: ${hint.model}'s probability of each of your moves is written on the cards.`;
      status.className = "available";
      status.hidden = false;
    }
    draw(ui.frame);
  } catch (e) {
    showError(e.message);
  }
}

function toggleHint() {
  ui.hintOn = !ui.hintOn;
  $("hint").textContent = `Hint: ${ui.hintOn ? "on" : "off"}`;
  $("hint").setAttribute("aria-pressed", String(ui.hintOn));
  if (!ui.hintOn) {
    ui.hint = null;
    $("hint-status").hidden = true;
    if (ui.frame) draw(ui.frame);
  } else if (ui.frame && ui.frame.your_turn && !ui.busy) {
    fetchHint();
  }
}

function percent(p) {
  if (p === undefined) return null;
  return p < 0.005 ? "<1%" : `${Math.round(p * 100)}%`;
}

// -------------------------------------------------------------------- draw
function cardNode(card, opts = {}) {
  const classes = ["card", card.status];
  if (opts.size) classes.push(opts.size);
  if (card.status === "up") classes.push(valueClass(card.value));
  if (opts.flash) classes.push("flash");
  const label = card.status === "up" ? String(card.value) : "";
  const aria = card.status === "up" ? `${card.value}` : card.status === "down" ? "face-down card" : "empty slot";
  if (!opts.button) {
    return el("div", { class: classes.join(" "), "aria-label": aria }, el("span", { class: "value", text: label }));
  }
  const node = el("button", {
    type: "button",
    class: classes.concat(opts.legal ? ["legal"] : []).join(" "),
    disabled: !opts.legal,
    "aria-label": `${aria} at ${slotName(opts.slot)}`,
    dataset: { slot: opts.slot },
    onclick: () => clickSlot(opts.slot),
  }, el("span", { class: "value", text: label }));
  for (const badge of opts.badges || []) node.append(badge);
  return node;
}

function slotTargets(frame, slot) {
  // What clicking this slot of your grid does now: an action, or null.
  const legal = frame.legal;
  if (frame.phase === "setup_reveal") return legal.includes(REVEAL + slot) ? REVEAL + slot : null;
  if (frame.phase === "holding_drawn" && ui.revealMode) return legal.includes(REVEAL + slot) ? REVEAL + slot : null;
  if (frame.phase === "holding_drawn" || frame.phase === "holding_discard") return legal.includes(slot) ? slot : null;
  return null;
}

function badge(kind, p, best, title, prefix = "") {
  const faint = p < 0.05 && p !== best ? " faint" : "";
  return el("span", { class: `badge ${kind}${p === best ? " best" : ""}${faint}`, title, text: `${prefix}${percent(p)}` });
}

function bestProbability() {
  return ui.hint ? Math.max(...Object.values(ui.hint.probabilities)) : null;
}

function hintBadges(slot) {
  if (!ui.hint) return [];
  const probabilities = ui.hint.probabilities;
  const best = bestProbability();
  const badges = [];
  const place = probabilities[String(slot)];
  const reveal = probabilities[String(REVEAL + slot)];
  if (place !== undefined) badges.push(badge("place", place, best, "swap the card in hand here", "⇄ "));
  if (reveal !== undefined) badges.push(badge("reveal", reveal, best, "turn this card face-up", "↻ "));
  return badges;
}

function gridNode(frame, seat, size) {
  const player = frame.players[seat];
  const mine = seat === frame.you && ui.mode === "game";
  const grid = el("div", { class: `grid ${size}` });
  player.cards.forEach((card, slot) => {
    const flash = ui.flash && ui.flash.seat === seat && ui.flash.slot === slot;
    if (mine) {
      const action = frame.your_turn && !ui.busy ? slotTargets(frame, slot) : null;
      grid.append(cardNode(card, { size, button: true, legal: action !== null, slot, flash, badges: frame.your_turn ? hintBadges(slot) : [] }));
    } else {
      grid.append(cardNode(card, { size, flash }));
    }
  });
  return grid;
}

function playerPanel(frame, seat, size) {
  const player = frame.players[seat];
  const active = frame.to_play === seat;
  const tags = [];
  if (active) tags.push(el("span", { class: "tag turn", text: seat === frame.you ? "▶ your turn" : "▶ playing" }));
  if (frame.round_ender === seat) tags.push(el("span", { class: "tag ender", text: "ended the round" }));
  if (frame.winners.includes(seat)) tags.push(el("span", { class: "tag winner", text: "★ winner" }));
  const head = el("div", { class: "player-head" }, [
    el("span", { class: "player-name", text: seat === frame.you ? "You" : player.name }),
    seat === frame.you ? null : el("span", { class: "agent", text: player.agent }),
    ...tags,
    el("span", { class: "score", text: `showing ${player.visible_score} · total ${player.total}` }),
  ]);
  return el("section", {
    class: `player${active ? " active" : ""}${seat === frame.you ? " mine" : ""}`,
    dataset: { seat },
    "aria-label": seat === frame.you ? "Your grid" : `${player.name}'s grid`,
  }, [head, gridNode(frame, seat, size)]);
}

function draw(frame) {
  ui.frame = frame;
  const n = frame.num_players;
  const others = [];
  for (let k = 1; k < n; k++) others.push((frame.you + k) % n);
  const size = n <= 3 ? "medium" : "small";
  $("opponents").replaceChildren(...others.map((seat) => playerPanel(frame, seat, size)));
  $("me").replaceChildren(playerPanel(frame, frame.you, "big"));
  drawPiles(frame);
  drawBanner(frame);
  drawScores(frame);
}

function drawPiles(frame) {
  const myTurn = frame.your_turn && !ui.busy && ui.mode === "game";
  const probabilities = ui.hint && frame.your_turn ? ui.hint.probabilities : null;
  const drawPile = $("draw-pile");
  drawPile.classList.remove("best-move", "played-move");  // a review's outline goes with the frame it was drawn on
  drawPile.disabled = !(myTurn && frame.legal.includes(DRAW));
  drawPile.classList.toggle("legal", !drawPile.disabled);
  drawPile.replaceChildren(el("span", { class: "value", text: "" }));
  if (probabilities && probabilities[DRAW] !== undefined) drawPile.append(badge("place", probabilities[DRAW], bestProbability(), "draw"));
  $("draw-count").textContent = `${frame.draw_count} cards`;

  const discard = $("discard-pile");
  const top = frame.discard_top;
  discard.className = `card big ${top === null ? "removed" : `up ${valueClass(top)}`}`;
  discard.replaceChildren(el("span", { class: "value", text: top === null ? "" : String(top) }));
  const canTake = myTurn && frame.legal.includes(TAKE);
  const canDiscard = myTurn && frame.phase === "holding_drawn";
  discard.disabled = !(canTake || canDiscard);
  discard.classList.toggle("legal", !discard.disabled);
  discard.classList.toggle("selected", ui.revealMode);
  if (probabilities) {
    let p;
    if (frame.phase === "choose_source") p = probabilities[TAKE];
    else if (frame.phase === "holding_drawn") {
      p = 0;
      for (let s = 0; s < 12; s++) p += probabilities[String(REVEAL + s)] || 0;
    }
    if (p !== undefined) discard.append(badge("reveal", p, bestProbability(), frame.phase === "choose_source" ? "take the discard" : "discard the drawn card and turn one of yours (all such moves together)"));
  }
  $("discard-count").textContent = `${frame.discard_count} card${frame.discard_count === 1 ? "" : "s"}`;

  const held = $("held");
  const hand = frame.held;
  if (hand) {
    held.className = `card big up ${valueClass(hand.card)}`;
    held.replaceChildren(el("span", { class: "value", text: String(hand.card) }));
    const who = frame.to_play === frame.you ? "You hold" : `${frame.players[frame.to_play].name} holds`;
    $("hand-label").textContent = `${who} (${hand.from === "draw" ? "drawn" : "from the discard"})`;
  } else {
    held.className = "card big empty";
    held.replaceChildren();
    $("hand-label").textContent = "In hand";
  }
  const button = $("discard-drawn");
  button.hidden = !canDiscard;
  button.textContent = ui.revealMode ? "Keep the card (Esc)" : "Discard it & turn a card";
}

function setBanner(text, whose) {
  const banner = $("banner");
  banner.textContent = text;
  banner.className = whose;
}

function drawBanner(frame) {
  if (ui.mode === "replay") {
    const where = frame.finished ? "the end of the game" : `${playerTitle(frame, frame.to_play)} to play`;
    setBanner(`Replay from your seat: ${where} (face-down cards stay hidden until the round ends)`, "replay");
    return;
  }
  if (frame.finished) {
    setBanner(frame.truncated ? "The game stopped at the turn limit." : winnerText(frame), "over");
    return;
  }
  let text;
  if (!frame.your_turn) {
    text = `${playerTitle(frame, frame.to_play)} is playing…`;
  } else if (frame.phase === "setup_reveal") {
    const up = frame.players[frame.you].cards.filter((c) => c.status === "up").length;
    text = `Your turn: click ${up === 0 ? "two of your cards" : "one more card"} to turn face-up.`;
  } else if (frame.phase === "choose_source") {
    text = `Your turn: draw from the pile (D), or take the ${frame.discard_top} from the discard pile (T).`;
  } else if (frame.phase === "holding_drawn") {
    text = ui.revealMode
      ? `Click a face-down card to turn it; the ${frame.held.card} goes to the discard pile. (Esc: keep it)`
      : `You drew a ${frame.held.card}: click one of your cards to swap it in, or discard it (X) and turn a face-down card.`;
  } else {
    text = `You took the ${frame.held.card}: click one of your cards to swap it in.`;
  }
  if (frame.round_ender !== null) text = `Final lap: ${playerTitle(frame, frame.round_ender)} turned every card. ` + text;
  setBanner(text, frame.your_turn ? "yours" : "theirs");
}

function winnerText(frame) {
  if (!frame.game_over) return "";
  const best = Math.min(...frame.players.map((p) => p.total));
  const names = frame.winners.map((s) => (s === frame.you ? "You" : frame.players[s].name));
  if (names.length === 1 && names[0] === "You") return `You win with ${best} points!`;
  return `${names.join(" and ")} win${names.length === 1 ? "s" : ""} with ${best} points.`;
}

function drawScores(frame) {
  const head = el("tr", {}, [el("th", { text: "" }), ...frame.round_history.map((_, r) => el("th", { text: `R${r + 1}` })), el("th", { text: "Total" })]);
  const rows = frame.players.map((p) => el("tr", { class: frame.to_play === p.seat ? "active" : "" }, [
    el("th", { text: p.seat === frame.you ? "You" : p.name }),
    ...frame.round_history.map((r) => el("td", { text: String(r[p.seat]) })),
    el("td", { class: "total", text: String(p.total) }),
  ]));
  $("scores").replaceChildren(el("thead", {}, head), el("tbody", {}, rows));
}

function appendLog(event) {
  const log = $("log");
  for (const text of event.texts) {
    log.append(el("li", { class: event.seat === ui.frame.you ? "mine" : "", text, dataset: { step: event.step } }));
  }
  log.scrollTop = log.scrollHeight;
}

function showLog(entries) {
  $("log").replaceChildren();
  for (const entry of entries) appendLog(entry);
}

// ------------------------------------------------------------------ review
const SVG = "http://www.w3.org/2000/svg";
const GRADE_COLOURS = { fine: "#7aa98a", inaccuracy: "#e0b030", mistake: "#c0392b" };

function reviewBase() {
  const replay = (ui.reviewReturn ? ui.reviewReturn.mode : ui.mode) === "replay";
  return replay ? `/api/replays/${ui.replayId}` : `/api/games/${ui.gameId}`;
}

async function openReview() {
  if (!ui.gameId && !ui.replayId) return;
  try {
    const about = await api("GET", `${reviewBase()}/review`);
    if (!about.rounds.length) {
      showError("A round can be reviewed once it is over: finish this one first.");
      return;
    }
    const select = $("review-round");
    select.replaceChildren(...about.rounds.map((r) => el("option", { value: String(r), text: `${r + 1}` })));
    select.value = String(about.rounds[about.rounds.length - 1]);
    const t = about.thresholds;
    $("review-legend").textContent = `Expected round points each move lost against the best one the search found (${about.budget.worlds} sampled worlds, never the real face-down cards): fine below ${t.inaccuracy} or within two standard errors of 0, inaccuracy from ${t.inaccuracy}, mistake from ${t.mistake}.`;
    $("review-panel").hidden = false;
    await loadReview(Number(select.value));
  } catch (e) {
    showError(e.message);
  }
}

async function loadReview(round) {
  $("review-status").textContent = `Analysing round ${round + 1}…`;
  $("review-moves").replaceChildren();
  $("review-chart").replaceChildren();
  try {
    const review = await api("GET", `${reviewBase()}/review/${round}`);
    ui.review = review;
    const count = (g) => review.moves.filter((m) => m.grade === g).length;
    $("review-status").textContent = `Round ${round + 1}: ${review.moves.length} decisions, ${review.lost.toFixed(1)} points lost (${count("mistake")} mistakes, ${count("inaccuracy")} inaccuracies).`;
    drawReviewChart(review);
    $("review-moves").replaceChildren(...review.moves.map((m, i) => el("li", {
      class: `grade-${m.grade}`,
      dataset: { index: i },
      text: `move ${m.step + 1}: ${m.played_text}${m.best === m.played ? "" : `; best ${m.best_text}`} — ${lostText(m)}`,
      onclick: () => showReviewMove(i),
    })));
    markLog(review);
  } catch (e) {
    $("review-status").textContent = "";
    showError(e.message);
  }
}

function lostText(m) {
  return m.cost === 0 ? "best" : `−${m.cost.toFixed(1)} ± ${m.error.toFixed(1)} (${m.grade})`;
}

function drawReviewChart(review) {
  const chart = $("review-chart");
  const width = 300, height = 90, top = 10;
  const most = Math.max(review.thresholds.mistake * 2, ...review.moves.map((m) => m.cost));
  const y = (v) => height - (height - top) * (v / most);
  const bar = width / Math.max(1, review.moves.length);
  const nodes = review.moves.map((m, i) => {
    const rect = document.createElementNS(SVG, "rect");
    rect.setAttribute("x", String(i * bar + 0.5));
    rect.setAttribute("y", String(y(m.cost)));
    rect.setAttribute("width", String(Math.max(1, bar - 1)));
    rect.setAttribute("height", String(height - y(m.cost)));
    rect.setAttribute("fill", GRADE_COLOURS[m.grade]);
    rect.setAttribute("class", `bar grade-${m.grade}`);
    rect.addEventListener("click", () => showReviewMove(i));
    const title = document.createElementNS(SVG, "title");
    title.textContent = `move ${m.step + 1}: ${lostText(m)}`;
    rect.append(title);
    return rect;
  });
  for (const [value, name] of [[review.thresholds.inaccuracy, "inaccuracy"], [review.thresholds.mistake, "mistake"]]) {
    const line = document.createElementNS(SVG, "line");
    line.setAttribute("x1", "0");
    line.setAttribute("x2", String(width));
    line.setAttribute("y1", String(y(value)));
    line.setAttribute("y2", String(y(value)));
    line.setAttribute("stroke", GRADE_COLOURS[name]);
    line.setAttribute("stroke-dasharray", "4 3");
    nodes.push(line);
  }
  chart.replaceChildren(...nodes);
}

function markLog(review) {
  for (const m of review.moves) {
    for (const li of document.querySelectorAll(`#log li[data-step="${m.step + 1}"]`)) {
      li.classList.remove("review-fine", "review-inaccuracy", "review-mistake");
      li.classList.add(`review-${m.grade}`);
      li.dataset.lost = m.cost === 0 ? "" : `−${m.cost.toFixed(1)}`;
      li.title = `${lostText(m)}; best: ${m.best_text}`;
    }
  }
}

function outlineAction(action, kind) {
  let node = null;
  if (action === DRAW) node = $("draw-pile");
  else if (action === TAKE) node = $("discard-pile");
  else node = document.querySelector(`#me .grid > :nth-child(${(action % REVEAL) + 1})`);
  if (node) node.classList.add(kind);
}

function showReviewMove(index) {
  const m = ui.review.moves[index];
  if (!ui.reviewReturn) ui.reviewReturn = { mode: ui.mode, frame: ui.frame };
  ui.mode = "review";
  ui.flash = null;
  draw(m.frame);
  outlineAction(m.best, "best-move");
  if (m.played !== m.best) outlineAction(m.played, "played-move");
  const verdict = m.best === m.played
    ? "the best move the search found (outlined in green)"
    : `the search prefers ${m.best_text} (outlined in green); yours cost ${m.cost.toFixed(1)} ± ${m.error.toFixed(1)} points, ${m.grade === "fine" ? "too little to tell from noise" : `a${m.grade === "inaccuracy" ? "n" : ""} ${m.grade}`}`;
  setBanner(`Review, move ${m.step + 1}: you played ${m.played_text}${m.best === m.played ? "" : " (dashed)"} — ${verdict}.`, "review");
  for (const li of document.querySelectorAll("#review-moves li")) li.classList.toggle("shown", Number(li.dataset.index) === index);
  $("review-back").hidden = false;
  setUi("review");
}

function backFromReview() {
  const back = ui.reviewReturn;
  if (!back) return;
  ui.reviewReturn = null;
  ui.mode = back.mode;
  $("review-back").hidden = true;
  for (const li of document.querySelectorAll("#review-moves li")) li.classList.remove("shown");
  draw(back.frame);
  if (ui.mode === "game") settle();
  else setUi(ui.mode);
}

function closeReview() {
  if (ui.reviewReturn) backFromReview();
  ui.review = null;
  $("review-panel").hidden = true;
}

// --------------------------------------------------------------- round end
function showRoundOver(result, frame) {
  const names = frame.players.map((p) => (p.seat === frame.you ? "You" : `${p.name} (${p.agent})`));
  $("round-title").textContent = `Round ${result.round + 1} is over`;
  const ender = result.ender === null ? "Nobody" : names[result.ender];
  $("round-note").textContent = `${ender} turned the last card. Every card is now face-up.`;
  const rows = result.grids.map((values, seat) => {
    const cleared = result.cleared[String(seat)] || [];
    const grid = el("div", { class: "grid small" }, values.map((v, slot) => {
      if (v === null) {
        const late = cleared.includes(Math.floor(slot / 3));
        return el("div", { class: `card removed small${late ? " cleared" : ""}`, title: late ? "column cleared" : "cleared earlier" }, el("span", { class: "value", text: late ? "✕" : "" }));
      }
      return el("div", { class: `card up small ${valueClass(v)}` }, el("span", { class: "value", text: String(v) }));
    }));
    const raw = result.raw_scores[seat];
    const score = result.scores[seat];
    const doubled = result.ender_doubled && seat === result.ender;
    const scoreText = doubled ? `${raw} × 2 = ${score} (doubled: not strictly lowest)` : String(score);
    return el("div", { class: `round-row${seat === result.ender ? " ender" : ""}` }, [
      el("div", { class: "round-name", text: names[seat] + (seat === result.ender ? " · ended the round" : "") }),
      grid,
      el("div", { class: "round-score" }, [
        el("div", { text: `round: ${scoreText}` }),
        cleared.length ? el("div", { class: "cleared-note", text: `column${cleared.length > 1 ? "s" : ""} ${cleared.map((c) => c + 1).join(", ")} cleared` }) : null,
        el("div", { class: "total", text: `total: ${result.totals[seat]}` }),
      ]),
    ]);
  });
  $("round-grids").replaceChildren(...rows);
  const winner = $("winner");
  winner.hidden = !frame.game_over;
  winner.textContent = frame.game_over ? `Game over. ${winnerText(frame)}` : "";
  const button = $("round-continue");
  button.textContent = frame.game_over ? (ui.mode === "replay" ? "Close" : "Close and look at the table") : "Next round";
  $("overlay").hidden = false;
  setUi(frame.game_over && ui.mode === "game" ? "game-over" : "round-over");
  button.focus();
  return new Promise((resolve) => {
    const close = () => {
      button.removeEventListener("click", close);
      $("overlay").hidden = true;
      resolve();
    };
    button.addEventListener("click", close);
  });
}

function showTruncated() {
  $("round-title").textContent = "The game stopped";
  $("round-note").textContent = "The round reached the turn limit (max_turns_per_round): it is not scored and the game ends here.";
  $("round-grids").replaceChildren();
  $("winner").hidden = true;
  $("round-continue").textContent = "Close";
  $("overlay").hidden = false;
  $("round-continue").addEventListener("click", () => { $("overlay").hidden = true; }, { once: true });
}

// ------------------------------------------------------------------- clicks
function clickSlot(slot) {
  const frame = ui.frame;
  if (!frame || !frame.your_turn) return;
  const action = slotTargets(frame, slot);
  if (action !== null) act(action);
}

function clickDiscard() {
  const frame = ui.frame;
  if (!frame || !frame.your_turn || ui.busy) return;
  if (frame.phase === "choose_source") act(TAKE);
  else if (frame.phase === "holding_drawn") toggleRevealMode();
}

function toggleRevealMode() {
  if (!ui.frame || ui.frame.phase !== "holding_drawn" || ui.busy) return;
  ui.revealMode = !ui.revealMode;
  draw(ui.frame);
  const first = document.querySelector("#me .card.legal");
  if (first) first.focus();
}

// ----------------------------------------------------------------- records
async function downloadRecord() {
  if (!ui.gameId) return;
  try {
    if (ui.frame && !ui.frame.finished
        && !window.confirm("The record holds the game's seed, which fixes every card, face-down ones too. Download it now anyway?")) {
      return;
    }
    const record = await api("GET", `/api/games/${ui.gameId}/record`);
    const blob = new Blob([JSON.stringify(record, null, 1)], { type: "application/json" });
    const link = el("a", { href: URL.createObjectURL(blob), download: `skyjo-seed${record.seed}-step${record.actions.length}.json` });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(link.href), 1000);
  } catch (e) {
    showError(e.message);
  }
}

async function loadRecord(event) {
  const file = event.target.files[0];
  event.target.value = "";
  if (!file) return;
  try {
    const payload = await api("POST", "/api/replays", await file.text());
    closeReview();
    ui.mode = "replay";
    ui.replayId = payload.id;
    ui.gameId = null;
    ui.replaySteps = payload.steps;
    ui.replayTarget = 0;
    ui.hint = null;
    ui.revealMode = false;
    history.replaceState(null, "", location.pathname);
    $("setup").hidden = true;
    $("table").hidden = false;
    $("side").hidden = false;
    $("replay-bar").hidden = false;
    $("keys").hidden = true;
    $("hint-status").hidden = true;
    $("download").disabled = true;
    $("replay-range").max = String(payload.steps);
    showReplayStep(payload);
  } catch (e) {
    showError(`Could not load the record: ${e.message}`);
  }
}

// Steps asked for while a step is loading are not lost: the last one asked for is shown next.
async function replayTo(k) {
  if (ui.mode !== "replay") return;
  ui.replayTarget = Math.max(0, Math.min(ui.replaySteps, k));
  if (ui.busy) return;
  ui.busy = true;
  try {
    while (ui.mode === "replay" && ui.replayTarget !== ui.replayShown) {
      showReplayStep(await api("GET", `/api/replays/${ui.replayId}/steps/${ui.replayTarget}`));
    }
  } catch (e) {
    ui.replayTarget = ui.replayShown;
    showError(e.message);
  } finally {
    ui.busy = false;
  }
}

function replayBy(delta) {
  replayTo((ui.replayTarget ?? ui.replayShown) + delta);
}

function showReplayStep(payload) {
  const event = payload.event;
  ui.flash = event && event.action < DRAW ? { seat: event.seat, slot: event.action % REVEAL } : null;
  ui.replayShown = payload.step;
  draw(payload.frame);
  showLog(payload.log);
  $("replay-range").value = String(payload.step);
  $("replay-step").textContent = `move ${payload.step} of ${payload.steps}` + (event ? ` — ${event.texts[0]}` : "");
  setUi("replay");
  if (event && event.round_over) showRoundOver(event.round_over, payload.frame).then(() => setUi("replay"));
}

// ---------------------------------------------------------------- keyboard
function moveFocus(dx, dy) {
  const cards = Array.from(document.querySelectorAll("#me .grid button.card"));
  const current = cards.indexOf(document.activeElement);
  const legal = cards.filter((c) => !c.disabled);
  if (!legal.length) return;
  if (current < 0) { legal[0].focus(); return; }
  let col = Math.floor(current / 3);
  let row = current % 3;
  for (let tries = 0; tries < 12; tries++) {
    col = (col + dx + 4) % 4;
    row = (row + dy + 3) % 3;
    if (dx === 0 && dy === 0) break;
    const candidate = cards[col * 3 + row];
    if (candidate && !candidate.disabled) { candidate.focus(); return; }
    if (dx !== 0 && dy === 0 && tries % 4 === 3) row = (row + 1) % 3;
    if (dy !== 0 && dx === 0 && tries % 3 === 2) col = (col + 1) % 4;
  }
}

function onKey(event) {
  if (event.target.tagName === "INPUT" || event.target.tagName === "SELECT" || event.ctrlKey || event.metaKey || event.altKey) return;
  const key = event.key;
  if (!$("overlay").hidden) {
    if (key === "Escape") { $("round-continue").click(); event.preventDefault(); }
    return;
  }
  if (key.toLowerCase() === "r" && (ui.mode === "game" || ui.mode === "replay")) {
    openReview();
    event.preventDefault();
    return;
  }
  if (ui.mode === "review") {
    if (key === "Escape") { backFromReview(); event.preventDefault(); }
    return;
  }
  if (ui.mode === "replay") {
    if (key === "ArrowRight") replayBy(1);
    else if (key === "ArrowLeft") replayBy(-1);
    else if (key === "Home") replayTo(0);
    else if (key === "End") replayTo(ui.replaySteps);
    else return;
    event.preventDefault();
    return;
  }
  if (ui.mode !== "game") return;
  const lower = key.toLowerCase();
  if (lower === "d") act(DRAW);
  else if (lower === "t") act(TAKE);
  else if (lower === "x") toggleRevealMode();
  else if (lower === "h") toggleHint();
  else if (key === "Escape" && ui.revealMode) toggleRevealMode();
  else if (key === "ArrowLeft") moveFocus(-1, 0);
  else if (key === "ArrowRight") moveFocus(1, 0);
  else if (key === "ArrowUp") moveFocus(0, -1);
  else if (key === "ArrowDown") moveFocus(0, 1);
  else return;
  event.preventDefault();
}

// -------------------------------------------------------------------- start
async function resume(id) {
  try {
    const payload = await api("GET", `/api/games/${id}`);
    enterGame(id);
    draw(payload.frame);
    showLog(payload.log);
    settle();
    return true;
  } catch (e) {
    showError(`Game ${id.slice(0, 6)}… is gone (${e.message}); start a new one.`);
    return false;
  }
}

async function main() {
  const saved = Number(localStorage.getItem("skyjo-speed"));
  if (!Number.isNaN(saved) && localStorage.getItem("skyjo-speed") !== null) $("speed").value = String(saved);
  ui.speed = Number($("speed").value);
  $("speed").addEventListener("change", () => {
    ui.speed = Number($("speed").value);
    localStorage.setItem("skyjo-speed", String(ui.speed));
  });
  $("setup-form").addEventListener("submit", startGame);
  $("new-game").addEventListener("click", showSetup);
  $("hint").addEventListener("click", toggleHint);
  $("download").addEventListener("click", downloadRecord);
  $("review").addEventListener("click", openReview);
  $("review-round").addEventListener("change", () => { backFromReview(); loadReview(Number($("review-round").value)); });
  $("review-back").addEventListener("click", backFromReview);
  $("load-record").addEventListener("change", loadRecord);
  $("draw-pile").addEventListener("click", () => act(DRAW));
  $("discard-pile").addEventListener("click", clickDiscard);
  $("discard-drawn").addEventListener("click", toggleRevealMode);
  $("replay-first").addEventListener("click", () => replayTo(0));
  $("replay-prev").addEventListener("click", () => replayBy(-1));
  $("replay-next").addEventListener("click", () => replayBy(1));
  $("replay-last").addEventListener("click", () => replayTo(ui.replaySteps));
  $("replay-range").addEventListener("change", () => replayTo(Number($("replay-range").value)));
  document.addEventListener("keydown", onKey);
  try {
    await loadOptions();
  } catch (e) {
    showError(`The server did not answer: ${e.message}`);
    return;
  }
  const match = location.hash.match(/^#game=([\w-]+)$/);
  if (!(match && await resume(match[1]))) showSetup();
}

main();
