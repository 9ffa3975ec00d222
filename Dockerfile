# The one livepeer-operator image (controller, API and node simulator are subcommands).
# Multi-stage: build with the full Node 24 image, run on distroless Node 24 as non-root.
FROM node:24-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
# Install scripts are skipped: the image's Node is already 24 (the `node` dev dependency is for dev machines).
RUN npm install --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY bin ./bin
COPY deploy/crds ./deploy/crds
RUN npx tsc -p tsconfig.build.json \
 && npm prune --omit=dev --ignore-scripts \
 && rm -rf node_modules/hardhat node_modules/@livepeer/sdk/abis/test

FROM gcr.io/distroless/nodejs24-debian12:nonroot
WORKDIR /app
COPY --from=build /src/package.json ./package.json
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/dist ./dist
COPY --from=build /src/deploy/crds ./deploy/crds
USER 65532:65532
ENV NODE_ENV=production
ENTRYPOINT ["/nodejs/bin/node", "/app/dist/cli/main.js"]
CMD ["help"]
