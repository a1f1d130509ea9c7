#!/usr/bin/env bash
# `npm test`'s pretest. The status-page test (test/e2e) drives Debian's Chromium through
# playwright-core, which brings no browser of its own: find it, install it when this user may,
# or stop before the suite starts with the one command that fixes it.
set -euo pipefail

if [ -n "${CALLSYNC_CHROMIUM:-}" ]; then
  # A browser chosen by hand is never replaced by the package.
  [ -x "$CALLSYNC_CHROMIUM" ] && exit 0
  echo "error: CALLSYNC_CHROMIUM=$CALLSYNC_CHROMIUM is not an executable file" >&2
  echo "fix: unset CALLSYNC_CHROMIUM (Debian's chromium at /usr/bin/chromium is used), or point it at a Chromium binary" >&2
  exit 1
fi

chromium=/usr/bin/chromium
[ -x "$chromium" ] && exit 0

install='apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium'
if ! command -v apt-get >/dev/null 2>&1; then
  echo "error: Chromium not found at $chromium, and this is not a Debian-like system (no apt-get)" >&2
  echo "fix: install Chromium, then run: CALLSYNC_CHROMIUM=/path/to/chromium npm test" >&2
  exit 1
fi

if [ "$(id -u)" = 0 ]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true >/dev/null 2>&1; then
  as_root=(sudo -n)
else
  if command -v sudo >/dev/null 2>&1; then fix="sudo sh -c '$install'"; else fix="su -c '$install'"; fi
  echo "error: Chromium not found at $chromium (the status-page test drives it), and this user may not install packages" >&2
  echo "fix: $fix" >&2
  exit 1
fi

echo "Chromium not found at $chromium: installing Debian's chromium package (${as_root[*]:-as root})" >&2
if ! "${as_root[@]}" sh -c "$install" >&2 || [ ! -x "$chromium" ]; then
  echo "error: installing Debian's chromium failed (see apt-get's output above)" >&2
  echo "fix: ${as_root[*]:+${as_root[*]} }sh -c '$install'" >&2
  exit 1
fi
echo "installed: $("$chromium" --version 2>/dev/null || echo "$chromium")" >&2
