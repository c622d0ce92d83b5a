package loopback

import (
	"net"
	"strings"
	"testing"
)

func TestAddr(t *testing.T) {
	for _, tc := range []struct {
		addr string
		want bool
	}{
		{"127.0.0.1:8080", true},
		{"127.9.9.9:1", true},
		{"[::1]:443", true},
		{"::1", true},
		{"localhost:0", true},
		{"LocalHost:80", true},
		{"localhost", true},
		{":8080", false}, // every interface
		{"", false},
		{"0.0.0.0:80", false},
		{"[::]:80", false},
		{"192.168.1.2:80", false},
		{"localhost.example:80", false},
		{"example.test:80", false},
	} {
		t.Run(tc.addr, func(t *testing.T) {
			if got := Addr(tc.addr); got != tc.want {
				t.Errorf("Addr(%q) = %v, want %v", tc.addr, got, tc.want)
			}
		})
	}
}

func TestHost(t *testing.T) {
	for _, tc := range []struct {
		host string
		want bool
	}{
		{"localhost", true},
		{"LOCALHOST", true},
		{"127.0.0.1", true},
		{"::1", true},
		{"[::1]", false}, // a host, not an address: no brackets
		{"sub.localhost", false},
		{"10.0.0.1", false},
		{"", false},
	} {
		t.Run(tc.host, func(t *testing.T) {
			if got := Host(tc.host); got != tc.want {
				t.Errorf("Host(%q) = %v, want %v", tc.host, got, tc.want)
			}
		})
	}
}

// FuzzAddr: whatever the address, Addr never calls every interface, an
// unspecified IP or a non-loopback IP loopback.
func FuzzAddr(f *testing.F) {
	for _, s := range []string{"127.0.0.1:1", "[::1]:2", "localhost", ":80", "0.0.0.0:0", "[::]:1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, addr string) {
		if !Addr(addr) {
			return
		}
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			host = addr
		}
		host = strings.Trim(host, "[]")
		if host == "" {
			t.Fatalf("Addr(%q): every interface called loopback", addr)
		}
		if ip := net.ParseIP(host); ip != nil && !ip.IsLoopback() {
			t.Fatalf("Addr(%q): %v called loopback", addr, ip)
		}
		if ip := net.ParseIP(host); ip == nil && !strings.EqualFold(host, "localhost") {
			t.Fatalf("Addr(%q): the name %q called loopback", addr, host)
		}
	})
}
