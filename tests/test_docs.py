"""The documentation's examples work: README.md and the pages of docs/ (the MkDocs site).

- Every ```python block runs here as written: the blocks of one page in order, in one fresh
  namespace per page, in a temporary working directory. A block that imports a library that is
  not installed skips the rest of its page (with the reason); a block right after the HTML comment
  `<!-- no-run: reason -->` is not run (kept for long trainings and servers). docs/envs.md's blocks
  are tests/envs/test_consumers.py's, which runs them with checks of its own.
- Bash blocks are not run, but every `skyjo COMMAND --flag ...` in them names a real subcommand
  (`skyjo_env.cli.SUBCOMMANDS`) and only options that its `--help` lists.
- The README stays a front page (at most 220 lines), its test command is the one `.ci/run` runs, and
  the relative links of every page lead to a file that exists and, with `#anchor`, to a heading in it.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import importlib.util
import io
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

import pytest

from skyjo_env.cli import SUBCOMMANDS, build_parser
from tests.envs import test_consumers

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
PAGES = [README, *sorted(DOCS.rglob("*.md"))]
RUN_ELSEWHERE = {DOCS / "envs.md": "tests/envs/test_consumers.py"}
MAX_README_LINES = 220
NO_RUN = re.compile(r"<!--\s*no-run:\s*(?P<reason>\S.*?)\s*-->")
SHELL_LANGUAGES = {"bash", "sh", "shell"}


@dataclass(frozen=True)
class Block:
    page: Path
    line: int
    """the line of the block's opening fence, from 1"""
    language: str
    code: str
    no_run: str | None
    """the reason given by a `<!-- no-run: reason -->` comment on the line before the block"""

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def name(page: Path) -> str:
    return str(page.relative_to(ROOT))


@functools.cache
def blocks(page: Path) -> tuple[Block, ...]:
    """The fenced code blocks of a Markdown page, in order."""
    lines = page.read_text(encoding="utf-8").splitlines()
    indented = [n + 1 for n, line in enumerate(lines) if re.match(r"\s+```", line)]
    assert not indented, f"{name(page)}: indented code fences at lines {indented}; these tests read fences at column 0"
    out = []
    i = 0
    while i < len(lines):
        opening = re.fullmatch(r"```\s*([\w+-]*)\s*", lines[i])
        if not opening:
            i += 1
            continue
        end = next((j for j in range(i + 1, len(lines)) if lines[j].startswith("```")), None)
        assert end is not None, f"{name(page)}:{i + 1}: a code block that is never closed"
        mark = NO_RUN.fullmatch(lines[i - 1].strip()) if i else None
        code = "\n".join(lines[i + 1 : end]) + "\n"
        out.append(Block(page, i + 1, opening.group(1).lower(), code, mark.group("reason") if mark else None))
        i = end + 1
    return tuple(out)


def python_blocks(page: Path) -> list[Block]:
    return [block for block in blocks(page) if block.language == "python"]


def missing_imports(code: str) -> list[str]:
    """The top-level modules that `code` imports and this environment lacks."""
    modules = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            modules.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            modules.add(node.module.split(".")[0])
    return sorted(module for module in modules if importlib.util.find_spec(module) is None)


def run_page(page: Path) -> dict:
    """Run the page's Python blocks in order in one namespace; a block's line numbers are the page's."""
    namespace: dict = {"__name__": "docs_example"}
    for block in python_blocks(page):
        if block.no_run is not None:
            continue
        missing = missing_imports(block.code)
        if missing:
            pytest.skip(f"{block.where} needs {', '.join(missing)} (not installed); it and the blocks after it")
        source = "\n" * block.line + block.code  # tracebacks name the page's own lines
        exec(compile(source, name(page), "exec"), namespace)
    return namespace


PAGES_WITH_CODE = [page for page in PAGES if python_blocks(page) and page not in RUN_ELSEWHERE]


