"""Hostile submissions. Each asserts its exact verdict and that the host is unharmed: the grader
still grades a normal job, no sandboxed process is left, and nothing appeared outside the run's
scratch space."""

from __future__ import annotations

import os
import platform
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from grader import Grader, Limits
from grader.seccomp import ARCHES

from .conftest import HOST_SECRET
from .support import (
    MARK_PROCESS,
    assert_host_unharmed,
    grade,
    hostile_verdict,
    only_run,
    run_hostile,
)

REPO = Path(__file__).resolve().parents[2]
BLOCKED = "blocked"


def probe_paths(*paths: str) -> str:
    """Code printing `blocked` for each path it can neither read nor list."""
    return (
        "import os\n"
        f"for path in {list(paths)!r}:\n"
        "    try:\n"
        "        os.listdir(path) if os.path.isdir(path) else open(path, 'rb').read(1)\n"
        "        print('READ', path)\n"
        "    except OSError:\n"
        f"        print({BLOCKED!r})\n"
    )


@pytest.fixture
def host_listener() -> Iterator[socket.socket]:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    listener.setblocking(False)
    yield listener
    listener.close()


# --- resources ------------------------------------------------------------------------------


def test_fork_bomb(grader: Grader) -> None:
    assert hostile_verdict(grader, "import os\nwhile True:\n    os.fork()") == "runtime_error"


def test_fork_bomb_that_swallows_errors_until_the_wall_time(grader: Grader) -> None:
    code = "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass"
    assert hostile_verdict(grader, code) == "timeout"


def test_thread_bomb(grader: Grader) -> None:
    code = (
        "import threading, time\n"
        "while True:\n"
        "    threading.Thread(target=time.sleep, args=(0.2,)).start()\n"
    )
    assert hostile_verdict(grader, code) == "runtime_error"


def test_memory_bomb_bytes(grader: Grader) -> None:
    assert hostile_verdict(grader, "x = bytearray(64 * 1024**3)") == "memory_limit"


def test_memory_bomb_tensor(grader: Grader) -> None:
    assert hostile_verdict(grader, "import torch\nx = torch.empty(2**34)") == "memory_limit"


def test_memory_bomb_growing(grader: Grader) -> None:
    code = "chunks = []\nwhile True:\n    chunks.append(bytearray(32 * 1024**2))"
    assert hostile_verdict(grader, code, limits=Limits(memory_mb=256)) == "memory_limit"


def test_infinite_loop(grader: Grader) -> None:
    assert hostile_verdict(grader, "while True:\n    pass") == "timeout"


def test_sleep(grader: Grader) -> None:
    assert hostile_verdict(grader, "import time\ntime.sleep(3600)") == "timeout"


def test_huge_output(grader: Grader) -> None:
    assert hostile_verdict(grader, "while True:\n    print('A' * 10000)") == "output_limit"


def test_huge_stderr(grader: Grader) -> None:
    code = "import sys\nwhile True:\n    sys.stderr.write('E' * 10000)"
    assert hostile_verdict(grader, code) == "output_limit"


def test_huge_file(grader: Grader) -> None:
    code = "with open('big', 'wb') as f:\n    while True:\n        f.write(b'x' * 2**20)"
    assert hostile_verdict(grader, code) == "runtime_error"


def test_filling_tmp_and_shm_shares_the_scratch_cap(grader: Grader) -> None:
    code = (
        "import os\n"
        "for d in ('/tmp', '/dev/shm'):\n"
        "    try:\n"
        "        with open(d + '/fill', 'wb') as f:\n"
        "            while True:\n"
        "                f.write(b'x' * 2**20)\n"
        "    except OSError as e:\n"
        "        print(d, e.errno)\n"
    )
    assert hostile_verdict(grader, code, "/tmp 28\n/dev/shm 28") == "passed"


def test_exhausting_open_files(grader: Grader) -> None:
    code = "files = []\nwhile True:\n    files.append(open('/dev/null'))"
    assert hostile_verdict(grader, code) == "runtime_error"


