#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t-deb.sh DEB - the Debian package installed, used and purged.
# In a scratch root (dpkg --root), as an upgrade from nilfs-tools where its
# package is at hand (apt's cache, else apt-get download): nilfs-tools is
# installed and its /etc/nilfs_cleanerd.conf edited, then DEB takes its
# place (Conflicts/Replaces): every program both have is at nilfs-tools'
# path, and the edited configuration file is kept.  Then the autopkgtest
# smoke test (debian/tests/smoke) runs the installed programs on an image
# file, the guest runs the installed layout under the real kernel
# (installed.sh: mount(8) runs our helper from /sbin, which starts our
# cleaner, GParted's and libblockdev's command lines from PATH), and
# dpkg --purge leaves the scratch root's files as they were before.
#
# Exit status follows automake conventions: 0 pass, 1 fail, 77 skip
# (99 if CI=true and the kernel test dependencies are missing).

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "${top_srcdir:-$here/../..}" && pwd)

[ $# -eq 1 ] && [ -f "$1" ] || { echo "usage: t-deb.sh NILFSPROGS.deb" >&2; exit 2; }
deb=$(cd "$(dirname "$1")" && pwd)/${1##*/}
command -v dpkg >/dev/null 2>&1 || { echo "SKIP: no dpkg"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "SKIP: dpkg --root needs root"; exit 77; }
"$here/guest.sh" require || exit
. "$here/installed.sh"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-deb.XXXXXX") || exit 1
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
fail() {
	echo "FAIL: $*"
	exit 1
}
root=$tmp/root
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates" || exit 1
: >"$root/var/lib/dpkg/status"
# the libraries the packages depend on are the host's (the guest gets
# copies), not packages of the scratch root
dpkg_root() {
	dpkg --root="$root" --log=/dev/null --force-depends "$@"
}
# the scratch root's files and directories, dpkg's database aside
files() {
	(cd "$root" && find . ! -path './var/lib/dpkg/*') | LC_ALL=C sort
}
files >"$tmp/before"

# nilfs-tools first, its configuration file edited, where its package is
# at hand
theirs=$(ls /var/cache/apt/archives/nilfs-tools_*.deb 2>/dev/null | tail -n 1)
if [ -z "$theirs" ] && command -v apt-get >/dev/null 2>&1; then
	(cd "$tmp" && apt-get download -q nilfs-tools >/dev/null 2>&1)
	theirs=$(ls "$tmp"/nilfs-tools_*.deb 2>/dev/null | tail -n 1)
fi
if [ -n "$theirs" ]; then
	dpkg_root -i "$theirs" >"$tmp/dpkg.out" 2>&1 || { cat "$tmp/dpkg.out"; fail "dpkg -i $theirs"; }
	dpkg-deb -c "$theirs" | awk '{ print $6 }' | sed -n 's|^\.\(/.*bin/.*[^/]\)$|\1|p' |
		sort >"$tmp/theirs.progs"
	echo "# edited by t-deb.sh" >>"$root/etc/nilfs_cleanerd.conf"
	echo "upgrade from ${theirs##*/}"
else
	echo "note: no nilfs-tools package at hand: a fresh install only"
fi

# ours: in nilfs-tools' place (with a prompt about the edited
# configuration file, apt's noninteractive answer: keep it)
dpkg_root --force-confold -i "$deb" >"$tmp/dpkg.out" 2>&1 </dev/null ||
	{ cat "$tmp/dpkg.out"; fail "dpkg -i $deb"; }
grep "nilfs-tools\|onfig\|==>" "$tmp/dpkg.out" | sed "s/^/  /"
dpkg-query --root="$root" -W -f='${db:Status-Abbrev}\n' nilfsprogs | grep -q '^ii' ||
	fail "nilfsprogs is not installed"
if [ -n "$theirs" ]; then
	dpkg-query --root="$root" -W -f='${db:Status-Abbrev}\n' nilfs-tools 2>/dev/null | grep -q '^ii' &&
		fail "nilfs-tools is still installed beside nilfsprogs"
	grep -qx '# edited by t-deb.sh' "$root/etc/nilfs_cleanerd.conf" ||
		fail "the edited /etc/nilfs_cleanerd.conf was not kept"
	# every program both packages have is where nilfs-tools had it
	while read -r p; do
		mine=$(dpkg-query --root="$root" -L nilfsprogs | grep "/${p##*/}\$" | grep 'bin/')
		[ -z "$mine" ] || [ "$mine" = "$p" ] ||
			fail "${p##*/}: nilfs-tools has $p, nilfsprogs $mine"
	done <"$tmp/theirs.progs"
fi
# everything the package lists is there
dpkg-query --root="$root" -L nilfsprogs | while read -r f; do
	[ -e "$root$f" ] || [ -L "$root$f" ] || { echo "FAIL: $f is missing"; exit 1; }
done || exit 1
grep -qx /etc/nilfs_cleanerd.conf "$root/var/lib/dpkg/info/nilfsprogs.conffiles" ||
	fail "/etc/nilfs_cleanerd.conf is not a conffile"

# as autopkgtest runs it: any output on stderr is a failure
PATH=$root/sbin:$root/usr/sbin:$root/usr/bin:$PATH sh "$src/debian/tests/smoke" >"$tmp/smoke.out" 2>"$tmp/smoke.err" ||
	{ cat "$tmp/smoke.out" "$tmp/smoke.err"; fail "debian/tests/smoke on the installed package"; }
[ ! -s "$tmp/smoke.err" ] || { cat "$tmp/smoke.err"; fail "debian/tests/smoke wrote to stderr"; }
grep -q "^$root/sbin/mkfs.nilfs2: " "$tmp/smoke.out" || { cat "$tmp/smoke.out"; fail "smoke: not the installed mkfs.nilfs2"; }
echo "ok: debian/tests/smoke"

check_installed "$root" "$tmp" || exit 1

dpkg_root --purge nilfsprogs >"$tmp/dpkg.out" 2>&1 || { cat "$tmp/dpkg.out"; fail "dpkg --purge nilfsprogs"; }
# nilfs-tools' configuration left behind when it was replaced
[ -z "$theirs" ] || dpkg_root --purge nilfs-tools >"$tmp/dpkg.out" 2>&1 ||
	{ cat "$tmp/dpkg.out"; fail "dpkg --purge nilfs-tools"; }
files >"$tmp/after"
if ! cmp -s "$tmp/before" "$tmp/after"; then
	echo "FAIL: after dpkg --purge, the scratch root differs from before the install:"
	diff "$tmp/before" "$tmp/after" | sed -n 's/^[<>] /  /p' | head -n 20
	exit 1
fi
echo "ok: dpkg --purge left $(wc -l <"$tmp/after") files and directories as they were"
echo "PASS: $0"
