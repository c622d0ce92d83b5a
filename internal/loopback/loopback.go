package loopback

import (
	"net"
	"strings"
)

// Addr reports whether a listen address (host:port, or a bare host)
// binds loopback only: localhost or a loopback IP. An empty host (every
// interface) is not loopback, nor is a name other than localhost.
func Addr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	return Host(strings.Trim(host, "[]"))
}

// Host reports whether a host name or IP (no port, no brackets) is
// loopback: localhost, in any case, or a loopback IP.
func Host(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
