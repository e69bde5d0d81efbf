"""Wrong-output clusters: outputs that differ only in what a reader would not see (trailing
spaces, trailing blank lines, Windows line ends) are one cluster. The insight groups wrong
outputs by cluster and a teacher's hint is looked up by it, so both use `cluster_of`."""

from __future__ import annotations

import hashlib
import re

CLUSTER_LENGTH = 64  # a SHA-256 in hex
CLUSTER_PATTERN = re.compile(r"^[0-9a-f]{64}$")


def normalised_output(stdout: str) -> str:
    """The output as a reader sees it: line ends as "\\n", no trailing spaces on a line, no
    blank lines at the end."""
    lines = stdout.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return "\n".join(line.rstrip() for line in lines).rstrip("\n")


def cluster_of(stdout: str) -> str:
    """The cluster an output falls in: a digest of its normalised text (a fixed-size key, for
    outputs of any length)."""
    return hashlib.sha256(normalised_output(stdout).encode()).hexdigest()
