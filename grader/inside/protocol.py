"""Length-prefixed JSON messages over Unix stream sockets, optionally carrying file descriptors.

Both the host and the sandbox side use this module (the host imports it as
`grader.inside.protocol`), so the two ends can never disagree about framing.
"""

from __future__ import annotations

import array
import contextlib
import json
import socket
import struct
from typing import Any

HEADER = struct.Struct("!I")
MAX_MESSAGE_BYTES = 64 * 1024 * 1024
MAX_FDS = 8

Message = dict[str, Any]


class ChannelClosed(EOFError):
    """The peer closed the socket (usually because it exited)."""


def send(sock: socket.socket, message: Message, fds: list[int] | tuple[int, ...] = ()) -> None:
    payload = json.dumps(message, separators=(",", ":")).encode()
    data = HEADER.pack(len(payload)) + payload
    ancillary = []
    if fds:
        ancillary = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds).tobytes())]
    sent = sock.sendmsg([data], ancillary)
    if sent < len(data):
        sock.sendall(data[sent:])


def recv(sock: socket.socket) -> tuple[Message, list[int]]:
    """Read one message; the caller owns (and must close) the returned descriptors."""
    header, fds = _recv_header(sock)
    try:
        (length,) = HEADER.unpack(header)
        if length > MAX_MESSAGE_BYTES:
            raise ValueError(f"message of {length} bytes is over the limit")
        payload = _recv_exact(sock, length)
        message = json.loads(payload)
        if not isinstance(message, dict):
            raise ValueError("message is not a JSON object")
    except BaseException:
        close_all(fds)
        raise
    return message, fds


def close_all(fds: list[int]) -> None:
    import os

    for fd in fds:
        with contextlib.suppress(OSError):
            os.close(fd)


def _recv_header(sock: socket.socket) -> tuple[bytes, list[int]]:
    fds: list[int] = []
    chunks = b""
    ancillary_size = socket.CMSG_SPACE(MAX_FDS * array.array("i").itemsize)
    while len(chunks) < HEADER.size:
        data, ancillary, flags, _ = sock.recvmsg(
            HEADER.size - len(chunks), ancillary_size, socket.MSG_CMSG_CLOEXEC
        )
        for level, kind, raw in ancillary:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                received = array.array("i")
                received.frombytes(raw[: len(raw) - len(raw) % received.itemsize])
                fds.extend(received)
        if flags & socket.MSG_CTRUNC:
            close_all(fds)
            raise ValueError("file descriptors were truncated")
        if not data:
            close_all(fds)
            raise ChannelClosed("peer closed the channel")
        chunks += data
    return chunks, fds


def _recv_exact(sock: socket.socket, length: int) -> bytes:
    buffer = bytearray()
    while len(buffer) < length:
        data = sock.recv(min(length - len(buffer), 1 << 20))
        if not data:
            raise ChannelClosed("peer closed the channel mid-message")
        buffer += data
    return bytes(buffer)