# --- network --------------------------------------------------------------------------------


def test_network_has_only_a_downed_loopback(grader: Grader) -> None:
    code = (
        "import fcntl, socket, struct\n"
        "lines = open('/proc/net/dev').read().splitlines()[2:]\n"
        "print([line.split(':')[0].strip() for line in lines])\n"
        "print(repr(open('/proc/net/route').read()))\n"
        "request = struct.pack('16sH14s', b'lo', 0, b'')\n"
        "reply = fcntl.ioctl(socket.socket(socket.AF_UNIX), 0x8913, request)  # SIOCGIFFLAGS\n"
        "print('lo up' if struct.unpack('16sH14s', reply)[1] & 1 else 'lo down')\n"
    )
    assert hostile_verdict(grader, code, "['lo']\n''\nlo down") == "passed"


def test_connecting_to_a_host_loopback_listener_fails(
    grader: Grader, host_listener: socket.socket
) -> None:
    port = host_listener.getsockname()[1]
    code = (
        "import socket\n"
        "for family in (socket.AF_INET, socket.AF_INET6):\n"
        "    try:\n"
        "        s = socket.socket(family)\n"
        f"        s.connect(('127.0.0.1' if family == socket.AF_INET else '::1', {port}))\n"
        "        print('CONNECTED')\n"
        "    except OSError as e:\n"
        "        print(e.errno)\n"
    )
    assert hostile_verdict(grader, code, "1\n1") == "passed"
    with pytest.raises(BlockingIOError):
        host_listener.accept()


def test_raw_and_netlink_sockets_are_refused(grader: Grader) -> None:
    code = (
        "import socket\n"
        "for args in ((socket.AF_NETLINK, socket.SOCK_RAW, 0),\n"
        "             (socket.AF_PACKET, socket.SOCK_RAW, 0),\n"
        "             (socket.AF_INET, socket.SOCK_DGRAM, 0)):\n"
        "    try:\n"
        "        socket.socket(*args)\n"
        "        print('OPEN')\n"
        "    except OSError as e:\n"
        "        print(e.errno)\n"
        "a, b = socket.socketpair()\n"
        "a.send(b'unix sockets still work')\n"
        "print(b.recv(100).decode())\n"
    )
    assert hostile_verdict(grader, code, "1\n1\n1\nunix sockets still work") == "passed"


# --- reading the host -----------------------------------------------------------------------


def test_reading_host_secrets(grader: Grader) -> None:
    paths = ("/etc/shadow", "/etc/hostname", "/root/.bashrc", "/root/.ssh", "/home", "/var/lib")
    assert (
        hostile_verdict(grader, probe_paths(*paths), "\n".join([BLOCKED] * len(paths))) == "passed"
    )


def test_reading_the_repository_app_and_exercises(grader: Grader) -> None:
    paths = [str(REPO / name) for name in ("pyproject.toml", "app", "exercises", "grader", ".git")]
    paths.append(str(REPO / "app" / "main.py"))
    assert (
        hostile_verdict(grader, probe_paths(*paths), "\n".join([BLOCKED] * len(paths))) == "passed"
    )


def test_reading_a_database_file(grader: Grader, tmp_path: Path) -> None:
    database = tmp_path / "app.sqlite3"
    database.write_bytes(b"SQLite format 3\x00 secret rows")
    paths = (str(database), str(tmp_path))
    assert hostile_verdict(grader, probe_paths(*paths), f"{BLOCKED}\n{BLOCKED}") == "passed"


def test_only_the_runs_own_processes_are_visible(grader: Grader) -> None:
    code = (
        "import os\n"
        "pids = sorted(int(p) for p in os.listdir('/proc') if p.isdigit())\n"
        f"print(pids, os.path.exists('/proc/{os.getpid()}'))\n"
    )
    assert hostile_verdict(grader, code, "[1] False") == "passed"


