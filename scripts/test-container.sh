#!/usr/bin/env bash
# npm run test:container: builds the Dockerfile with buildah (chroot isolation, vfs storage) and runs
# the image with podman (runc) as the always-on worker against this machine's Redis and PostgreSQL
# (host network), checked by test/container/ against the simulator. Needs root: Debian's buildah,
# podman, runc and debootstrap are installed with apt-get when missing.
set -euo pipefail
cd "$(dirname "$0")/.."

BASE_IMAGE=docker.io/library/node:20-bookworm-slim
IMAGE=localhost/callsync:container-test
# Outside the repository so a clean clone reuses the base image and the build's layers.
CACHE=${CALLSYNC_CONTAINER_CACHE:-/var/cache/callsync-container}
TOOLS=(buildah podman runc debootstrap)

if [ "$(id -u)" != 0 ]; then
  echo "test:container needs root (rootful buildah and podman, apt-get); run: sudo npm run test:container" >&2
  exit 1
fi
missing=()
for tool in "${TOOLS[@]}"; do command -v "$tool" >/dev/null || missing+=("$tool"); done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing Debian's ${missing[*]}"
  apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >/dev/null
fi

# Own storage and engine settings: vfs works on any filesystem (no overlay mounts in a sandbox), and
# cgroupfs with no default ulimits runs where neither systemd nor raising limits is available.
mkdir -p "$CACHE/storage"
cat >"$CACHE/storage.conf" <<CONF
[storage]
driver = "vfs"
graphroot = "$CACHE/storage"
runroot = "/run/callsync-container"
CONF
cat >"$CACHE/containers.conf" <<'CONF'
[containers]
default_ulimits = []
[engine]
cgroup_manager = "cgroupfs"
events_logger = "file"
runtime = "runc"
CONF
export CONTAINERS_STORAGE_CONF="$CACHE/storage.conf" CONTAINERS_CONF="$CACHE/containers.conf"

started=$(date +%s)
if podman image exists "$BASE_IMAGE"; then
  echo "base image $BASE_IMAGE: in the store"
elif timeout 120 podman pull --quiet "$BASE_IMAGE" >/dev/null 2>"$CACHE/pull.log"; then
  echo "base image $BASE_IMAGE: pulled"
else
  echo "base image $BASE_IMAGE: no registry answers ($(tail -1 "$CACHE/pull.log" | cut -c1-160)); building a stand-in"
  scripts/container/stand-in-base.sh "$BASE_IMAGE" "$CACHE/stand-in"
fi

# Where this machine reaches the npm registry through a TLS proxy, the build's npm must trust the
# same CA: a bind mount during RUN steps only (global npmrc + bundle), so nothing of it is in the image.
trust=()
ca=$(npm config get cafile 2>/dev/null || true)
if [ -z "$ca" ] || [ "$ca" = null ] || [ "$ca" = undefined ]; then ca=${NODE_EXTRA_CA_CERTS:-}; fi
if [ -n "$ca" ] && [ "$ca" != null ] && [ "$ca" != undefined ] && [ -f "$ca" ]; then
  printf 'cafile=/run/callsync-build/ca.crt\n' >"$CACHE/npmrc"
  trust=(--volume "$ca:/run/callsync-build/ca.crt:ro" --volume "$CACHE/npmrc:/usr/local/etc/npmrc:ro")
fi

# Docker format keeps the HEALTHCHECK (OCI has none); nice leaves the other users of the cores room.
bud() {
  nice -n 10 buildah bud --isolation chroot --network host --layers --pull=false --runtime runc "${trust[@]}" \
    --format docker --file Dockerfile "$@" . >>"$CACHE/build.log" 2>&1 ||
    { tail -40 "$CACHE/build.log" >&2; echo "image build failed (log: $CACHE/build.log)" >&2; exit 1; }
}
echo "building $IMAGE (buildah bud, chroot isolation)"
: >"$CACHE/build.log"
bud --tag "$IMAGE"
# Each stage's last layer tagged, so the prune below keeps the build stages' layers (toolchain,
# installed dependencies) for the next run. One build, not one per --target: with vfs every stage
# start copies its whole base, cached or not. The ids come from buildah's "[i/n] STEP k/k" lines.
awk '/^\[[0-9]+\/[0-9]+\] STEP / { sub(":", "", $3); split($3, k, "/"); split(substr($1, 2), st, "/"); last = (k[1] == k[2]) ? st[1] : ""; next }
     last != "" && /^--> [0-9a-f]+$/ { print last, $2; last = "" }' "$CACHE/build.log" |
  while read -r stage id; do podman tag "$id" "$IMAGE-stage$stage" 2>/dev/null || true; done
built=$(date +%s)
echo "built in $((built - started)) s"

CALLSYNC_CONTAINER_IMAGE="$IMAGE" npx vitest run --project container
# Layers of earlier builds that no tagged image needs any more (sources changed since), and the
# working containers a failed build leaves behind, which would hold them. The store is this
# script's own (CACHE), so nothing else's containers are here.
buildah rm --all >/dev/null 2>&1 || true
podman image prune --force >/dev/null 2>"$CACHE/prune.log" ||
  echo "warning: podman image prune failed ($(tail -1 "$CACHE/prune.log" | cut -c1-160)); the store keeps old layers" >&2
echo "test:container passed in $(($(date +%s) - started)) s (build $((built - started)) s)"
