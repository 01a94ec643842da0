# syntax=docker/dockerfile:1
# vmss-ops: the service with its built-in ARM simulator. Node 24 runs the TypeScript sources directly
# (type stripping), so there is no build step: the image is production dependencies plus src/.
#   docker build -t vmss-ops .                                    the service with the embedded simulator (the demo)
#   docker build --target production -t vmss-ops:production .     the service alone, for real Azure (SIMULATOR=off)
#   docker build --target vmss-sim -t vmss-sim .                  the ARM simulator alone (packages/vmss-simulator)
#   docker run --rm -p 7002:7002 -p 7003:7003 vmss-ops
# See docs/container.md; test/container.test.ts runs this file's CMD, ENV and HEALTHCHECK natively.

ARG NODE_VERSION=24

# ---- production dependencies only, exactly as locked (the simulator's package is linked as a workspace) ----
FROM node:${NODE_VERSION}-slim AS deps
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
COPY packages/vmss-simulator/package.json ./packages/vmss-simulator/
# --ignore-scripts: no production dependency has an install script (only the dev-only "node" package does).
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 && npm cache clean --force

# ---- vmss-sim: the ARM simulator alone, for a CI that wants only the emulator ----
# One npm package at run time, as locked: @sinclair/typebox (its control API's fault schemas); its control client,
# which uses undici, is not part of the command.
FROM node:${NODE_VERSION}-slim AS vmss-sim
LABEL org.opencontainers.image.title="vmss-sim" \
      org.opencontainers.image.description="An emulator of Azure Resource Manager for Microsoft.Compute VM Scale Sets"
# NODE_EXTRA_CA_CERTS: the health check's fetch trusts the simulator's own certificate.
ENV NODE_ENV=production \
    SIMULATOR_HOST=0.0.0.0 \
    SIMULATOR_PORT=7003 \
    NODE_EXTRA_CA_CERTS=/vmss-sim/src/tls/simulator-cert.pem
WORKDIR /vmss-sim
COPY packages/vmss-simulator/package.json ./
COPY packages/vmss-simulator/bin ./bin
COPY packages/vmss-simulator/src ./src
COPY --from=deps /app/node_modules/@sinclair/typebox ./node_modules/@sinclair/typebox
RUN chmod -R a+rX,go-w package.json bin src node_modules
USER node
EXPOSE 7003
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('https://127.0.0.1:' + (process.env.SIMULATOR_PORT || 7003) + '/_sim/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
STOPSIGNAL SIGTERM
CMD ["node", "bin/vmss-sim.js"]

# ---- the service's files, shared by the two service images below ----
FROM node:${NODE_VERSION}-slim AS service
# HOST: listen on every interface, not the loopback default.
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=7002 \
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
# The task store's volume, writable by the runtime user only.
RUN install -d -o node -g node -m 0700 /var/lib/vmss-ops
VOLUME ["/var/lib/vmss-ops"]
# Node's compile cache, filled in each image below (scripts/warm-compile-cache.ts): a container's first start then
# reads its modules type-stripped and compiled, where it would strip and compile every one of them, some 250-550 ms
# of start-up and, for the process's life, Node's TypeScript stripper (about 25 MB). Filled by the runtime user,
# since Node keeps each user's entries apart (a directory named after the uid), then root's and read-only.
ENV NODE_COMPILE_CACHE=/app/.compile-cache

# ---- production: the service alone, for real Azure accounts; no simulator in the image ----
FROM service AS production
LABEL org.opencontainers.image.title="vmss-ops" \
      org.opencontainers.image.description="Operations on Azure VM Scale Sets (Spinnaker Clouddriver compatible)"
ENV SIMULATOR=off
# The workspace link npm ci made points at a package this image does not hold.
RUN rm node_modules/vmss-simulator
RUN install -d -o node -g node -m 0700 .compile-cache
USER node
RUN node --max-semi-space-size=8 scripts/warm-compile-cache.ts
USER root
RUN chown -R root:root .compile-cache && chmod -R a+rX,go-w .compile-cache
USER node
EXPOSE 7002
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 7002) + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
STOPSIGNAL SIGTERM
CMD ["node", "--max-semi-space-size=8", "src/main.js"]

# ---- runtime (the default): the service with its embedded simulator, the demo ----
FROM service AS runtime
LABEL org.opencontainers.image.title="vmss-ops" \
      org.opencontainers.image.description="Operations on Azure VM Scale Sets (Spinnaker Clouddriver compatible), with a built-in ARM simulator"
# SIMULATOR_HOST: every interface, so that the simulator's control API (/_sim) is reachable on the published port;
# the service itself still calls it via 127.0.0.1.
ENV SIMULATOR=embedded \
    SIMULATOR_HOST=0.0.0.0 \
    SIMULATOR_PORT=7003
# The simulator's package, where npm ci's workspace link (node_modules/vmss-simulator) points.
COPY packages/vmss-simulator/package.json packages/vmss-simulator/index.js packages/vmss-simulator/settings.js ./packages/vmss-simulator/
COPY packages/vmss-simulator/src ./packages/vmss-simulator/src
RUN chmod -R a+rX,go-w packages
RUN install -d -o node -g node -m 0700 .compile-cache
USER node
RUN node --max-semi-space-size=8 scripts/warm-compile-cache.ts
USER root
RUN chown -R root:root .compile-cache && chmod -R a+rX,go-w .compile-cache
USER node
EXPOSE 7002 7003
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 7002) + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
STOPSIGNAL SIGTERM
# V8's start-up heap flag given here (src/node-process.ts's START_HEAP_FLAGS): without it the service starts
# itself again with it, a second Node start. src/main.js, plain JavaScript, turns Node's compile cache on before
# the first TypeScript module is read, so Node never loads its type stripper once the cache is warm.
CMD ["node", "--max-semi-space-size=8", "src/main.js"]
