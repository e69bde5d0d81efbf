"""Runs cannot reach each other or the host through signals, shared budgets or kernel quotas,
and whatever a run does to itself ends in a verdict about the code, never a platform `error`.

Each test is an attack a hostile student could submit; after it the host must be unharmed: the
same zygote still grades normal jobs (no restart, no `error`)."""

from __future__ import annotations

import ctypes
import os
import platform
import signal
import threading
import time

import pytest

from grader import Grader, Limits, Result

from .support import grade, hostile_verdict, only_run, run_hostile

MACHINE = platform.machine()
SMALL_MEMORY = Limits(wall_time_s=8, cpu_time_s=8, memory_mb=256)


# --- signals reach only the run's own processes ---------------------------------------------


@pytest.mark.parametrize(
    "attack",
    [
        "os.kill(0, signal.SIGKILL)",
        "os.killpg(os.getpgrp(), signal.SIGKILL)",
        "os.killpg(os.getpgid(0), signal.SIGTERM)",
        "os.kill(-os.getpgrp(), signal.SIGKILL)",
    ],
)
def test_signalling_the_process_group(grader: Grader, attack: str) -> None:
    # As the run's pid 1 its own group is only itself (kill(-1) finds nobody: ESRCH).
    code = (
        f"import os, signal\ntry:\n    {attack}\nexcept ProcessLookupError:\n    pass\n"
        "print('alive')\n"
    )
    assert hostile_verdict(grader, code, "alive", zygotes_survive=True) == "passed"


def test_signalling_the_session_from_a_child(grader: Grader) -> None:
    code = (
        "import os, signal, time\n"
        "pid = os.fork()\n"
        "if pid == 0:\n"
        "    for target in (0, -1, -os.getsid(0), -os.getpgrp()):\n"
        "        try:\n"
        "            os.kill(target, signal.SIGKILL)\n"
        "        except OSError:\n"
        "            pass\n"
        "    os._exit(0)\n"
        "os.waitpid(pid, 0)\n"
        "print('alive')\n"
    )
    assert hostile_verdict(grader, code, "alive", zygotes_survive=True) == "passed"


def test_sigio_to_the_process_group(grader: Grader) -> None:
    # F_SETOWN with a negative id names a process group: SIGIO then goes to every member.
    code = (
        "import fcntl, os\n"
        "r, w = os.pipe()\n"
        "for fd in (r, w, 1):\n"
        "    fcntl.fcntl(fd, fcntl.F_SETOWN, -os.getpgrp())\n"
        "    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_ASYNC)\n"
        "os.write(w, b'x' * 100)\n"
        "os.read(r, 100)\n"
        "print('alive', flush=True)\n"
        "os.write(w, b'y')\n"
    )
    assert hostile_verdict(grader, code, "alive", zygotes_survive=True) == "passed"


def test_the_run_has_a_session_of_its_own(grader: Grader) -> None:
    code = "import os\nprint(os.getsid(0), os.getpgrp(), os.getpid())\n"
    assert hostile_verdict(grader, code, "1 1 1", zygotes_survive=True) == "passed"


# --- one memory budget per run, all kinds, all processes ------------------------------------


def test_memory_spread_over_processes(grader: Grader) -> None:
    # Each child stays under the per-process address-space limit; together they do not.
    code = (
        "import os, time\n"
        "children = []\n"
        "for _ in range(6):\n"
        "    pid = os.fork()\n"
        "    if pid == 0:\n"
        "        block = bytearray(180 * 1024 * 1024)\n"
        "        for i in range(0, len(block), 4096):\n"
        "            block[i] = 1\n"
        "        time.sleep(5)\n"
        "        os._exit(0)\n"
        "    children.append(pid)\n"
        "for pid in children:\n"
        "    os.waitpid(pid, 0)\n"
        "print('held')\n"
    )
    assert (
        hostile_verdict(grader, code, "held", SMALL_MEMORY, zygotes_survive=True) == "memory_limit"
    )


def test_sysv_shared_memory_left_after_detaching(grader: Grader) -> None:
    code = (
        "import ctypes\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "libc.shmat.restype = ctypes.c_void_p\n"
        "for _ in range(6):\n"
        "    size = 180 * 1024 * 1024\n"
        "    shmid = libc.shmget(0, ctypes.c_size_t(size), 0o1600)\n"
        "    assert shmid >= 0, ctypes.get_errno()\n"
        "    address = libc.shmat(shmid, None, 0)\n"
        "    ctypes.memset(address, 1, size)\n"
        "    libc.shmdt(ctypes.c_void_p(address))\n"
        "print('held')\n"
    )
    assert (
        hostile_verdict(grader, code, "held", SMALL_MEMORY, zygotes_survive=True) == "memory_limit"
    )


