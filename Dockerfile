# callsync: build stages compile TypeScript and the native better-sqlite3 addon; the runtime stage
# carries only production dependencies and dist/, and runs as an unprivileged user.
FROM node:20-bookworm-slim AS toolchain
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./

# Production dependencies only (native addons need the toolchain the runtime lacks), apart from the
# sources: a change to src/ rebuilds from the cached layers without installing them again.
FROM toolchain AS deps
RUN npm ci --omit=dev

FROM toolchain AS build
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY connectors ./connectors
COPY simulator ./simulator
RUN npm run build

FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
USER node
# The status server (server.port); bind server.host to 0.0.0.0 in the mounted config.
EXPOSE 9464
# No curl in slim images: a Node one-liner against /healthz (never needs the token).
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.CALLSYNC_HEALTH_PORT||9464)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# SIGTERM from `docker stop` is a graceful shutdown (worker.shutdownTimeoutMs, default 25 s).
STOPSIGNAL SIGTERM
CMD ["node", "--max-old-space-size=1024", "dist/src/entry/cli/main.js", "run", "--config", "/config/callsync.yaml"]
