#!/usr/bin/env bash
# The official OASIS XLIFF 1.2 strict schema, as Debian ships it inside php-symfony-translation
# (downloaded and unpacked only; nothing is installed). Tests validate our XLIFF against it.
set -euo pipefail
cd "$(dirname "$0")/.."
dest=.babelflow/schemas
[ -f "$dest/xliff-core-1.2-strict.xsd" ] && exit 0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
apt-get download php-symfony-translation >/dev/null 2>&1 || { apt-get update -qq >/dev/null 2>&1; apt-get download php-symfony-translation >/dev/null 2>&1; }
dpkg -x php-symfony-translation_*.deb x
cd - >/dev/null
mkdir -p "$dest"
cp "$work"/x/usr/share/php/Symfony/Component/Translation/Resources/schemas/{xliff-core-1.2-strict.xsd,xml.xsd} "$dest/"
echo "XLIFF 1.2 schema in $dest"