def test_memfd_contents(grader: Grader) -> None:
    code = (
        "import os\n"
        "chunk = b'x' * (1024 * 1024)\n"
        "fds = []\n"
        "for _ in range(30):\n"
        "    fd = os.memfd_create('hold')\n"
        "    for _ in range(15):  # each file stays under the file-size limit\n"
        "        os.write(fd, chunk)\n"
        "    fds.append(fd)\n"
        "print('held')\n"
    )
    assert (
        hostile_verdict(grader, code, "held", SMALL_MEMORY, zygotes_survive=True) == "memory_limit"
    )


def test_a_run_within_its_budget_is_unaffected(grader: Grader) -> None:
    code = "x = bytearray(100 * 1024 * 1024)\nprint(len(x) // 2**20)\n"
    assert hostile_verdict(grader, code, "100", SMALL_MEMORY, zygotes_survive=True) == "passed"


# --- kernel quotas counted per user stay the run's own --------------------------------------

# sigqueue() (unlike kill()) fails with EAGAIN once the caller's pending-signal quota is used up.
_SIGQUEUE = (
    "import ctypes, os, signal\n"
    "libc = ctypes.CDLL(None, use_errno=True)\n"
    "signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGRTMIN})\n"
    "def queue(limit):\n"
    "    queued = 0\n"
    "    while queued < limit:\n"
    "        if libc.sigqueue(os.getpid(), signal.SIGRTMIN, ctypes.c_void_p(0)) != 0:\n"
    "            break\n"
    "        queued += 1\n"
    "    return queued\n"
)
_FILL_SIGNALS = _SIGQUEUE + "import time\nprint(queue(1_000_000), flush=True)\ntime.sleep({hold})\n"


def host_user_can_queue_signals_and_make_a_timer(uid: int) -> str:
    """On the host, as `uid` (a forked child of this test): queue 50 signals to itself and
    create a POSIX timer. Both draw on that user's pending-signal quota, which the kernel also
    charges for every signal pending in a user namespace that user created."""
    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child
        answer = "ok"
        try:
            if uid != os.geteuid():
                os.setgroups([])
                os.setresgid(uid, uid, uid)
                os.setresuid(uid, uid, uid)
            libc = ctypes.CDLL(None, use_errno=True)
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGRTMIN})
            for _ in range(50):
                if libc.sigqueue(os.getpid(), signal.SIGRTMIN, ctypes.c_void_p(0)) != 0:
                    answer = f"sigqueue failed: {os.strerror(ctypes.get_errno())}"
                    break
            timer = ctypes.c_void_p()
            if answer == "ok" and libc.timer_create(1, None, ctypes.byref(timer)) != 0:
                answer = f"timer_create failed: {os.strerror(ctypes.get_errno())}"
        except BaseException as exc:
            answer = repr(exc)
        os.write(writer, answer.encode())
        os._exit(0)
    os.close(writer)
    os.waitpid(pid, 0)
    with os.fdopen(reader) as answer_pipe:
        return answer_pipe.read()


def test_pending_signals_are_capped_per_run(grader: Grader) -> None:
    result = run_hostile(grader, _FILL_SIGNALS.replace("{hold}", "0"), zygotes_survive=True)
    queued = int(only_run(result).stdout.split()[0])
    assert 0 < queued <= 1024


@pytest.mark.parametrize("who", ["the grader's user", "the sandbox's host user"])
def test_a_run_cannot_use_up_the_host_users_pending_signals(grader: Grader, who: str) -> None:
    uid = os.geteuid() if who == "the grader's user" else grader.config.sandbox_uid
    if uid != os.geteuid() and os.geteuid() != 0:
        pytest.skip("acting as another user needs root")
    results: list[Result] = []
    runner = threading.Thread(
        target=lambda: results.append(
            grade(grader, _FILL_SIGNALS.replace("{hold}", "4"), limits=Limits(wall_time_s=8))
        )
    )
    runner.start()
    time.sleep(2.5)  # the run has queued all it can and holds them
    answer = host_user_can_queue_signals_and_make_a_timer(uid)
    runner.join()
    assert answer == "ok"
    assert results and results[0].status == "done", results


def test_posix_message_queues_are_refused(grader: Grader) -> None:
    code = (
        "import ctypes\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "fd = libc.mq_open(b'/hog', 0o100 | 0o2, 0o600, None)\n"
        "print('refused' if fd < 0 else 'opened')\n"
    )
    assert hostile_verdict(grader, code, "refused", zygotes_survive=True) == "passed"


@pytest.mark.skipif(MACHINE not in ("x86_64", "aarch64"), reason="syscall numbers")
def test_the_host_wide_aio_pool_is_out_of_reach(grader: Grader) -> None:
    number = {"x86_64": 206, "aarch64": 0}[MACHINE]
    code = (
        "import ctypes\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "context = ctypes.c_ulong(0)\n"
        f"result = libc.syscall({number}, 65536, ctypes.byref(context))\n"
        "print('refused' if result != 0 else 'allocated')\n"
    )
    assert hostile_verdict(grader, code, "refused", zygotes_survive=True) == "passed"


