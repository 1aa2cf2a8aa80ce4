"""End to end in a real headless browser: Debian's Chromium, driven by Playwright (the system browser,
never a downloaded one). A 2-player game against `random` is played to the end by clicking (and a few
keys), then its record is downloaded and stepped through. It fails (not skips) under CI=true when
Chromium or Playwright is missing: `.ci/run` installs both.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
STABLE = "body[data-ui=your-turn], body[data-ui=round-over], body[data-ui=game-over]"


def _need(what: str) -> None:
    message = f"{what} is missing: apt-get install chromium chromium-driver; pip install playwright"
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message)


try:
    from playwright.sync_api import expect, sync_playwright
except ImportError:
    expect = sync_playwright = None


def _play_my_turn(page, rng: random.Random, decision: int) -> None:
    """One decision of the human: mostly clicks on the highlighted (legal) targets, every fifth by key."""
    by_key = decision % 5 == 4
    if page.is_enabled("#draw-pile"):  # the start of a turn: draw or take the discard
        take = rng.random() < 0.3
        if by_key:
            page.keyboard.press("t" if take else "d")
        else:
            page.click("#discard-pile" if take else "#draw-pile")
        return
    if page.is_visible("#discard-drawn") and rng.random() < 0.6:  # discard the drawn card, turn a card
        if by_key:
            page.keyboard.press("x")
            page.keyboard.press("ArrowRight")
            page.keyboard.press("Enter")
            return
        page.click("#discard-drawn")
    targets = page.locator("#me button.card.legal")
    count = targets.count()
    assert count > 0, "your turn, but no card of yours is highlighted"
    targets.nth(rng.randrange(count)).click()


def test_a_whole_game_against_random_in_chromium(live_server, tmp_path):
    if sync_playwright is None:
        _need("playwright")
    if not os.path.exists(CHROMIUM):
        _need("chromium")
    shots = Path(os.environ.get("SKYJO_SCREENSHOTS", tmp_path))
    shots.mkdir(parents=True, exist_ok=True)
    errors: list[str] = []
    rng = random.Random(7)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900}, accept_downloads=True)
            page.on("console", lambda m: errors.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(f"page error: {e}"))
            page.goto(live_server + "/")
            page.wait_for_selector("body[data-ui=setup]")
            page.select_option("#num-players", "2")
            page.select_option("#opponent-choices select", "random")
            page.fill("#seed", "18")
            page.select_option("#speed", "0")
            page.click("#start")

            decisions = rounds = 0
            while True:
                page.wait_for_selector(STABLE, timeout=20_000)
                state = page.get_attribute("body", "data-ui")
                if state == "game-over":
                    break
                if state == "round-over":
                    rounds += 1
                    if rounds == 1:
                        page.screenshot(path=str(shots / "round_over.png"))
                    page.click("#round-continue")
                    continue
                if decisions == 12:
                    page.screenshot(path=str(shots / "mid_game.png"))
                _play_my_turn(page, rng, decisions)
                decisions += 1
                assert decisions < 3000, "the game did not end"

            assert rounds >= 1, "seed 18 plays two rounds: the round-end panel was never shown"
            winner = page.locator("#winner")
            assert winner.is_visible()
            assert re.search(r"Game over\. .*wins? with -?\d+ points", winner.inner_text()), winner.inner_text()
            page.screenshot(path=str(shots / "game_over.png"))
            page.click("#round-continue")
            assert "with" in page.inner_text("#banner")

            with page.expect_download() as download:
                page.click("#download")
            record = tmp_path / "record.json"
            download.value.save_as(record)
            page.set_input_files("#load-record", str(record))
            page.wait_for_selector("body[data-ui=replay]")
            assert page.inner_text("#replay-step").startswith("move 0 of ")
            page.keyboard.press("ArrowRight")
            page.keyboard.press("ArrowRight")
            expect(page.locator("#replay-step")).to_have_text(re.compile(r"^move 2 of \d+ — "))
            page.screenshot(path=str(shots / "replay.png"))

            page.click("#new-game")  # the finished game is in the history shown with the new-game form
            page.wait_for_selector("body[data-ui=setup]")
            row = page.locator("#history-table tbody tr").filter(has_text="random")
            expect(row).to_have_count(1)
            cells = row.locator("td").all_inner_texts()
            assert cells[0] == "2" and cells[1] == "random" and int(cells[2]) >= 1, cells
            page.screenshot(path=str(shots / "history.png"))
        finally:
            browser.close()
    for name in ("round_over.png", "mid_game.png", "game_over.png", "replay.png", "history.png"):
        assert (shots / name).stat().st_size > 10_000, name
    assert errors == [], errors


def test_new_game_ends_the_game_it_replaces_in_chromium(live_server):
    if sync_playwright is None:
        _need("playwright")
    if not os.path.exists(CHROMIUM):
        _need("chromium")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            page = browser.new_page()
            page.goto(live_server + "/")
            page.wait_for_selector("body[data-ui=setup]")
            page.select_option("#opponent-choices select", "random")
            page.select_option("#speed", "0")
            ids = []
            for _ in range(4):
                page.click("#start")
                page.wait_for_selector(STABLE)
                ids.append(page.url.partition("#game=")[2])
                page.click("#new-game")
                page.wait_for_selector("body[data-ui=setup]")
            assert all(ids) and len(set(ids)) == 4
            status = "(id) => fetch(`/api/games/${id}`).then((r) => r.status)"
            assert [page.evaluate(status, gid) for gid in ids[:-1]] == [404] * 3  # each New game ended the one before
            assert page.evaluate(status, ids[-1]) == 200  # the last was left for the form, not replaced yet
        finally:
            browser.close()


@pytest.mark.slow  # a whole bots' game and a round reviewed; tests/web/test_review.py covers the API quickly
def test_the_review_marks_each_move_and_shows_the_table_then_in_chromium(live_server, tmp_path):
    """A record of a bots' game loaded and reviewed: the grades on the move list, the chart, and a
    reviewed move's table with the best move outlined."""
    if sync_playwright is None:
        _need("playwright")
    if not os.path.exists(CHROMIUM):
        _need("chromium")
    from tests.agents.test_review import bots_record

    record = tmp_path / "game.json"
    record.write_text(json.dumps(bots_record(2, seed=6).to_json()))
    shots = Path(os.environ.get("SKYJO_SCREENSHOTS", tmp_path))
    errors: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.on("pageerror", lambda e: errors.append(f"page error: {e}"))
            page.goto(live_server + "/")
            page.wait_for_selector("body[data-ui=setup]")
            page.set_input_files("#load-record", str(record))
            page.wait_for_selector("body[data-ui=replay]")
            page.click("#replay-last")  # the whole game on the move list
            expect(page.locator("#replay-step")).to_have_text(re.compile(r"^move (\d+) of \1"))
            if page.is_visible("#overlay"):  # the last round's end
                page.click("#round-continue")
            page.click("#review")
            expect(page.locator("#review-status")).to_have_text(
                re.compile(r"^Round \d+: \d+ decisions"), timeout=60_000
            )
            moves = page.locator("#review-moves li")
            assert moves.count() > 5
            assert page.locator("#review-chart rect").count() == moves.count()
            marked = page.locator("#log li.review-fine, #log li.review-inaccuracy, #log li.review-mistake")
            assert marked.count() >= moves.count()
            page.select_option("#review-round", "0")
            expect(page.locator("#review-status")).to_have_text(re.compile(r"^Round 1: "), timeout=60_000)
            worst = page.locator("#review-moves li.grade-mistake, #review-moves li.grade-inaccuracy")
            (worst.first if worst.count() else moves.first).click()
            page.wait_for_selector("body[data-ui=review]")
            assert "Review, move" in page.inner_text("#banner")
            assert page.locator(".best-move").count() == 1
            page.screenshot(path=str(shots / "review.png"))
            page.click("#review-back")
            page.wait_for_selector("body[data-ui=replay]")
            assert page.locator(".best-move").count() == 0
        finally:
            browser.close()
    assert errors == [], errors
