package main

import (
	"fmt"
	"net/netip"
	"strings"
)

// hostFlag collects --observer-host NAME=IP entries: host names the observer resolves to
// the given address itself, as an /etc/hosts line would. The local demo uses it to give
// model servers on loopback the two-label names a gateway accepts as backends; the
// network guard still checks the address.
type hostFlag map[string]netip.Addr

func (h hostFlag) String() string {
	parts := make([]string, 0, len(h))
	for name, ip := range h {
		parts = append(parts, name+"="+ip.String())
	}
	return strings.Join(parts, ",")
}

func (h hostFlag) Set(v string) error {
	name, ip, ok := strings.Cut(v, "=")
	addr, err := netip.ParseAddr(ip)
	if !ok || name == "" || err != nil {
		return fmt.Errorf("%q: want NAME=IP, such as worker-a.demo.test=127.0.0.1", v)
	}
	h[name] = addr
	return nil
}
