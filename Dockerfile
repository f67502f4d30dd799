# Reference image of the service (docs/deploy.md). Two stages: the build stage compiles with dev
# dependencies (TypeScript, the just-bash patch step), the runtime stage keeps production
# dependencies and dist/ only, and runs as an unprivileged user with the SQLite data on a volume.
#   docker build -t agent-file-service .
#   docker run -p 3000:3000 -v afs-data:/data agent-file-service                       # SQLite
#   docker run -p 3000:3000 -e DATABASE_URL=postgres://… -e TRUST_PROXY=1 \
#     -e BASE_URL=https://www.example.com agent-file-service                          # behind a proxy
FROM node:20-bookworm-slim AS build
WORKDIR /app
# better-sqlite3 downloads a prebuilt binary; these build it when none fits the platform.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json tsconfig.client.json ./
COPY scripts ./scripts
COPY src ./src
COPY test ./test
COPY bin ./bin
COPY ui ./ui
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 DATA_DIR=/data LOG_FORMAT=json
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist/src ./dist/src
COPY --from=build /app/dist/ui ./dist/ui
COPY --from=build /app/bin ./bin
RUN groupadd --system afs && useradd --system --gid afs --home-dir /app --shell /usr/sbin/nologin afs \
  && mkdir -p /data && chown afs:afs /data
USER afs
VOLUME ["/data"]
EXPOSE 3000
# /healthz: the process is alive (/readyz would also fail while the database is away, which a
# restart does not fix).
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# SIGTERM: stop accepting, finish in-flight calls (SHUTDOWN_TIMEOUT_MS), close the store, exit 0.
STOPSIGNAL SIGTERM
CMD ["node", "dist/src/server.js"]
