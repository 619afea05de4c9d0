#!/usr/bin/env bash
# Installs Debian's chromium for the browser tests (Playwright drives /usr/bin/chromium;
# it cannot download its own browser builds here).
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    SUDO=sudo
else
    SUDO=
fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
/usr/bin/chromium --version
