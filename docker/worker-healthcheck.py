"""Docker HEALTHCHECK of a grader worker: healthy while this container's worker is announced
in Redis for the devices it should serve.

`python -m grader.worker` announces itself under `<namespace>:workers:<device>` (a sorted set:
worker id -> expiry time) only after its sandbox passed the self-test on that device, and
renews the announcement every few seconds while it runs. So a live, unexpired entry for this
container proves that the process is up, its sandbox started and Redis is reachable, at the
cost of one round trip (`python -m grader check` would start a sandbox and import torch on
every probe).
"""

from __future__ import annotations

import os
import socket
import sys
import time

import redis

from grader.queueing import DEFAULT_NAMESPACE, workers_key


def main() -> int:
    url = os.environ.get("REDIS_URL")
    if not url:
        print("REDIS_URL is not set")
        return 1
    namespace = os.environ.get("GRADER_NAMESPACE", DEFAULT_NAMESPACE)
    wanted = [d.strip() for d in os.environ.get("GRADER_DEVICES", "").split(",") if d.strip()]
    own_id = os.environ.get("GRADER_WORKER_ID")
    prefix = f"{socket.gethostname()}-"

    def ours(member: bytes) -> bool:
        name = member.decode()
        return name == own_id if own_id else name.startswith(prefix)

    client = redis.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=5)
    now = time.time()
    try:
        if wanted:
            keys = [workers_key(namespace, device) for device in wanted]
        else:
            keys = [k.decode() for k in client.scan_iter(match=workers_key(namespace, "*"))]
        serving = {
            key.rsplit(":", 1)[-1]
            for key in keys
            if any(ours(m) for m in client.zrangebyscore(key, now, "+inf"))
        }
    except redis.RedisError as exc:
        print(f"redis unreachable: {exc}")
        return 1
    missing = [d for d in wanted if d not in serving]
    if missing or not serving:
        print(f"not announced for {', '.join(missing) or 'any device'}")
        return 1
    print(f"serving {', '.join(sorted(serving))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
