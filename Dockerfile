# syntax=docker/dockerfile:1
# The gateway as an image: `docker build -t federation-gateway .` then `docker run -p 4000:4000 federation-gateway`.
# Without upstream credentials it serves the sandbox, as `npm start` does. `.ci/dockerfile-rehearsal.mjs` runs these
# steps in a clean directory (the CI machine has no Docker engine).

# Build stage: all dependencies, to compile TypeScript and bundle GraphiQL.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# A cache mount keeps npm's download cache out of the layers.
RUN --mount=type=cache,target=/root/.npm npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY schema ./schema
COPY src ./src
# The build's own tools (src/build: GraphiQL bundle, schema) and the benchmarks (src/bench) stay in this stage: the
# runtime needs neither, and a benchmark's load generator has no business in a served image.
RUN npm run build && rm -rf dist/build dist/bench

# Runtime stage: production dependencies and the compiled output only, run as the unprivileged `node` user.
FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production HOST=0.0.0.0 PORT=4000
WORKDIR /app
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm npm ci --omit=dev --no-audit --no-fund
COPY --from=build /app/dist ./dist
COPY schema ./schema
COPY operations ./operations
USER node
EXPOSE 4000
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 4000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "--max-semi-space-size=4", "--no-parallel-scavenge", "--liftoff-only", "--heap-growing-percent=20", "dist/bundle/gateway.js"]
