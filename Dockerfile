# The one livepeer-operator image (controller, API and the other subcommands), for registries:
#   docker build --build-arg COMMIT=$(git rev-parse HEAD) -t <registry>/livepeer-operator:<version> .
# (<version>: package.json's, the chart's appVersion). COMMIT is required: the context has no .git,
# and `livepeer-operator version` in the image prints the commit the build recorded.
# It is the image `npm run image` builds on a machine with no registry (src/dev/image/build.ts):
# the build stage runs that same build and the final stage is its root filesystem and nothing
# else. Contents: Debian's libc6, libgcc-s1 and libstdc++6 (unpacked, no apt/dpkg/shell), Node 24
# from the `node` npm package at /usr/local/bin/node, /app with the compiled CLI, production
# dependencies without the devnet's hardhat and @livepeer/sdk, the CRDs; /etc/passwd with
# nonroot 65532. See src/dev/image/*.ts for what is left out and why.
FROM node:24-bookworm-slim AS build
WORKDIR /src
# The root filesystem comes from Debian packages (apt-get download + dpkg-deb -x).
RUN apt-get update
COPY package.json package-lock.json ./
# With install scripts: the `node` dev dependency's script fetches the Node 24 binary the image ships.
RUN npm install --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY deploy/crds ./deploy/crds
ARG COMMIT
RUN test -n "$COMMIT" || { echo 'pass --build-arg COMMIT=$(git rev-parse HEAD): the image records the commit it is built from' >&2; exit 1; }
RUN node src/dev/image/build.ts --out /tmp/archives --rootfs /rootfs --commit "$COMMIT"

FROM scratch
COPY --from=build /rootfs/ /
USER 65532:65532
WORKDIR /app
ENV PATH=/usr/local/bin:/usr/bin:/bin NODE_ENV=production
ENTRYPOINT ["/usr/local/bin/node", "/app/dist/cli/main.js"]
CMD ["help"]
