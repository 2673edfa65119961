#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# fetch-kernels.sh - fetch and unpack the kernels users run, and a newer
# nilfs-tools, from Debian's archive, for the real-kernel tests.
#
# Usage:
#   fetch-kernels.sh kernel SUITE   the newest amd64 kernel of SUITE
#                                   (trixie, sid, ...); prints the path of
#                                   a file to source, which sets
#                                   NILFS_KTEST_KERNEL, NILFS_KTEST_MODDIR
#                                   and KTEST_KVER
#   fetch-kernels.sh oracle [SUITE] nilfs-tools of SUITE (default sid) with
#                                   the libraries it runs on (its own C
#                                   library: the host's may be too old);
#                                   prints the directory for
#                                   NILFS_KTEST_ORACLE (guest.sh)
#
# Exit status: 0, or 77 when the archive cannot be reached or has no such
# package and nothing is cached (the callers skip), 1 on other errors.
#
# The host's apt state is never touched: each suite has its own sources
# list, package lists, cache and an empty dpkg status under
# $NILFS_KTEST_CACHE/apt/SUITE, and the packages are only downloaded
# (apt-get download) and unpacked (dpkg -x), never installed.  "Newest" is
# asked of the archive on every run; what was unpacked is kept under
# $NILFS_KTEST_CACHE/kernels/ABI (older ABIs of the suite are removed) and
# reused while it is still the newest.  If the archive cannot be reached,
# the last kernel unpacked for the suite is used, with a note on stderr.
#
# Environment: NILFS_KTEST_CACHE (default tests/kernel/.cache),
# NILFS_KTEST_MIRROR (default http://deb.debian.org/debian),
# NILFS_KTEST_SECURITY_MIRROR (default http://security.debian.org/debian-security;
# SUITE-security is searched too, except for sid and experimental).

set -u

KTEST_DIR=$(cd "$(dirname "$0")" && pwd)
CACHE=${NILFS_KTEST_CACHE:-$KTEST_DIR/.cache}
MIRROR=${NILFS_KTEST_MIRROR:-http://deb.debian.org/debian}
SECURITY=${NILFS_KTEST_SECURITY_MIRROR:-http://security.debian.org/debian-security}
PROG=fetch-kernels.sh

note() { echo "$PROG: $*" >&2; }
skip() { note "$*"; exit 77; }
die() { note "$*"; exit 1; }

for c in apt-get apt-cache dpkg dpkg-deb; do
	command -v $c >/dev/null 2>&1 || skip "no $c (not a Debian-like host)"
done

# apt with the suite's private state ($APTDIR); every option that would
# read or write the host's state points into it
apt_setup() {
	suite=$1
	APTDIR=$CACHE/apt/$suite
	mkdir -p "$APTDIR/lists/partial" "$APTDIR/cache/archives/partial" "$APTDIR/prefs" ||
		die "cannot create $APTDIR"
	: >"$APTDIR/status"
	{
		echo "deb [arch=amd64] $MIRROR $suite main"
		case $suite in
		sid | unstable | experimental) ;;
		*) echo "deb [arch=amd64] $SECURITY $suite-security main" ;;
		esac
	} >"$APTDIR/sources.list"
	APTOPTS=(-o "Dir::Etc::sourcelist=$APTDIR/sources.list"
		-o Dir::Etc::sourceparts=/dev/null
		-o "Dir::Etc::preferencesparts=$APTDIR/prefs"
		-o Dir::Etc::preferences=/dev/null
		-o "Dir::State::Lists=$APTDIR/lists"
		-o "Dir::State::status=$APTDIR/status"
		-o "Dir::Cache=$APTDIR/cache"
		-o APT::Architecture=amd64 -o APT::Architectures::=amd64
		-o "APT::Sandbox::User=$(id -un)"
		-o Debug::NoLocking=1 -q)
}

# refresh the suite's lists; 1 (with apt's message) when unreachable
apt_update() {
	if ! apt-get "${APTOPTS[@]}" update >"$APTDIR/update.log" 2>&1 ||
		grep -q '^\(E\|W\): \(Failed\|Some index\)' "$APTDIR/update.log"; then
		note "cannot read $suite from $MIRROR:"
		grep '^\(E\|W\):' "$APTDIR/update.log" | head -n 5 >&2
		return 1
	fi
}

have_pkg() {
	apt-cache "${APTOPTS[@]}" show --no-all-versions "$1" >/dev/null 2>&1
}

pkg_version() {
	apt-cache "${APTOPTS[@]}" show --no-all-versions "$1" 2>/dev/null |
		sed -n 's/^Version: //p' | head -n 1
}

