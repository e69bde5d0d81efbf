"""Which host directories the sandboxed interpreter needs, and which it must never see."""

from __future__ import annotations

import json
import logging
import os
import subprocess
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

log = logging.getLogger(__name__)

_QUERY = """
import json, os, sys
print(json.dumps({
    "prefixes": [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
                 os.path.dirname(sys.executable)],
    "path": sys.path,
}))
"""
# Mounted wholesale by the sandbox anyway.
SYSTEM_DIRS = ("/usr",)


class ExposureError(RuntimeError):
    """The sandbox would have to expose something it must not; it refuses to start."""


@dataclass(frozen=True)
class Interpreter:
    executable: str
    # Host directories to bind read-only at the same place, none inside another.
    dirs: tuple[str, ...]


@lru_cache(maxsize=8)
def inspect_interpreter(python: str, hidden: tuple[str, ...]) -> Interpreter:
    try:
        completed = subprocess.run(
            [python, "-I", "-c", _QUERY], capture_output=True, text=True, timeout=60, check=True
        )
        data = json.loads(completed.stdout)
    except (OSError, subprocess.SubprocessError, ValueError) as exc:
        raise ExposureError(f"cannot run the sandbox interpreter {python!r}: {exc}") from exc
    required = _existing_dirs([python, *data["prefixes"]])
    for path in required:
        # A protected path strictly inside (say, this package installed into the same
        # virtual environment) is covered with an empty tmpfs instead; see masks_for.
        if path == "/" or path in hidden:
            raise ExposureError(
                f"refusing to expose {path} (the interpreter lives there) to the sandbox: "
                "it is a protected path; install the interpreter elsewhere"
            )
    optional = []
    for path in _existing_dirs(data["path"]):
        if path == "/" or any(inside(secret, path) for secret in hidden):
            # e.g. an editable install's source tree on sys.path: left out, not exposed.
            log.info("not exposing sys.path entry %s to the sandbox", path)
        else:
            optional.append(path)
    dirs = [path for path in outermost(required + optional) if not inside_any(path, SYSTEM_DIRS)]
    return Interpreter(executable=python, dirs=tuple(dirs))


def default_hidden_paths() -> list[str]:
    """Host paths no sandbox may see whole: the source tree, the working directory, homes."""
    package_dir = Path(__file__).resolve().parent
    hidden = {os.getcwd(), os.path.expanduser("~"), "/root", "/home", str(package_dir)}
    if package_dir.parent.joinpath("pyproject.toml").exists():
        hidden.add(str(package_dir.parent))  # a source checkout: the whole repository
    return sorted(os.path.realpath(path) for path in hidden)


def masks_for(binds: list[str], hidden: list[str]) -> list[str]:
    """Hidden paths lying strictly inside a bind: the sandbox covers each with an empty tmpfs."""
    return sorted(
        {
            secret
            for secret in hidden
            for bind in binds
            if secret != bind and inside(secret, bind) and os.path.isdir(secret)
        }
    )


def _existing_dirs(paths: list[str]) -> list[str]:
    found: list[str] = []
    for path in paths:
        if not path or not os.path.exists(path):
            continue
        directory = path if os.path.isdir(path) else os.path.dirname(path)
        for candidate in (
            os.path.normpath(os.path.abspath(directory)),
            os.path.realpath(directory),
        ):
            if candidate not in found:
                found.append(candidate)
    return found


def outermost(paths: list[str]) -> list[str]:
    chosen: list[str] = []
    for path in sorted(set(paths), key=len):
        if not inside_any(path, chosen):
            chosen.append(path)
    return chosen


def inside(path: str, parent: str) -> bool:
    """Whether `path` is `parent` or below it."""
    return path == parent or path.startswith(parent.rstrip("/") + "/")


def inside_any(path: str, parents: list[str] | tuple[str, ...]) -> bool:
    return any(inside(path, parent) for parent in parents)
