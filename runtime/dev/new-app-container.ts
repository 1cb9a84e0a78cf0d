/**
 * The container image `fw new` writes (issue 44 item 6): a Dockerfile and its .dockerignore. Two
 * stages: the first installs every dependency (TypeScript, ts-patch, rolldown), builds and
 * bundles; the second holds the bundle, `public/`, `db/` and the production dependencies only,
 * and runs as the image's unprivileged `node` user. Docker, Podman and Buildah build it alike.
 */
export const DOCKERFILE = `# The app's container image: docker build -t app .   (or podman build / buildah build)
# Run: docker run -p 3000:3000 -e FW_SECRET=… -e FW_ORIGIN=https://app.example.com \\
#        -e DATABASE_URL=postgres://… -v app-files:/data/files app
# fw must come from a registry or a tarball inside this folder (npm install ./fw-x.y.z.tgz):
# a file: path outside the folder is not in the build's context.

# Build: every dependency (the compiler and the bundler are dev dependencies), then the bundle.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json* .npmrc* ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && npx fw bundle && mkdir -p db public \\
  && npm prune --omit=dev --no-audit --no-fund

# Run: the bundle and the production dependencies only, as the unprivileged node user.
FROM node:20-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 FW_STORAGE=file:///data/files
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist/bundle ./dist/bundle
COPY --from=build /app/public ./public
COPY --from=build /app/db ./db
# Uploads (fw/files) live in /data/files: a volume, so they outlive the container. .fw holds the
# embedded database of an app run without DATABASE_URL (one process): mount it too to keep it.
RUN mkdir -p /data/files /app/.fw && chown node:node /data/files /app/.fw
VOLUME ["/data/files"]
USER node
EXPOSE 3000
# /fw/health answers 200 once the app serves (503 while it starts or stops), whatever the Host.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \\
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/fw/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Migrations: run \`docker run … app node dist/bundle/main.js db migrate\` before a new version serves.
# --workers N and SIGHUP (docker kill -s HUP) reload without dropping requests.
CMD ["node", "--enable-source-maps", "dist/bundle/main.js"]
`;

/** What the image's build never needs to see: installs, builds, local data and secrets. */
export const DOCKERIGNORE = `node_modules
dist
.fw
*.tsbuildinfo
.env
.env.local
.git
npm-debug.log*
`;
