"""A seccomp filter, written as classic BPF by hand (no libseccomp needed).

It is a deny list: everything an ordinary PyTorch program uses stays allowed, while calls that
reach into other processes, the kernel's configuration or new namespaces fail with EPERM.
Built on the host and handed to the sandbox as bytes.
"""

from __future__ import annotations

import errno
import platform
import struct
from dataclasses import dataclass

AF_UNIX = 1
# Every CLONE_NEW* flag clone() accepts (CLONE_NEWTIME shares its bit with the exit signal
# there and only works through clone3 and unshare, both refused outright).
CLONE_NAMESPACE_FLAGS = 0x7E020000

_RET_ALLOW = 0x7FFF0000
_RET_ERRNO = 0x00050000
_LD_ABS_W = 0x20
_JEQ_K = 0x15
_JGE_K = 0x35
_JSET_K = 0x45
_RET_K = 0x06

_OFFSET_NR = 0
_OFFSET_ARCH = 4
_OFFSET_ARG0 = 16  # low 32 bits on little-endian machines


@dataclass(frozen=True)
class Arch:
    audit_arch: int
    syscalls: dict[str, int]
    # x86-64 also accepts x32 calls (numbers with bit 30 set) that must not slip past the table.
    max_native: int | None = None


DENIED = (
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd",
    "process_madvise", "move_pages", "migrate_pages",
    "mount", "umount2", "pivot_root", "chroot", "open_tree", "move_mount", "fsopen",
    "fsconfig", "fsmount", "fspick", "mount_setattr",
    "unshare", "setns",
    "bpf", "perf_event_open", "userfaultfd", "fanotify_init",
    # The interpreter's files are shared by all runs: watching them would show what others do.
    "inotify_init", "inotify_init1", "inotify_add_watch",
    "keyctl", "add_key", "request_key",
    "kexec_load", "kexec_file_load", "reboot", "init_module", "finit_module", "delete_module",
    "acct", "swapon", "swapoff", "quotactl", "quotactl_fd", "syslog", "vhangup",
    "open_by_handle_at", "name_to_handle_at", "lookup_dcookie",
    "settimeofday", "clock_settime", "clock_adjtime", "adjtimex",
    "io_uring_setup", "io_uring_enter", "io_uring_register",
    # Quotas the kernel counts per host user or host-wide, which every run would share: the
    # asynchronous-I/O event pool (fs.aio-max-nr), POSIX message-queue bytes, secret memory.
    "io_setup", "io_destroy", "io_submit", "io_cancel", "io_getevents", "io_pgetevents",
    "mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive", "mq_notify", "mq_getsetattr",
    "memfd_secret",
    "iopl", "ioperm", "uselib", "nfsservctl",
)  # fmt: skip

X86_64 = Arch(
    audit_arch=0xC000003E,
    max_native=0x40000000,
    syscalls={
        "ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311, "kcmp": 312,
        "pidfd_getfd": 438, "process_madvise": 440, "move_pages": 279, "migrate_pages": 256,
        "mount": 165, "umount2": 166, "pivot_root": 155, "chroot": 161, "open_tree": 428,
        "move_mount": 429, "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433,
        "mount_setattr": 442, "unshare": 272, "setns": 308, "bpf": 321,
        "perf_event_open": 298, "userfaultfd": 323, "fanotify_init": 300, "keyctl": 250,
        "add_key": 248, "request_key": 249, "kexec_load": 246, "kexec_file_load": 320,
        "reboot": 169, "init_module": 175, "finit_module": 313, "delete_module": 176,
        "acct": 163, "swapon": 167, "swapoff": 168, "quotactl": 179, "quotactl_fd": 443,
        "syslog": 103, "vhangup": 153, "open_by_handle_at": 304, "name_to_handle_at": 303,
        "lookup_dcookie": 212, "settimeofday": 164, "clock_settime": 227,
        "clock_adjtime": 305, "adjtimex": 159, "io_uring_setup": 425, "io_uring_enter": 426,
        "io_uring_register": 427, "iopl": 172, "ioperm": 173, "uselib": 134,
        "nfsservctl": 180, "inotify_init": 253, "inotify_add_watch": 254, "inotify_init1": 294,
        "io_setup": 206, "io_destroy": 207, "io_getevents": 208, "io_submit": 209,
        "io_cancel": 210, "io_pgetevents": 333, "mq_open": 240, "mq_unlink": 241,
        "mq_timedsend": 242, "mq_timedreceive": 243, "mq_notify": 244, "mq_getsetattr": 245,
        "memfd_secret": 447,
        "socket": 41, "socketpair": 53, "clone": 56, "clone3": 435,
    },
)  # fmt: skip

