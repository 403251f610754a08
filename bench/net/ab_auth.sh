#!/usr/bin/env bash
# Packet authentication's cost across two hosts (network namespaces), A/B in one run:
# A = a build before it, B = a build with it (header MAC, the default), C = the same
# build with TW_UDP_AUTH=payload (bench/net/ab.sh runs them). Root; run from the source
# tree.
# usage: bench/net/ab_auth.sh BUILD_A BUILD_B   env: as bench/net/ab.sh
AB_B=TW_UDP_AUTH=header AB_C=TW_UDP_AUTH=payload LABEL_B="B (header MAC)" \
    LABEL_C="C (payload MAC)" exec "$(dirname "$0")/ab.sh" "$@"