def test_environment_holds_no_host_secret(grader: Grader) -> None:
    code = (
        "import os\n"
        f"secret = {HOST_SECRET!r}\n"
        "found = [k for k, v in os.environ.items() if secret in v]\n"
        "for pid in [p for p in os.listdir('/proc') if p.isdigit()]:\n"
        "    try:\n"
        "        if secret.encode() in open(f'/proc/{pid}/environ', 'rb').read():\n"
        "            found.append(pid)\n"
        "    except OSError:\n"
        "        pass\n"
        "print(found, sorted(os.environ))\n"
    )
    result = grade(grader, code, "")
    assert HOST_SECRET not in result.runs[0].stdout
    assert result.runs[0].stdout.startswith("[] ")
    assert "TC_GRADER_TEST_SECRET" not in result.runs[0].stdout
    assert_host_unharmed(grader)


# --- other processes ------------------------------------------------------------------------


def test_signalling_the_host_and_pid_1(grader: Grader) -> None:
    code = (
        "import os, signal\n"
        f"for pid in ({os.getpid()}, {os.getppid()}):\n"
        "    try:\n"
        "        os.kill(pid, signal.SIGKILL)\n"
        "        print('SENT')\n"
        "    except OSError as e:\n"
        "        print(e.errno)\n"
        "os.kill(1, signal.SIGTERM)  # this run's own pid 1: itself\n"
        "try:\n"
        "    os.kill(-1, signal.SIGKILL)  # everything it may signal: nothing else\n"
        "except ProcessLookupError:\n"
        "    pass\n"
        "print('alive', os.getpid())\n"
    )
    assert hostile_verdict(grader, code, "3\n3\nalive 1") == "passed"


def test_tracing_other_processes(grader: Grader) -> None:
    code = (
        "import ctypes, os\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "child = os.fork()\n"
        "if child == 0:\n"
        "    import time; time.sleep(5); os._exit(0)\n"
        "print(libc.ptrace(16, child, 0, 0), ctypes.get_errno())\n"  # PTRACE_ATTACH
        "print(libc.ptrace(0, 0, 0, 0), ctypes.get_errno())\n"  # PTRACE_TRACEME
        "try:\n"
        "    open(f'/proc/{child}/mem', 'rb').read(1)\n"
        "except OSError as e:\n"
        "    print('mem', e.errno)\n"
    )
    verdict = hostile_verdict(grader, code, "-1 1\n-1 1\nmem 5")
    assert verdict in {"passed"}


# --- planting things for the host ----------------------------------------------------------


def test_symlinks_and_files_aimed_at_host_paths(grader: Grader) -> None:
    planted = f"/tmp/tc-planted-{os.getpid()}"
    code = (
        "import os\n"
        "for target, name in (('/etc/shadow', 'a'), ('/root', 'b'), ('../../../../etc', 'c')):\n"
        "    os.symlink(target, name)\n"
        "    try:\n"
        "        os.listdir(name) if os.path.isdir(name) else open(name).read()\n"
        "        print('READ', name)\n"
        "    except OSError:\n"
        "        print('blocked')\n"
        f"open({planted!r}, 'w').write('owned')\n"
        f"os.symlink('/etc/passwd', {planted + '-link'!r})\n"
        "os.remove('main.py')\n"
        "os.symlink('/etc/shadow', 'main.py')\n"
        "open('/dev/shm/planted', 'w').write('x')\n"
        "print('planted')\n"
    )
    assert hostile_verdict(grader, code, "blocked\nREAD b\nREAD c\nplanted") == "passed"
    assert not os.path.lexists(planted) and not os.path.lexists(planted + "-link")
    assert not os.path.exists("/dev/shm/planted")


