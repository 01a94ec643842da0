# syntax=docker/dockerfile:1
# vmss-ops: the service with its built-in ARM simulator. Node 24 runs the TypeScript sources directly
# (type stripping), so there is no build step: the image is production dependencies plus src/.
#   docker build -t vmss-ops .
#   docker run --rm -p 7002:7002 -p 7003:7003 vmss-ops
# See docs/container.md; test/container.test.ts runs this file's CMD, ENV and HEALTHCHECK natively.

ARG NODE_VERSION=24

# ---- production dependencies only, exactly as locked ----
FROM node:${NODE_VERSION}-slim AS deps
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
# --ignore-scripts: no production dependency has an install script (only the dev-only "node" package does).
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 && npm cache clean --force

# ---- runtime ----
FROM node:${NODE_VERSION}-slim AS runtime
LABEL org.opencontainers.image.title="vmss-ops" \
      org.opencontainers.image.description="Operations on Azure VM Scale Sets (Spinnaker Clouddriver compatible), with a built-in ARM simulator"
# HOST: listen on every interface, not the loopback default. SIMULATOR_HOST likewise, so that the simulator's
# control API (/_sim) is reachable on the published port; the service itself still calls it via 127.0.0.1.
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=7002 \
    SIMULATOR=embedded \
    SIMULATOR_HOST=0.0.0.0 \
    SIMULATOR_PORT=7003 \
    TASK_STORE=sqlite \
    DATA_DIR=/var/lib/vmss-ops
WORKDIR /app
# Files stay owned by root and read-only for the runtime user; the only thing written is the task store, in DATA_DIR
# (a volume). With DATABASE_URL set (TASK_STORE=postgres), nothing is written at all.
COPY --from=deps /app/node_modules ./node_modules
COPY package.json package-lock.json ./
COPY src ./src
COPY openapi ./openapi
COPY scripts/warm-compile-cache.ts ./scripts/
# COPY keeps the build context's file modes; a key generated locally may be 0600, which USER node could not read.
RUN chmod -R a+rX,go-w package.json package-lock.json src openapi scripts
# Node's compile cache, filled now (scripts/warm-compile-cache.ts): a container's first start then reads its modules
# type-stripped and compiled, where it would strip and compile every one of them, some 250-550 ms of start-up and,
# for the process's life, Node's TypeScript stripper (about 25 MB). Filled by the runtime user, since Node keeps each
# user's entries apart (a directory named after the uid), then root's and read-only like the rest of /app.
ENV NODE_COMPILE_CACHE=/app/.compile-cache
RUN install -d -o node -g node -m 0700 .compile-cache
USER node
RUN node --max-semi-space-size=8 scripts/warm-compile-cache.ts
USER root
RUN chown -R root:root .compile-cache && chmod -R a+rX,go-w .compile-cache
# The task store's volume, writable by the runtime user only.
RUN install -d -o node -g node -m 0700 /var/lib/vmss-ops
VOLUME ["/var/lib/vmss-ops"]
USER node
EXPOSE 7002 7003
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 7002) + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
STOPSIGNAL SIGTERM
# V8's start-up heap flag given here (src/node-process.ts's START_HEAP_FLAGS): without it the service starts
# itself again with it, a second Node start. src/main.js, plain JavaScript, turns Node's compile cache on before
# the first TypeScript module is read, so Node never loads its type stripper once the cache is warm.
CMD ["node", "--max-semi-space-size=8", "src/main.js"]