AARCH64 = Arch(
    audit_arch=0xC00000B7,
    syscalls={
        "ptrace": 117, "process_vm_readv": 270, "process_vm_writev": 271, "kcmp": 272,
        "pidfd_getfd": 438, "process_madvise": 440, "move_pages": 239, "migrate_pages": 238,
        "mount": 40, "umount2": 39, "pivot_root": 41, "chroot": 51, "open_tree": 428,
        "move_mount": 429, "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433,
        "mount_setattr": 442, "unshare": 97, "setns": 268, "bpf": 280,
        "perf_event_open": 241, "userfaultfd": 282, "fanotify_init": 262, "keyctl": 219,
        "add_key": 217, "request_key": 218, "kexec_load": 104, "kexec_file_load": 294,
        "reboot": 142, "init_module": 105, "finit_module": 273, "delete_module": 106,
        "acct": 89, "swapon": 224, "swapoff": 225, "quotactl": 60, "quotactl_fd": 443,
        "syslog": 116, "vhangup": 58, "open_by_handle_at": 265, "name_to_handle_at": 264,
        "lookup_dcookie": 18, "settimeofday": 170, "clock_settime": 112,
        "clock_adjtime": 266, "adjtimex": 171, "io_uring_setup": 425, "io_uring_enter": 426,
        "io_uring_register": 427, "nfsservctl": 42, "inotify_init1": 26, "inotify_add_watch": 27,
        "io_setup": 0, "io_destroy": 1, "io_submit": 2, "io_cancel": 3, "io_getevents": 4,
        "io_pgetevents": 292, "mq_open": 180, "mq_unlink": 181, "mq_timedsend": 182,
        "mq_timedreceive": 183, "mq_notify": 184, "mq_getsetattr": 185, "memfd_secret": 447,
        "socket": 198, "socketpair": 199,
        "clone": 220, "clone3": 435,
    },
)  # fmt: skip

ARCHES = {"x86_64": X86_64, "amd64": X86_64, "aarch64": AARCH64, "arm64": AARCH64}


class UnsupportedArchitecture(RuntimeError):
    pass


def build_filter(machine: str | None = None) -> bytes:
    """The filter program for this machine's architecture, as `struct sock_filter[]` bytes."""
    machine = machine or platform.machine()
    arch = ARCHES.get(machine.lower())
    if arch is None:
        raise UnsupportedArchitecture(f"no seccomp syscall table for {machine}")
    return _assemble(arch)


def _assemble(arch: Arch) -> bytes:
    # Instructions are (code, jt, jf, k); jt/jf may be labels, resolved once the layout is known.
    program: list[tuple[int, int | str, int | str, int]] = []
    labels: dict[str, int] = {}

    def emit(code: int, k: int, jt: int | str = 0, jf: int | str = 0) -> None:
        program.append((code, jt, jf, k))

    def label(name: str) -> None:
        labels[name] = len(program)

    nr = arch.syscalls
    emit(_LD_ABS_W, _OFFSET_ARCH)
    emit(_JEQ_K, arch.audit_arch, jt=0, jf="deny")  # a foreign ABI has other numbers
    emit(_LD_ABS_W, _OFFSET_NR)
    if arch.max_native is not None:
        emit(_JGE_K, arch.max_native, jt="deny")
    for name in DENIED:
        if name in nr:
            emit(_JEQ_K, nr[name], jt="deny")
    emit(_JEQ_K, nr["socket"], jt="check_family")
    emit(_JEQ_K, nr["socketpair"], jt="check_family")
    emit(_JEQ_K, nr["clone"], jt="check_clone")
    # clone3 passes its flags in memory, out of the filter's sight: make libc fall back to clone.
    emit(_JEQ_K, nr["clone3"], jt="no_such_call")
    emit(_RET_K, _RET_ALLOW)
    label("check_family")
    emit(_LD_ABS_W, _OFFSET_ARG0)
    emit(_JEQ_K, AF_UNIX, jt="allow", jf="deny")
    label("check_clone")
    emit(_LD_ABS_W, _OFFSET_ARG0)
    emit(_JSET_K, CLONE_NAMESPACE_FLAGS, jt="deny", jf="allow")
    label("no_such_call")
    emit(_RET_K, _RET_ERRNO | errno.ENOSYS)
    label("deny")
    emit(_RET_K, _RET_ERRNO | errno.EPERM)
    label("allow")
    emit(_RET_K, _RET_ALLOW)

    out = bytearray()
    for index, (code, jt, jf, k) in enumerate(program):
        out += struct.pack("=HBBI", code, _offset(jt, index, labels), _offset(jf, index, labels), k)
    return bytes(out)


def _offset(target: int | str, index: int, labels: dict[str, int]) -> int:
    if isinstance(target, int):
        return target
    offset = labels[target] - index - 1
    if not 0 <= offset <= 255:
        raise ValueError(f"jump to {target} out of range")
    return offset