# The newest plain amd64 kernel ABI of the suite (e.g. 6.12.118+deb13-amd64,
# 7.2.13+deb14-amd64, 6.1.0-57-amd64), not the cloud or rt flavours: from
# the unsigned image packages, linux-image-ABI-unsigned (one package) or
# linux-binary-unsigned-ABI with linux-modules-ABI (7.x splits them).
newest_abi() {
	apt-cache "${APTOPTS[@]}" pkgnames linux- 2>/dev/null | sed -n \
		-e 's/^linux-image-\([0-9][^-]*\(-[0-9][0-9]*\)\{0,1\}-amd64\)-unsigned$/\1/p' \
		-e 's/^linux-binary-unsigned-\([0-9][^-]*\(-[0-9][0-9]*\)\{0,1\}-amd64\)$/\1/p' |
		sort -u | sort -V | while read -r abi; do
			# pkgnames lists virtual names too: keep real packages
			have_pkg "linux-image-$abi-unsigned" || have_pkg "linux-binary-unsigned-$abi" &&
				echo "$abi"
		done | tail -n 1
}

# Download PKG... into $1 and unpack them into $1/root.
download_unpack() {
	dir=$1
	shift
	(cd "$dir" && apt-get "${APTOPTS[@]}" download "$@") >"$dir/download.log" 2>&1 || {
		note "apt-get download $* failed:"
		tail -n 5 "$dir/download.log" >&2
		return 1
	}
	mkdir -p "$dir/root"
	for deb in "$dir"/*.deb; do
		dpkg -x "$deb" "$dir/root" || { note "dpkg -x $deb failed"; return 1; }
	done
	rm -f "$dir"/*.deb
}

# the env file of the last kernel unpacked for the suite, if any
cached_env() {
	[ -f "$CACHE/kernels/$1.env" ] && [ -f "$(sed -n 's/^NILFS_KTEST_KERNEL=//p' "$CACHE/kernels/$1.env" | tr -d "'")" ] &&
		echo "$CACHE/kernels/$1.env"
}

fetch_kernel() {
	suite=$1
	apt_setup "$suite"
	if ! apt_update; then
		env=$(cached_env "$suite") || skip "no $suite kernel cached; the kernel tests on $suite are skipped"
		note "using the cached $suite kernel"
		echo "$env"
		return 0
	fi
	abi=$(newest_abi)
	[ -n "$abi" ] || skip "no amd64 kernel package in $suite"
	if have_pkg "linux-image-$abi-unsigned"; then
		pkgs="linux-image-$abi-unsigned"
	elif have_pkg "linux-modules-$abi"; then
		pkgs="linux-binary-unsigned-$abi linux-modules-$abi"
		# modules.builtin (guest.sh skips the built-in virtio modules)
		! have_pkg "linux-base-$abi" || pkgs="$pkgs linux-base-$abi"
	else
		skip "$suite has linux-binary-unsigned-$abi without linux-modules-$abi"
	fi
	version=$(pkg_version "${pkgs%% *}")
	dest=$CACHE/kernels/$abi
	envf=$CACHE/kernels/$suite.env
	if [ -f "$dest/version" ] && [ "$(cat "$dest/version")" = "$version" ] &&
		[ -f "$envf" ]; then
		echo "$envf"
		return 0
	fi
	note "fetching $pkgs ($version) from $suite"
	mkdir -p "$CACHE/kernels" || die "cannot create $CACHE/kernels"
	work=$(mktemp -d "$CACHE/kernels/.fetch.XXXXXX") || die "mktemp failed"
	# shellcheck disable=SC2086  # word splitting wanted
	if ! download_unpack "$work" $pkgs; then
		rm -rf "$work"
		env=$(cached_env "$suite") || skip "cannot fetch the $suite kernel"
		note "using the cached $suite kernel"
		echo "$env"
		return 0
	fi
	# the image in /boot (6.12) or in the module tree (7.x:
	# /usr/lib/modules/KVER/vmlinuz.unsigned, vmlinuz when signed)
	kernel='' moddir=''
	for m in "$work"/root/usr/lib/modules/* "$work"/root/lib/modules/*; do
		[ -d "$m/kernel" ] || continue
		moddir=$m
		kver=${m##*/}
		for k in "$work/root/boot/vmlinuz-$kver" "$m/vmlinuz" "$m/vmlinuz.unsigned"; do
			[ -f "$k" ] && kernel=$k && break
		done
	done
	[ -n "$kernel" ] && [ -n "$moddir" ] || {
		rm -rf "$work"
		die "$pkgs hold no /boot/vmlinuz-* or modules"
	}
	echo "$version" >"$work/version"
	# dpkg -x keeps the package's times: a rebuilt package of the same ABI
	# must still be newer than guest.sh's initramfs of the one before
	touch "$kernel"
	# the paths as they will be once the tree is in place
	kernel=$dest/${kernel#"$work"/}
	moddir=$dest/${moddir#"$work"/}
	rm -rf "$dest"
	mv "$work" "$dest" || die "cannot move the kernel into $dest"
	printf "NILFS_KTEST_KERNEL='%s'\nNILFS_KTEST_MODDIR='%s'\nKTEST_KVER='%s'\nKTEST_SUITE='%s'\nexport NILFS_KTEST_KERNEL NILFS_KTEST_MODDIR\n" \
		"$kernel" "$moddir" "$kver" "$suite" >"$envf.tmp" && mv "$envf.tmp" "$envf"
	# older kernels of this suite are no longer needed
	for old in "$CACHE"/kernels/*/version; do
		d=${old%/version}
		[ "$d" = "$dest" ] && continue
		grep -q "$d/" "$CACHE"/kernels/*.env 2>/dev/null || rm -rf "$d"
	done
	echo "$envf"
}

# The suite's nilfs-tools and the closure of its dependencies (its libc
# included), reduced to: sbin/ (the programs), lib/ (the loader and the
# libraries the loader lists for them), bin/NAME (a wrapper that runs
# sbin/NAME through that loader and those libraries: no host library is
# used, so a newer glibc than the host's works), and version.
fetch_oracle() {
	suite=${1:-sid}
	apt_setup "$suite"
	dest=$CACHE/nilfs-tools-$suite
	if ! apt_update; then
		[ -x "$dest/bin/lscp" ] || skip "no nilfs-tools from $suite cached"
		note "using the cached nilfs-tools from $suite"
		echo "$dest"
		return 0
	fi
	version=$(pkg_version nilfs-tools)
	[ -n "$version" ] || skip "no nilfs-tools in $suite"
	if [ -f "$dest/version" ] && [ "$(cat "$dest/version")" = "$version" ]; then
		echo "$dest"
		return 0
	fi
	# the closure of its Depends and Pre-Depends: the package names apt
	# lists at the start of a line, without the virtual ones (<name>)
	pkgs=$(apt-cache "${APTOPTS[@]}" depends --recurse --no-recommends --no-suggests \
		--no-conflicts --no-breaks --no-replaces --no-enhances nilfs-tools 2>/dev/null |
		grep -v '^[ <]' | grep -vx nilfs-tools | sort -u)
	note "fetching nilfs-tools $version from $suite with:" $pkgs
	mkdir -p "$CACHE" || die "cannot create $CACHE"
	work=$(mktemp -d "$CACHE/.oracle.XXXXXX") || die "mktemp failed"
	# nilfs-tools alone first, for the names of its programs
	mkdir "$work/nt"
	download_unpack "$work/nt" nilfs-tools || { rm -rf "$work"; skip "cannot fetch nilfs-tools from $suite"; }
	find "$work/nt/root" -type f -path '*bin/*' -perm -u+x -printf '%f\n' >"$work/names"
	# shellcheck disable=SC2086  # word splitting wanted
	download_unpack "$work" $pkgs || { rm -rf "$work"; skip "cannot fetch nilfs-tools from $suite"; }
	cp -a "$work/nt/root/." "$work/root/"
	r=$work/root
	loader=$(ls "$r"/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 \
		"$r"/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 2>/dev/null | head -n 1)
	[ -n "$loader" ] || { rm -rf "$work"; die "no loader in $suite's libc6"; }
	out=$work/out
	mkdir -p "$out/sbin" "$out/lib" "$out/bin"
	cp -L "$loader" "$out/lib/ld-linux-x86-64.so.2" || die "cannot copy the loader"
	libpath=$r/usr/lib/x86_64-linux-gnu:$r/lib/x86_64-linux-gnu
	for p in "$r"/sbin/* "$r"/usr/sbin/* "$r"/bin/* "$r"/usr/bin/*; do
		name=${p##*/}
		# nilfs-tools' own programs only, not those of its dependencies
		grep -qx "$name" "$work/names" || continue
		[ -f "$p" ] && [ -x "$p" ] || continue
		cp -L "$p" "$out/sbin/$name" || die "cannot copy $p"
		# the libraries the suite's own loader finds for it
		"$loader" --library-path "$libpath" --list "$p" >"$work/ldd" 2>&1 ||
			die "$suite's loader cannot list $p: $(cat "$work/ldd")"
		grep -q 'not found' "$work/ldd" && die "a library of $p is missing: $(grep 'not found' "$work/ldd")"
		awk '$2 == "=>" && $3 ~ /^\// { print $3 }' "$work/ldd" | while read -r lib; do
			cp -L "$lib" "$out/lib/" || exit 1
		done || die "cannot copy the libraries of $p"
		{
			echo '#!/bin/sh'
			echo "# $suite's $name $version on its own loader and libraries (fetch-kernels.sh)"
			echo 'd=$(cd "$(dirname "$0")/.." && pwd)'
			echo "exec \"\$d/lib/ld-linux-x86-64.so.2\" --library-path \"\$d/lib\" --argv0 $name \"\$d/sbin/$name\" \"\$@\""
		} >"$out/bin/$name"
		chmod 755 "$out/bin/$name"
	done
	[ -x "$out/bin/lscp" ] && "$out/bin/lscp" -V >/dev/null 2>&1 ||
		{ rm -rf "$work"; die "$suite's lscp does not run on this host"; }
	echo "$version" >"$out/version"
	rm -rf "$dest"
	mv "$out" "$dest" || die "cannot move nilfs-tools into $dest"
	rm -rf "$work"
	echo "$dest"
}

case ${1:-} in
kernel)
	[ $# -eq 2 ] || die "usage: $PROG kernel SUITE"
	fetch_kernel "$2"
	;;
oracle)
	fetch_oracle "${2:-sid}"
	;;
*)
	echo "usage: $PROG kernel SUITE | oracle [SUITE]" >&2
	exit 2
	;;
esac
