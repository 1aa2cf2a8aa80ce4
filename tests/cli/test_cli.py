"""The `skyjo` command as a Unix tool: output piped into a reader that leaves early."""

from __future__ import annotations

import subprocess
import sys


def test_a_reader_that_leaves_early_ends_the_command_quietly():
    """`skyjo demo | head -0`: the pipe is closed before anything is written; exit 141 (SIGPIPE's), no traceback."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "skyjo_env", "demo", "--seed", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader leaves at once
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 141
    assert "Traceback" not in err and "BrokenPipeError" not in err
