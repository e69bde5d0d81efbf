# Redis for `make compose-smoke` only, from Debian's packages, for machines that reach no
# image registry. Runs as the redis user with its data in /data, like the official image.
ARG BASE_IMAGE=tensorcamp-base:bookworm
FROM ${BASE_IMAGE}
RUN printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d \
 && apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends redis-server \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /data && chown redis:redis /data
ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8
USER redis
WORKDIR /data
EXPOSE 6379
CMD ["redis-server", "--dir", "/data"]
