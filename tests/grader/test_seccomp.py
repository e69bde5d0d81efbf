"""The hand-written seccomp filter, checked on its own in a forked child."""

from __future__ import annotations

import ctypes
import os
import platform
import socket
import struct

import pytest

from grader.inside import linux
from grader.seccomp import AARCH64, ARCHES, DENIED, X86_64, build_filter

ARCH = ARCHES.get(platform.machine().lower())


@pytest.mark.parametrize("machine", ["x86_64", "aarch64"])
def test_filter_assembles_with_jumps_in_range(machine: str) -> None:
    program = build_filter(machine)
    assert len(program) % 8 == 0
    count = len(program) // 8
    for index in range(count):
        code, jt, jf, _ = struct.unpack_from("=HBBI", program, index * 8)
        if code & 0x07 == 0x05:  # jumps stay inside the program
            assert index + 1 + max(jt, jf) < count


def test_every_denied_call_is_known_on_both_architectures() -> None:
    x86_only = {"iopl", "ioperm", "uselib", "inotify_init"}
    for name in DENIED:
        assert name in X86_64.syscalls, name
        assert name in AARCH64.syscalls or name in x86_only, name


def test_unknown_architecture_is_refused() -> None:
    with pytest.raises(RuntimeError):
        build_filter("sparc64")


def _in_filtered_child(check: str) -> int:
    """Exit status of a forked child that installs the filter and runs `check`."""
    program = build_filter()
    pid = os.fork()
    if pid == 0:
        try:
            linux.prctl(linux.PR_SET_NO_NEW_PRIVS, 1)
            linux.install_seccomp(program)
            libc = ctypes.CDLL(None, use_errno=True)
            namespace = {"libc": libc, "ctypes": ctypes, "socket": socket, "os": os}
            exec(check, namespace)
            os._exit(0)
        except BaseException:
            os._exit(3)
        finally:
            os._exit(4)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


@pytest.mark.skipif(ARCH is None, reason="no syscall table for this machine")
@pytest.mark.parametrize(
    "check",
    [
        "assert libc.syscall({ptrace}, 0, 0, 0, 0) == -1 and ctypes.get_errno() == 1",
        "assert libc.syscall({unshare}, 0) == -1 and ctypes.get_errno() == 1",
        "assert libc.syscall({clone}, 0x10000000 | 17, 0, 0, 0, 0) == -1",
        "assert libc.syscall({clone3}, 0, 0) == -1 and ctypes.get_errno() == 38",
        "assert libc.syscall({bpf}, 0, 0, 0) == -1 and ctypes.get_errno() == 1",
        "assert libc.syscall({keyctl}, 0, 0) == -1 and ctypes.get_errno() == 1",
        "assert libc.syscall({mount}, 0, 0, 0, 0, 0) == -1 and ctypes.get_errno() == 1",
        "try:\n    socket.socket()\n"
        "except PermissionError:\n    pass\nelse:\n    raise AssertionError",
        "a, b = socket.socketpair()\na.send(b'x')\nassert b.recv(1) == b'x'",
        "pid = os.fork()\nif pid == 0:\n    os._exit(0)\nos.waitpid(pid, 0)",
        "import threading\nt = threading.Thread(target=len, args=('',))\nt.start()\nt.join()",
    ],
)
def test_filter_in_a_child(check: str) -> None:
    assert ARCH is not None
    assert _in_filtered_child(check.format(**ARCH.syscalls)) == 0
