package main

import (
	"fmt"
	"io"
	"net"
	"strings"
)

// warnIfExposed prints one loud line when addr (given to flag) is not a
// loopback address: the listener speaks plain HTTP, so anyone on that
// network can read its traffic, tokens included.
func warnIfExposed(stderr io.Writer, flag, addr string) {
	if stderr == nil || addr == "" || isLoopback(addr) {
		return
	}
	fmt.Fprintf(stderr, "WARNING: %s listens on %s, not on loopback: this is plain HTTP, and anyone on that network can read it, tokens included\n", flag, addr)
}

// isLoopback reports whether a listen address binds loopback only. An
// empty host (every interface) is not loopback.
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}