def test_writing_outside_the_scratch_space(grader: Grader) -> None:
    code = (
        "import os, sys, torch\n"
        "targets = [torch.__file__, os.path.dirname(torch.__file__) + '/evil.py',\n"
        "           '/usr/bin/evil', sys.prefix + '/evil', '/etc/evil', '/evil',\n"
        "           '/opt/grader/inside/evil.py', '/dev/evil']\n"
        "for path in targets:\n"
        "    try:\n"
        "        open(path, 'a').write('x')\n"
        "        print('WROTE', path)\n"
        "    except OSError as e:\n"
        "        print(e.errno in (1, 13, 30))\n"
    )
    assert hostile_verdict(grader, code, "\n".join(["True"] * 8)) == "passed"
    import torch

    assert not os.path.exists(os.path.join(os.path.dirname(torch.__file__), "evil.py"))


def test_runs_do_not_share_state(grader: Grader) -> None:
    writer = (
        "import os, socket\n"
        "open('/tmp/shared', 'w').write('x'); open('/dev/shm/shared', 'w').write('x')\n"
        "s = socket.socket(socket.AF_UNIX); s.bind('\\0tc-shared'); s.listen()\n"
        "import time; time.sleep(1.5)\n"
    )
    reader = (
        "import os, socket, time\n"
        "time.sleep(0.5)\n"
        "print(os.path.exists('/tmp/shared'), os.path.exists('/dev/shm/shared'))\n"
        "try:\n"
        "    socket.socket(socket.AF_UNIX).connect('\\0tc-shared'); print('CONNECTED')\n"
        "except OSError:\n"
        "    print('blocked')\n"
    )
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(2) as pool:
        first = pool.submit(grade, grader, MARK_PROCESS + writer, "")
        second = pool.submit(grade, grader, MARK_PROCESS + reader, "False False\nblocked")
        assert first.result().verdict == "passed"
        assert second.result().verdict == "passed"
    assert_host_unharmed(grader)


# --- raw system calls -----------------------------------------------------------------------


@pytest.mark.skipif(platform.machine().lower() not in ARCHES, reason="no syscall table")
def test_raw_syscalls_through_ctypes(grader: Grader) -> None:
    numbers = ARCHES[platform.machine().lower()].syscalls
    calls = {
        "mount": "b'none', b'/tmp', b'tmpfs', 0, 0",
        "umount2": "b'/proc', 2",
        "unshare": "0x10000000",
        "setns": "0, 0",
        "ptrace": "16, 1, 0, 0",
        "bpf": "0, 0, 0",
        "keyctl": "0, 0",
        "add_key": "b'user', b'k', b'v', 1, -3",
        "perf_event_open": "0, 0, -1, -1, 0",
        "userfaultfd": "0",
        "io_uring_setup": "1, 0",
        "init_module": "0, 0, b''",
        "reboot": "0, 0, 0, 0",
        "clone": "0x40000000 | 17, 0, 0, 0, 0",
        "socket": "2, 1, 0",
        "process_vm_readv": "1, 0, 0, 0, 0, 0",
        "chroot": "b'/tmp'",
        "inotify_init1": "0",
        "pivot_root": "b'/tmp', b'/tmp'",
    }
    code = "import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n" + "".join(
        f"print({name!r}, libc.syscall({numbers[name]}, {args}), ctypes.get_errno())\n"
        for name, args in calls.items()
    )
    expected = "\n".join(f"{name} -1 1" for name in calls)
    assert hostile_verdict(grader, code, expected) == "passed"


def test_clone3_is_hidden_and_threads_still_work(grader: Grader) -> None:
    code = (
        "import ctypes, threading\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "print(libc.syscall(435, 0, 0), ctypes.get_errno())\n"
        "t = threading.Thread(target=print, args=('thread ok',)); t.start(); t.join()\n"
    )
    assert hostile_verdict(grader, code, "-1 38\nthread ok") == "passed"


# --- privileges -----------------------------------------------------------------------------


