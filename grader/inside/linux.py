"""Thin ctypes wrappers for the Linux calls the sandbox needs (Python 3.11 lacks most of them)."""

from __future__ import annotations

import ctypes
import os
import struct

_libc = ctypes.CDLL(None, use_errno=True)

CLONE_NEWNS = 0x00020000
CLONE_NEWCGROUP = 0x02000000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000

MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
MS_REMOUNT = 32
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18
MNT_DETACH = 2

PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_CAPBSET_DROP = 24
PR_SET_SECUREBITS = 28
PR_SET_NO_NEW_PRIVS = 38
PR_CAP_AMBIENT = 47
PR_CAP_AMBIENT_CLEAR_ALL = 4
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2

# keep-caps off, no root privileges, no fix-ups on setuid, all locked.
SECUREBITS_LOCKED_NOROOT = 0x2F

_CAP_VERSION_3 = 0x20080522


def _check(result: int, what: str) -> int:
    if result == -1:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")
    return result


def unshare(flags: int) -> None:
    _check(_libc.unshare(ctypes.c_int(flags)), "unshare")


def mount(
    source: str | None, target: str, fstype: str | None, flags: int, data: str | None
) -> None:
    _check(
        _libc.mount(
            source.encode() if source else None,
            target.encode(),
            fstype.encode() if fstype else None,
            ctypes.c_ulong(flags),
            data.encode() if data else None,
        ),
        f"mount {target}",
    )


def umount(target: str, flags: int = 0) -> None:
    _check(_libc.umount2(target.encode(), ctypes.c_int(flags)), f"umount {target}")


def prctl(option: int, arg2: int = 0, arg3: int = 0, arg4: int = 0, arg5: int = 0) -> int:
    return _check(
        _libc.prctl(
            ctypes.c_int(option),
            ctypes.c_ulong(arg2),
            ctypes.c_ulong(arg3),
            ctypes.c_ulong(arg4),
            ctypes.c_ulong(arg5),
        ),
        f"prctl({option})",
    )


def sethostname(name: str) -> None:
    raw = name.encode()
    _check(_libc.sethostname(raw, ctypes.c_size_t(len(raw))), "sethostname")


def drop_all_capabilities() -> None:
    """Empty the bounding, ambient, effective, permitted and inheritable sets."""
    cap = 0
    while cap < 64:
        try:
            prctl(PR_CAPBSET_DROP, cap)
        except OSError as exc:
            if exc.errno == 22:  # EINVAL: past the last capability this kernel knows
                break
            raise
        cap += 1
    try:
        prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL)
    except OSError as exc:
        if exc.errno != 22:  # kernels without ambient capabilities
            raise
    header = (ctypes.c_uint32 * 2)(_CAP_VERSION_3, 0)
    data = (ctypes.c_uint32 * 6)()
    _check(_libc.capset(header, data), "capset")


def install_seccomp(program: bytes) -> None:
    """Install a classic BPF seccomp filter (the caller must have set no_new_privs)."""
    count = len(program) // 8
    buffer = ctypes.create_string_buffer(program, len(program))
    fprog = struct.pack("HxxxxxxQ", count, ctypes.addressof(buffer))
    fprog_buffer = ctypes.create_string_buffer(fprog, len(fprog))
    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.addressof(fprog_buffer))


MADV_HUGEPAGE = 14
MADV_COLLAPSE = 25
HUGE_PAGE = 2 << 20


def collapse_anonymous_memory() -> int:
    """Back the private anonymous memory with transparent huge pages, as far as possible.

    fork() copies one page-table entry per 4 KiB page and exit() tears them down again: for a
    process with torch loaded that is ~7 ms of kernel time per run. With 2 MiB pages it is a
    fraction of that, and copy-on-write still copies 4 KiB at a time. Returns the number of huge
    pages made; 0 where the kernel cannot (MADV_COLLAPSE needs Linux 6.1).
    """
    madvise = _libc.madvise
    madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    collapsed = 0
    with open("/proc/self/maps") as maps:
        regions = [line.split() for line in maps]
    for fields in regions:
        name = fields[5] if len(fields) > 5 else ""
        if fields[1] != "rw-p" or name not in ("", "[heap]"):
            continue
        start, end = (int(value, 16) for value in fields[0].split("-"))
        start = (start + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1)
        end &= ~(HUGE_PAGE - 1)
        if end <= start:
            continue
        madvise(start, end - start, MADV_HUGEPAGE)
        if madvise(start, end - start, MADV_COLLAPSE) == 0:
            collapsed += (end - start) // HUGE_PAGE
    return collapsed


def write_file(path: str, content: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    try:
        os.write(fd, content.encode())
    finally:
        os.close(fd)
