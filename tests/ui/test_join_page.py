"""``join`` opens the browser on its page only once the table accepted the code: a code
mistyped gets an error and no dead tab. Real programs (a relay, a host at it, ``join``),
the browser replaced by a script (``$BROWSER``) that notes the address it is given."""

from __future__ import annotations

import re
import subprocess
import time
from pathlib import Path

from tests.seat.test_resume_processes import ENV, PYTHON, Program, start_relay, wait_for


def fake_browser(tmp_path: Path) -> tuple[dict[str, str], Path]:
    """The environment whose browser writes each address it opens into the file returned."""
    opened = tmp_path / "opened"
    script = tmp_path / "browser"
    script.write_text(f'#!/bin/sh\necho "$1" >> {opened}\n')
    script.chmod(0o755)
    return {**ENV, "BROWSER": str(script)}, opened


def test_the_browser_opens_once_the_code_is_accepted_and_never_on_a_wrong_one(
    tmp_path: Path,
) -> None:
    deadline = time.monotonic() + 90
    env, opened = fake_browser(tmp_path)
    relay, address = start_relay(tmp_path, deadline)
    programs = [relay]
    try:
        host = Program(
            ["host", "--bot", "--players", "3", "--relay", address,
             "--profile", str(tmp_path / "host")],
            tmp_path / "host.log",
        )  # fmt: skip
        programs.append(host)
        said = wait_for(
            "the short code",
            lambda: re.search(r"Read this code to your friends: (\d+)-(\w+)-(\w+)", host.output()),
            deadline,
        )
        assert isinstance(said, re.Match)
        number, first, second = said.groups()
        join = [*PYTHON, "join", "--relay", address, "--name", "Pierre"]
        wrong = subprocess.run(
            [*join, f"{number}-{second}-{first}", "--profile", str(tmp_path / "wrong")],
            env=env, capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
        assert wrong.returncode != 0
        assert "this code is wrong" in wrong.stderr
        assert "your table: " in wrong.stdout  # the page was served...
        assert not opened.exists()  # ...and no browser opened on it
        with open(tmp_path / "right.log", "wb") as log:
            right = subprocess.Popen(
                [*join, said[0].rsplit(" ", 1)[1], "--profile", str(tmp_path / "right")],
                env=env, stdout=log, stderr=subprocess.STDOUT,
            )  # fmt: skip
        try:
            wait_for("the browser", opened.exists, deadline)
            page = re.search(r"your table: (\S+)", (tmp_path / "right.log").read_text())
            assert page is not None and opened.read_text() == f"{page[1]}\n"
            wait_for("Pierre seated", lambda: "Pierre joined" in host.output(), deadline)
        finally:
            right.kill()
            right.wait()
    finally:
        for program in programs:
            if program.process is not None and program.process.poll() is None:
                program.kill()
