#!/usr/bin/env bash
# make deb: the three programs, their man pages and bash/zsh completions
# as one Debian package, runai-tools_<version>_<arch>.deb, for the hosts
# admins carry into air-gapped sites. Built from the tree's own build
# (BUILD_DIR), installed into a staging root under it with "make
# install", and packed with dpkg-deb (owner root, no fakeroot needed).
# Depends is computed from the binaries' libraries by dpkg-shlibdeps.
#
#   contrib/deb/build-deb.sh VERSION BUILD_DIR OUT_DIR
#
# DEB_STAGE names another staging directory than BUILD_DIR/deb (tests
# build a package beside make deb's).
set -eu
# dpkg-deb packs the modes it finds: whatever the caller's umask, what
# this script writes is 0644/0755 (a umask of 000 shipped 0666 files)
umask 022
version=$1 build=$(cd "$2" && pwd) out=$3
top=$(cd "$(dirname "$0")/../.." && pwd)
arch=$(dpkg --print-architecture)
pkg=runai-tools
stage=${DEB_STAGE:-$build/deb}
root=$stage/root
doc=$root/usr/share/doc/$pkg

rm -rf "$stage"
mkdir -p "$root/DEBIAN" "$doc"
# the programs of BUILD_DIR, not of the default build
make -C "$top" --no-print-directory install O="$build" DESTDIR="$root" PREFIX=/usr \
	ZSHCOMPDIR=/usr/share/zsh/vendor-completions >/dev/null
# Debian wants stripped programs and man pages compressed (-n: no name
# or time in the header, so the package is the same on every build)
strip --strip-unneeded --remove-section=.comment --remove-section=.note \
	"$root/usr/bin/runai" "$root/usr/bin/rntop" "$root/usr/sbin/runai-adm"
find "$root/usr/share/man" -type f -exec gzip -9n {} +

sed "s/@VERSION@/$version/" "$top/contrib/deb/copyright" >"$doc/copyright"
# a native package (no Debian revision): its changelog is changelog.gz
sed "s/@VERSION@/$version/" "$top/contrib/deb/changelog" | gzip -9n >"$doc/changelog.gz"

# dpkg-shlibdeps reads debian/control from where it runs
mkdir -p "$stage/src/debian"
printf 'Source: %s\n\nPackage: %s\nArchitecture: any\n' "$pkg" "$pkg" >"$stage/src/debian/control"
depends=$(cd "$stage/src" && dpkg-shlibdeps -O -e"$root/usr/bin/runai" \
	-e"$root/usr/bin/rntop" -e"$root/usr/sbin/runai-adm" 2>/dev/null |
	sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || { echo "build-deb: dpkg-shlibdeps found no dependencies" >&2; exit 1; }
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
sed -e "s/@VERSION@/$version/" -e "s/@ARCH@/$arch/" -e "s/@DEPENDS@/$depends/" \
	-e "s/@SIZE@/$size/" "$top/contrib/deb/control" >"$root/DEBIAN/control"
(cd "$root" && find usr -type f -exec md5sum {} + | sort -k2) >"$root/DEBIAN/md5sums"
find "$root" -type d -exec chmod 755 {} +
chmod 644 "$root/DEBIAN/control" "$root/DEBIAN/md5sums" "$doc/copyright" "$doc/changelog.gz"

mkdir -p "$out"
deb="$out/${pkg}_${version}_${arch}.deb"
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "$deb"