@pytest.mark.parametrize("page", PAGES_WITH_CODE, ids=name)
def test_python_blocks_run(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    run_page(page)


def test_the_readme_examples_are_among_them():
    assert README in PAGES_WITH_CODE and len(python_blocks(README)) >= 2


def test_no_run_marks_are_few_and_give_a_reason():
    marked = [block for page in PAGES for block in blocks(page) if block.no_run is not None]
    assert all(block.language == "python" for block in marked), "no-run marks only Python blocks"
    assert len(marked) <= 5, [block.where for block in marked]
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for match in re.finditer(r"<!--\s*no-run\b.*?-->", text):
            assert NO_RUN.fullmatch(match.group(0)), f"{name(page)}: a no-run mark without a reason: {match.group(0)}"


def test_the_envs_page_is_run_by_test_consumers():
    page = DOCS / "envs.md"
    examples = set(test_consumers.readme_examples().values())
    assert examples, "test_consumers finds the envs page's examples"
    for block in python_blocks(page):
        assert block.no_run is None, f"{block.where}: test_consumers runs every block of {name(page)}"
        assert block.code in examples, f"{block.where} is not run by tests/envs/test_consumers.py"


# -- the bash blocks: `skyjo COMMAND --flag` -------------------------------------------------------

SEPARATORS = {"&&", "||", ";", "|", "&", "(", ")"}


def shell_lines(code: str) -> list[list[str]]:
    """The commands of a bash block, each a list of words: backslash continuations joined, comments
    dropped (a word that starts with #), split at && || ; and |. Quotes stay on the words."""
    commands = []
    for line in code.replace("\\\n", " ").splitlines():
        lexer = shlex.shlex(line, posix=False, punctuation_chars=True)
        lexer.whitespace_split = True
        lexer.commenters = ""
        words: list[str] = []
        for word in lexer:
            if word.startswith("#"):
                break
            if word in SEPARATORS:
                commands.append(words)
                words = []
            else:
                words.append(word)
        commands.append(words)
    return [words for words in commands if words]


def skyjo_commands(code: str) -> list[tuple[str, list[str]]]:
    """Each `skyjo COMMAND ...` of a bash block: the command and the options given after it (a word
    `--name` or `--name=value`; `[--name ...]` placeholders count), up to a lone `--`."""
    found = []
    for words in shell_lines(code):
        for i, word in enumerate(words[:-1]):
            if word != "skyjo":
                continue
            options = []
            for arg in words[i + 2 :]:
                if arg == "--":
                    break
                flag = re.match(r"\[*(--[A-Za-z][\w-]*)", arg)
                if flag:
                    options.append(flag.group(1))
            found.append((words[i + 1], options))
    return found


def bash_commands() -> list[tuple[str, str, list[str]]]:
    """(where, command, options) for every `skyjo COMMAND` of the pages' bash blocks."""
    return [
        (block.where, command, options)
        for page in PAGES
        for block in blocks(page)
        if block.language in SHELL_LANGUAGES
        for command, options in skyjo_commands(block.code)
    ]


@functools.cache
def help_options(command: str) -> frozenset[str]:
    """The options that `skyjo COMMAND --help` lists."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        build_parser().parse_args([command, "--help"])
    return frozenset(re.findall(r"(?<![\w-])(--[A-Za-z][\w-]*)", out.getvalue()))


def test_shell_lines_are_split_like_a_shell_reads_them():
    code = "A=1 skyjo eval ppo expert --games 10 && skyjo play  # a comment --seed\nskyjo train \\\n  --resume runs/X\n"
    assert skyjo_commands(code) == [("eval", ["--games"]), ("play", []), ("train", ["--resume"])]
    assert skyjo_commands("ray job submit --address A -- skyjo train --config c.yaml") == [("train", ["--config"])]
    assert skyjo_commands("skyjo ladder A B [--json PATH] [--png=P]") == [("ladder", ["--json", "--png"])]
    assert skyjo_commands("skyjo eval ppo --rules '--not-a-flag'") == [("eval", ["--rules"])]  # quoted: a value


def test_the_docs_name_the_main_commands():
    named = {command for _, command, _ in bash_commands()}
    assert {"train", "eval", "play", "serve", "ladder", "bench"} <= named


@pytest.mark.parametrize(
    "where, command, options",
    [pytest.param(*found, id=f"{found[0]} skyjo {found[1]}") for found in bash_commands()],
)
def test_bash_blocks_name_real_commands_and_options(where, command, options):
    assert command in SUBCOMMANDS, f"{where}: `skyjo {command}` is not a subcommand ({', '.join(SUBCOMMANDS)})"
    missing = SUBCOMMANDS[command].missing()
    if missing and options:
        pytest.skip(f"`skyjo {command} --help` needs {', '.join(missing)} (its extra is not installed)")
    unknown = sorted(set(options) - help_options(command))
    assert not unknown, f"{where}: `skyjo {command}` has no option {', '.join(unknown)}"


# -- the README as a front page ---------------------------------------------------------------------


def test_readme_is_a_front_page():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= MAX_README_LINES, f"README.md has {len(lines)} lines; move the detail to docs/"


def test_readme_test_command_is_the_one_ci_runs():
    command = 'pip install torch==2.13.0 && pip install -e ".[train,dev]" && python -m pytest'
    assert command in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert command in {
        line.strip() for block in blocks(README) if block.language == "bash" for line in block.code.splitlines()
    }


def slug(heading: str) -> str:
    """A heading's anchor, as MkDocs (Python-Markdown's toc) and GitHub make it for plain headings."""
    spans = re.split(r"(`[^`]*`)", heading)  # a code span's text is kept whole (`ppo_ei`), emphasis marks dropped
    text = "".join(s[1:-1] if s.startswith("`") else re.sub(r"[*_]", "", s) for s in spans).strip().lower()
    text = re.sub(r"[^\w\s-]", "", text)
    return re.sub(r"[-\s]+", "-", text)


def outside_code(page: Path) -> str:
    return re.sub(r"^```.*?^```", "", page.read_text(encoding="utf-8"), flags=re.DOTALL | re.MULTILINE)


def has_anchor(page: Path, anchor: str) -> bool:
    """Whether `page#anchor` leads somewhere: a heading of the page, or on an API page an object that
    mkdocstrings documents there (`::: module`: the module and its members, by their dotted names)."""
    text = outside_code(page)
    headings = re.findall(r"^#{1,6}\s+(.+?)\s*#*$", text, flags=re.MULTILINE)
    modules = re.findall(r"^::: (\S+)", text, flags=re.MULTILINE)
    return anchor in {slug(h) for h in headings} or any(anchor == m or anchor.startswith(m + ".") for m in modules)


def links(page: Path) -> list[tuple[str, str]]:
    """The relative links of a page outside its code: (target file, anchor or '')."""
    text = re.sub(r"`[^`\n]*`", "", outside_code(page))
    out = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):  # http:, https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        out.append((path, anchor))
    return out


@pytest.mark.parametrize("page", PAGES, ids=name)
def test_links_lead_somewhere(page):
    for path, anchor in links(page):
        target = (page.parent / path).resolve() if path else page
        assert target.exists(), f"{name(page)}: a link to {path}, which does not exist"
        if anchor and target.suffix == ".md":
            assert has_anchor(target, anchor), f"{name(page)}: no heading #{anchor} in {name(target)}"