def test_setuid_attempts(grader: Grader) -> None:
    code = (
        "import os\n"
        "for call in (lambda: os.setuid(0), lambda: os.setgid(0), lambda: os.setresuid(0, 0, 0),\n"
        "             lambda: os.setgroups([0]), lambda: os.chown('main.py', 0, 0)):\n"
        "    try:\n"
        "        call()\n"
        "        print('CHANGED')\n"
        "    except OSError as e:\n"
        "        print(e.errno in (1, 22))\n"
        "print(os.getuid(), os.geteuid(), os.getgid())\n"
        "status = open('/proc/self/status').read()\n"
        "wanted = ('CapEff', 'NoNewPrivs')\n"
        "print([line.split()[1] for line in status.splitlines() if line.startswith(wanted)])\n"
    )
    expected = "True\nTrue\nTrue\nTrue\nTrue\n1000 1000 1000\n['0000000000000000', '1']"
    assert hostile_verdict(grader, code, expected) == "passed"


def test_keyring(grader: Grader) -> None:
    numbers = ARCHES.get(platform.machine().lower())
    if numbers is None:
        pytest.skip("no syscall table")
    code = (
        "import ctypes\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        f"print(libc.syscall({numbers.syscalls['keyctl']}, 0, -3, 0), ctypes.get_errno())\n"
        f"request_key = {numbers.syscalls['request_key']}\n"
        "print(libc.syscall(request_key, b'user', b'x', 0, 0), ctypes.get_errno())\n"
        "import os\nprint(os.path.exists('/proc/keys') and len(open('/proc/keys').read()) == 0)\n"
    )
    assert hostile_verdict(grader, code, "-1 1\n-1 1\nTrue") == "passed"


# --- stdout, stderr and the verdict ---------------------------------------------------------


def test_closing_stdout(grader: Grader) -> None:
    code = "import os\nprint('partial', flush=True)\nos.close(1)\nprint('more')"
    assert hostile_verdict(grader, code, "partial") == "runtime_error"


def test_hijacking_stdout_with_dup2_and_fake_verdicts(grader: Grader) -> None:
    code = (
        "import os, sys\n"
        'print(\'{"verdict": "passed", "op": "exit", "exit_code": 0}\')\n'
        "sys.stderr.write('VERDICT: passed\\n')\n"
        "found = 0\n"
        "for fd in range(3, 256):\n"
        "    try:\n"
        '        os.write(fd, b\'{"op": "exit", "exit_code": 0}\')\n'
        "        found += 1\n"
        "    except OSError:\n"
        "        pass\n"
        "os.dup2(2, 1)\n"
        "print(found)\n"
    )
    result = grade(grader, MARK_PROCESS + code, "42")
    run = only_run(result)
    assert run.verdict == "wrong_output"
    assert "VERDICT: passed\n0\n" in run.stderr
    assert_host_unharmed(grader)


def test_exiting_with_success_after_a_crash_report(grader: Grader) -> None:
    code = "import os, sys\nsys.stderr.write('Traceback: fake\\n')\nos._exit(0)"
    assert hostile_verdict(grader, code, "") == "passed"


# --- escaping the end of the run ------------------------------------------------------------


def test_daemonised_grandchild_dies_with_the_run(grader: Grader) -> None:
    code = (
        "import os, time\n"
        "if os.fork() == 0:\n"
        "    os.setsid()\n"
        "    if os.fork() == 0:\n"
        "        os.close(1); os.close(2)\n"
        "        time.sleep(30)\n"
        "        os._exit(0)\n"
        "    os._exit(0)\n"
        "time.sleep(0.2)\n"
        "print('parent done')\n"
    )
    run = only_run(run_hostile(grader, code, "parent done"))
    assert run.verdict == "passed"
    assert run.duration_ms < 1500  # the run ended with its main process, not the daemon


def test_ignoring_signals_does_not_outlive_the_wall_time(grader: Grader) -> None:
    code = (
        "import signal, time\n"
        "for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGXCPU):\n"
        "    signal.signal(sig, signal.SIG_IGN)\n"
        "while True:\n"
        "    time.sleep(0.01)\n"
    )
    assert hostile_verdict(grader, code) == "timeout"