def test_locked_memory_is_capped(grader: Grader) -> None:
    code = (
        "import ctypes, mmap\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "size = 16 * 1024 * 1024\n"
        "buffer = mmap.mmap(-1, size)\n"
        "address = ctypes.addressof(ctypes.c_char.from_buffer(buffer))\n"
        "print('refused' if libc.mlock(ctypes.c_void_p(address), size) != 0 else 'locked')\n"
    )
    assert hostile_verdict(grader, code, "refused", zygotes_survive=True) == "passed"


# --- the OOM killer keeps picking sandboxed code first --------------------------------------


def test_oom_score_adj_cannot_be_lowered(grader: Grader) -> None:
    code = (
        "for value in ('0', '-1000', '500'):\n"
        "    try:\n"
        "        with open('/proc/self/oom_score_adj', 'w') as f:\n"
        "            f.write(value)\n"
        "    except OSError:\n"
        "        pass\n"
        "print(open('/proc/self/oom_score_adj').read().strip())\n"
    )
    assert hostile_verdict(grader, code, "1000", zygotes_survive=True) == "passed"


# --- whatever a run does to itself is a verdict, never `error` ------------------------------


@pytest.mark.parametrize(
    ("code", "expected", "verdict"),
    [
        ("import sys\nsys.exit(3)", "", "runtime_error"),
        ("import sys\nsys.exit(121)", "", "runtime_error"),  # the runner's own setup code
        ("import sys\nsys.exit(70)", "", "runtime_error"),
        ("import os\nprint('x', flush=True)\nos._exit(0)", "y", "wrong_output"),
        ("import os\nos._exit(255)", "", "runtime_error"),
        ("import os\nos.abort()", "", "runtime_error"),
        ("import ctypes\nctypes.string_at(0)", "", "runtime_error"),
        ("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\nprint('on')", "on", "passed"),
        ("import os, signal\nos.kill(1, signal.SIGSEGV)\nprint('on')", "on", "passed"),
        ("import os\nos.closerange(0, 1 << 16)\nraise SystemExit(1)", "", "runtime_error"),
        ("import os\nos.close(1)\nos.close(2)\nprint('gone')", "gone", "runtime_error"),
        ("import os\nos.close(1)\nos.close(2)", "gone", "wrong_output"),
        (
            "import resource\nresource.setrlimit(resource.RLIMIT_NOFILE, (3, 3))\nprint('on')",
            "on",
            "passed",
        ),
        (  # the kernel kills it at once (SIGKILL past the hard limit)
            "import resource\nresource.setrlimit(resource.RLIMIT_CPU, (0, 0))\nwhile True: pass",
            "",
            "runtime_error",
        ),
        ("import sys\nsys.setrecursionlimit(10**6)\nf = lambda n: f(n + 1)\nf(0)", "", None),
        ("import os\nos._exit = print\nprint('on')", "on", "passed"),
        ("import sys\nsys.exit = None\nsys.stdout = None\nraise SystemExit(0)", "", "passed"),
        (
            "import os, time\ntry:\n    os.setsid()\nexcept OSError:\n    pass\ntime.sleep(30)",
            "",
            "timeout",
        ),
        ("import os, signal\nos.kill(os.getpid(), signal.SIGSTOP)\nprint('on')", "on", "passed"),
        (
            "import os, signal, time\n"
            "if os.fork() == 0:\n"
            "    os.kill(1, signal.SIGKILL)\n"
            "    os.kill(1, signal.SIGSTOP)\n"
            "    os._exit(0)\n"
            "time.sleep(0.3)\nprint('on')",
            "on",
            "passed",
        ),
        ("import os\nfor fd in range(3):\n    os.dup2(os.open('/dev/null', 0), fd)", "", "passed"),
    ],
)
def test_what_a_run_does_to_itself_is_its_own_verdict(
    grader: Grader, code: str, expected: str, verdict: str | None
) -> None:
    result = run_hostile(grader, code, expected, zygotes_survive=True)
    assert result.status == "done", result
    run = only_run(result)
    if verdict is None:  # a crash of its own making: which one depends on stack size and speed
        assert run.verdict in ("runtime_error", "memory_limit", "timeout"), run
    else:
        assert run.verdict == verdict, run


def test_filling_the_process_budget_is_its_own_verdict(grader: Grader) -> None:
    code = (
        "import os, time\n"
        "n = 0\n"
        "try:\n"
        "    while True:\n"
        "        if os.fork() == 0:\n"
        "            time.sleep(5)\n"
        "            os._exit(0)\n"
        "        n += 1\n"
        "except OSError:\n"
        "    pass\n"
        "print(n <= 40)\n"
    )
    assert hostile_verdict(grader, code, "True", zygotes_survive=True) == "passed"
